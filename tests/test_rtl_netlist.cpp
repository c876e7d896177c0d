// Gate-level check: yosys silently mis-synthesizes some constructs
// that Verilator accepts (sim/rtl/README.md, "SystemVerilog subset"), so the verilated yosys
// netlist of the tiny design rtl-tiny (scripts/rtl_netlist.sh) runs the
// bring-up corner programs (every unit, pads on each side, every ALU op, SHR
// both ways, ACC_8BIT, tokens on all four queues, FINISH) and seeded random
// programs through the same Harness as the RTL model of rtl-tiny. DRAM, every
// element of every on-chip buffer (the debug read port), the run record
// (each instruction's dispatch, issue and completion cycles, every burst)
// and every stat must be identical; DRAM and the buffers must also equal the
// golden model's, so that the two cannot agree by being equally wrong.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.h"
#include "verilator_backend.h"
#include "verilator_select.h"
#include "vta/bringup/programs.h"
#include "vta/model/image.h"
#include "vta/model/random_program.h"

namespace {

using vta::isa::MemId;
using vta::rtl::BuiltModel;
using vta::rtl::VerilatorBackend;

const std::string kPreset = "rtl-tiny";

vta::Config tiny() { return vta::load_config(std::string(VTA_SOURCE_DIR) + "/tests/configs/rtl-tiny.yaml"); }

const BuiltModel& netlist_model() {
  for (const BuiltModel* m : vta::rtl::netlist_models())
    if (m->preset == kPreset) return *m;
  throw std::runtime_error("no netlist model of " + kPreset + " is built (VTA_RTL_NETLIST)");
}

/// The verilator backend on the netlist model.
class NetlistBackend : public VerilatorBackend {
 public:
  NetlistBackend(const vta::Config& c, const vta::BackendOptions& o)
      : VerilatorBackend(c, o, "verilator (netlist)",
                         [](const vta::Config&, const vta::BackendOptions&) { return netlist_model().make(); }) {}
};

/// Everything a run leaves behind that the test compares.
struct Outcome {
  std::vector<std::vector<uint8_t>> dram;                    // every allocation, in address order
  std::vector<std::pair<MemId, std::vector<uint8_t>>> sram;  // every buffer, whole
  vta::RunStats stats;
};

Outcome run(vta::Backend& b, vta::ProgramImage image) {
  b.run(vta::install(image, b));
  Outcome o;
  for (const auto& [addr, a] : b.dram().allocations()) o.dram.push_back(b.dram().read(addr, a.bytes));
  const auto& d = b.config().derived;
  for (const auto& [m, depth] :
       {std::pair{MemId::UOP, d.uop_depth}, std::pair{MemId::INP, d.inp_depth}, std::pair{MemId::WGT, d.wgt_depth},
        std::pair{MemId::ACC, d.acc_depth}, std::pair{MemId::OUT, d.out_depth}})
    o.sram.emplace_back(m, b.read_sram(m, 0, static_cast<uint32_t>(depth)));
  o.stats = b.stats();
  return o;
}

// Empty when `a` and `b` are equal, else the first difference (readable
// where EXPECT_EQ would print whole buffers).
std::string difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a == b) return {};
  if (a.size() != b.size()) return fmt::format("{} bytes against {}", a.size(), b.size());
  size_t k = 0;
  while (a[k] == b[k]) ++k;
  return fmt::format("byte {} of {}: 0x{:02x} against 0x{:02x}", k, a.size(), a[k], b[k]);
}

void expect_same_record(const vta::sim::RunRecord& rtl, const vta::sim::RunRecord& net) {
  EXPECT_EQ(net.cycles, rtl.cycles);
  EXPECT_EQ(net.read_beats, rtl.read_beats);
  EXPECT_EQ(net.write_beats, rtl.write_beats);
  EXPECT_EQ(net.fetch_wait_memory, rtl.fetch_wait_memory);
  EXPECT_EQ(net.fetch_wait_queue, rtl.fetch_wait_queue);
  EXPECT_EQ(net.fetch_end, rtl.fetch_end);
  ASSERT_EQ(net.insns.size(), rtl.insns.size());
  for (size_t i = 0; i < rtl.insns.size(); ++i) {
    const auto &a = rtl.insns[i], &b = net.insns[i];
    EXPECT_TRUE(a.avail == b.avail && a.start == b.start && a.end == b.end && a.wait_token == b.wait_token &&
                a.wait_memory == b.wait_memory)
        << "instruction " << i << ": RTL avail/start/end " << a.avail << "/" << a.start << "/" << a.end << ", netlist "
        << b.avail << "/" << b.start << "/" << b.end;
  }
  ASSERT_EQ(net.bursts.size(), rtl.bursts.size());
  for (size_t i = 0; i < rtl.bursts.size(); ++i) {
    const auto &a = rtl.bursts[i], &b = net.bursts[i];
    EXPECT_TRUE(a.client == b.client && a.write == b.write && a.grant == b.grant && a.data_start == b.data_start &&
                a.data_end == b.data_end)
        << "burst " << i << ": RTL grant " << a.grant << ", netlist grant " << b.grant;
  }
}

