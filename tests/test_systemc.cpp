// The SystemC backend beyond exact timing: timing-only mode, monotonicity in
// the design knobs, regions, traces, options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/image.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

// A small double-buffered tile loop: per tile, load inputs and weights,
// accumulate with GEMM, requantise on the ALU and store; tokens order it.
void tiled_program(ProgramBuilder& p, uint32_t tiles) {
  uint32_t u = p.uops({make_uop(0, 0, 0), make_uop(1, 1, 0), make_uop(2, 2, 1), make_uop(3, 3, 1)});
  uint32_t a = p.buffer(MemId::INP, 64 * tiles, random_bytes(64 * tiles * 16, 3));
  uint32_t w = p.buffer(MemId::WGT, 8, random_bytes(8 * 256, 4));
  uint32_t o = p.buffer(MemId::OUT, 16 * tiles);
  p.add(make_load(MemId::UOP, 0, u, 1, 4, 4));
  p.add(with_deps(make_load(MemId::INP, 0, 0, 0, 0, 0), false, false, false, true));  // prime compute->load
  p.add(with_deps(make_gemm(true, 0, 4, 1, 4, 4, 0), true, false, true, false));
  for (uint32_t t = 0; t < tiles; ++t) {
    p.add(with_deps(make_load(MemId::INP, 0, a + 64 * t, 4, 16, 16, 0, 0, 0, 0), false, true, false, false));
    p.add(with_deps(make_load(MemId::WGT, 0, w, 1, 8, 8), false, false, false, true));
    // The GEMM writes OUT too: it waits (pop_next) for the previous tile's
    // store to have read OUT, or the two race (the race checker says so).
    p.add(with_deps(make_gemm(false, 0, 4, 4, 4, 4, 1, 16, 4, 2, 0), true, t > 0, true, false));
    p.add(make_alu(AluOp::SHR, true, 6, 0, 4, 4, 1, 4, 0, 4, 0));
    p.add(with_deps(make_alu(AluOp::MAX, true, 0, 0, 4, 4, 1, 4, 0, 4, 0), false, false, false, true));
    p.add(with_deps(make_store(0, o + 16 * t, 1, 16, 16), true, false, true, false));
  }
  p.add(with_deps(make_finish(), false, true, false, false));
  // The last compute->load token from the final GEMM is left in its queue.
}

vta::RunStats run_on(const vta::Config& c, const vta::BackendOptions& o, uint32_t tiles = 6) {
  auto b = vta::make_backend("systemc", c, o);
  ProgramBuilder p(*b);
  tiled_program(p, tiles);
  p.run();
  return b->stats();
}

TEST(SystemC, ValuesMatchGoldenOnTheTiledProgram) {
  auto cfg = preset("vta-1x16x16");
  auto sc = vta::make_backend("systemc", cfg);
  auto gd = vta::make_backend("golden", cfg);
  ProgramBuilder ps(*sc), pg(*gd);
  tiled_program(ps, 6);
  tiled_program(pg, 6);
  ps.run();
  pg.run();
  for (const auto& [addr, a] : gd->dram().allocations())
    EXPECT_EQ(sc->dram().read(addr, a.bytes), gd->dram().read(addr, a.bytes)) << std::hex << addr;
  const vta::RunStats sc_stats = sc->stats(), gd_stats = gd->stats();
  EXPECT_GT(sc_stats.total.get("cycles.total"), 0u);
  // Every counter the golden model has, the cycle model reports identically.
  for (const auto& [k, v] : gd_stats.total.items()) EXPECT_EQ(sc_stats.total.get(k), v) << k;
}

TEST(SystemC, TimingOnlyGivesIdenticalStats) {
  for (const auto& name : preset_names()) {
    auto cfg = preset(name);
    vta::BackendOptions timing_only;
    timing_only.timing_only = true;
    auto full = run_on(cfg, {});
    auto fast = run_on(cfg, timing_only);
    ASSERT_GT(full.total.get("cycles.total"), 0u);
    EXPECT_EQ(full.total.items(), fast.total.items()) << name;
  }
}

TEST(SystemC, TimingOnlyHoldsNoTensors) {
  vta::BackendOptions o;
  o.timing_only = true;
  auto b = vta::make_backend("systemc", preset("vta-1x16x16"), o);
  EXPECT_THROW(b->read_sram(MemId::OUT, 0, 1), vta::Error);
}

uint64_t cycles_with(const std::vector<vta::Override>& ov) {
  return run_on(preset("vta-1x16x16", ov), {}).total.get("cycles.total");
}

TEST(SystemC, WiderBusNeverIncreasesCycles) {
  uint64_t prev = UINT64_MAX;
  for (const char* bits : {"32", "64", "128", "256", "512"}) {
    uint64_t c = cycles_with({{"memory.bus_bits", bits}});
    EXPECT_LE(c, prev) << "bus_bits " << bits;
    prev = c;
  }
  EXPECT_LT(cycles_with({{"memory.bus_bits", "512"}}), cycles_with({{"memory.bus_bits", "32"}}));
}