/// Runs `image` on golden, the RTL model and the netlist model of rtl-tiny.
void check(const vta::Config& cfg, const vta::ProgramImage& image) {
  // A trace path makes the verilator backend record every burst.
  const auto dir = std::filesystem::path(VTA_BINARY_DIR) / "test-tmp" / "rtl_netlist";
  std::filesystem::create_directories(dir);
  vta::BackendOptions ro, no;
  ro.trace_path = (dir / "rtl.json").string();
  no.trace_path = (dir / "netlist.json").string();
  VerilatorBackend rtl(cfg, ro);
  NetlistBackend net(cfg, no);
  auto gold = vta::make_backend("golden", cfg);
  const Outcome r = run(rtl, image), n = run(net, image), g = run(*gold, image);
  expect_same_record(rtl.last_record(), net.last_record());
  EXPECT_EQ(n.stats.total.items(), r.stats.total.items());
  ASSERT_EQ(r.dram.size(), g.dram.size());
  ASSERT_EQ(n.dram.size(), r.dram.size());
  for (size_t k = 0; k < r.dram.size(); ++k) {
    EXPECT_EQ(difference(r.dram[k], g.dram[k]), "") << "DRAM allocation " << k << ", RTL against golden";
    EXPECT_EQ(difference(n.dram[k], r.dram[k]), "") << "DRAM allocation " << k << ", netlist against RTL";
  }
  for (size_t k = 0; k < r.sram.size(); ++k) {
    const char* mem = vta::isa::mem_name(r.sram[k].first);
    EXPECT_EQ(difference(r.sram[k].second, g.sram[k].second), "") << mem << " buffer, RTL against golden";
    EXPECT_EQ(difference(n.sram[k].second, r.sram[k].second), "") << mem << " buffer, netlist against RTL";
  }
  EXPECT_GT(r.stats.total.get("cycles.total"), 0u);
}

// The largest pad (15) on each side of a LOAD in turn, of INP, WGT and ACC:
// the corner program load_inp_pad_max (15 on every side, 961 elements) does
// not fit rtl-tiny's 64-element buffers.
vta::ProgramImage max_pads(const vta::Config& cfg) {
  using vta::programs::load;
  vta::programs::ImageBuilder b(cfg, "max_pads");
  auto src = [&](MemId m) {
    return b.buffer("src", m, 2,
                    vta::programs::random_bytes(2 * static_cast<size_t>(cfg.elem_bytes(static_cast<int>(m))), 7));
  };
  const uint32_t inp = src(MemId::INP), wgt = src(MemId::WGT), acc = src(MemId::ACC);
  b.tile({load(MemId::INP, 0, inp, 1, 2, 2, 15, 0, 0, 0), load(MemId::INP, 32, inp, 1, 2, 2, 0, 15, 0, 0),
          load(MemId::WGT, 0, wgt, 1, 2, 2, 0, 0, 15, 0), load(MemId::WGT, 20, wgt, 1, 2, 2, 0, 0, 0, 15)},
         {load(MemId::ACC, 0, acc, 1, 2, 2, 15, 0, 0, 0), load(MemId::ACC, 32, acc, 1, 2, 2, 0, 0, 15, 15)}, {});
  return b.finish();
}

TEST(RtlNetlist, BackendNeverSelectsTheNetlist) {
  const vta::Config cfg = tiny();
  const BuiltModel& rtl = vta::rtl::select_model(cfg);
  EXPECT_EQ(rtl.preset, kPreset);
  EXPECT_NE(&rtl, &netlist_model());
  EXPECT_STREQ(netlist_model().package, rtl.package);
}

TEST(RtlNetlist, CornerProgramsMatchRtlAndGolden) {
  const vta::Config cfg = tiny();
  auto programs = vta::programs::corner_programs(cfg);
  // Only load_inp_pad_max is left out for not fitting rtl-tiny's buffers; max_pads stands in.
  std::set<std::string> left_out;
  for (const auto& p : vta::programs::corner_programs(vta::test::preset("vta-1x16x16"))) left_out.insert(p.name);
  for (const auto& p : programs) left_out.erase(p.name);
  EXPECT_EQ(left_out, std::set<std::string>{"load_inp_pad_max"});
  programs.push_back({"max_pads", max_pads(cfg)});
  for (const auto& p : programs) {
    SCOPED_TRACE(p.name);
    check(cfg, p.image);
    if (HasFailure()) return;
  }
}

TEST(RtlNetlist, RandomProgramsMatchRtlAndGolden) {
  const vta::Config cfg = tiny();
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    check(cfg, vta::random_program(cfg, seed));
    if (HasFailure()) return;
  }
}

}  // namespace