TEST(SystemC, MoreAluLanesNeverIncreaseCycles) {
  uint64_t prev = UINT64_MAX;
  for (const char* lanes : {"1", "2", "4", "8", "16"}) {
    uint64_t c = cycles_with({{"alu.lanes", lanes}});
    EXPECT_LE(c, prev) << "alu.lanes " << lanes;
    prev = c;
  }
  EXPECT_LT(cycles_with({{"alu.lanes", "16"}}), cycles_with({{"alu.lanes", "1"}}));
}

// The latency knobs of the fixed port (a DRAM preset takes its latency from
// its timings instead).
TEST(SystemC, LongerMemoryLatencyNeverDecreasesCycles) {
  uint64_t prev = 0;
  for (const char* lat : {"0", "4", "16", "64", "256"}) {
    uint64_t c = cycles_with({{"memory.dram", "fixed"}, {"memory.read_latency", lat}, {"memory.write_latency", lat}});
    EXPECT_GE(c, prev) << "latency " << lat;
    prev = c;
  }
  EXPECT_GT(cycles_with({{"memory.dram", "fixed"}, {"memory.read_latency", "256"}}),
            cycles_with({{"memory.dram", "fixed"}, {"memory.read_latency", "0"}}));
}

TEST(SystemC, RegionsCarryTheirOwnStats) {
  auto cfg = preset("vta-1x16x16");
  vta::ProgramImage img = vta::read_program(std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm", cfg);
  auto b = vta::make_backend("systemc", cfg);
  b->run(vta::install(img, *b));
  const auto st = b->stats();
  ASSERT_EQ(st.regions.size(), 4u);
  uint64_t gemm = 0, alu = 0;
  for (const auto& [name, s] : st.regions) {
    EXPECT_GT(s.get("cycles.total"), 0u) << name;
    EXPECT_LE(s.get("cycles.total"), st.total.get("cycles.total")) << name;
    gemm += s.get("gemm.active_cycles");
    alu += s.get("alu.active_cycles");
  }
  EXPECT_EQ(gemm, st.total.get("gemm.active_cycles"));
  EXPECT_EQ(alu, st.total.get("alu.active_cycles"));
  EXPECT_EQ(st.regions[1].second.get("gemm.macs"), 512u);
}

TEST(SystemC, TraceHasASlicePerInstructionAndIsBounded) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "trace";
  fs::create_directories(dir);
  vta::BackendOptions o;
  o.trace_path = (dir / "full.json").string();
  auto st = run_on(preset("vta-1x16x16"), o, 2);
  std::ifstream in(o.trace_path);
  auto j = nlohmann::json::parse(in);
  size_t slices = 0, counters = 0, port = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] != 4) ++slices;
    if (e["ph"] == "X" && e["tid"] == 4) ++port;
    if (e["ph"] == "C") ++counters;
  }
  EXPECT_EQ(slices, st.total.get("insn.total"));
  EXPECT_GT(port, 0u);
  EXPECT_GT(counters, 0u);
  EXPECT_EQ(j["otherData"]["truncated"], false);
  EXPECT_EQ(j["otherData"]["cycles"], st.total.get("cycles.total"));

  o.trace_path = (dir / "cut.json").string();
  o.trace_limit = 10;
  run_on(preset("vta-1x16x16"), o, 2);
  std::ifstream in2(o.trace_path);
  auto k = nlohmann::json::parse(in2);
  EXPECT_EQ(k["traceEvents"].size(), 10u);
  EXPECT_EQ(k["otherData"]["truncated"], true);
  EXPECT_GT(k["otherData"]["dropped_events"].get<uint64_t>(), 0u);
}

TEST(SystemC, GoldenRejectsCycleModelOptions) {
  vta::BackendOptions o;
  o.timing_only = true;
  EXPECT_THROW(vta::make_backend("golden", preset("vta-1x16x16"), o), vta::Error);
  vta::BackendOptions t;
  t.trace_path = "x.json";
  EXPECT_THROW(vta::make_backend("golden", preset("vta-1x16x16"), t), vta::Error);
}

TEST(SystemC, PcieHostLinkCostsCycles) {
  auto edge = run_on(preset("vta-1x16x16"), {});
  auto pcie = run_on(preset("vta-1x16x16-pcie"), {});
  EXPECT_EQ(edge.total.get("host.to_device_cycles"), 0u);
  // 10 us setup at 250 MHz is 2500 cycles before any bytes move.
  EXPECT_GT(pcie.total.get("host.to_device_cycles"), 2500u);
}

}  // namespace
