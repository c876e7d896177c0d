// The verilator backend beyond the shared suites (which run on it too):
// values and counters against golden and cycles and every stat against the
// SystemC model on seeded random programs, run-time knobs below the built
// model's maxima, read_sram, traces and bounded waveforms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "conv_program.h"
#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

// A seeded random valid program: LOAD UOP, then tiles of load (INP with
// random shape, stride and padding; WGT) -> compute (an optional ACC or
// ACC_8BIT load, a GEMM over a random uop range and loop nest, 0-2 ALU ops)
// -> store, chained by tokens so that every legal schedule computes the
// same values. Indices stay below 64 (WGT 32) so that every preset fits.
void random_program(ProgramBuilder& p, const vta::Config& c, uint32_t seed) {
  std::mt19937 rng(seed);
  auto bytes = [&](MemId m, uint32_t n, uint32_t s) {
    return random_bytes(n * static_cast<size_t>(c.elem_bytes(static_cast<int>(m))), s);
  };
  auto rnd = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  std::vector<vta::isa::Insn> uops;
  const uint32_t n_uops = rnd(1, 6);
  for (uint32_t k = 0; k < n_uops; ++k) uops.push_back(make_uop(rnd(0, 15), rnd(0, 15), rnd(0, 7)));
  const uint32_t u = p.uops(uops);
  const uint32_t inp = p.buffer(MemId::INP, 64, bytes(MemId::INP, 64, seed));
  const uint32_t wgt = p.buffer(MemId::WGT, 16, bytes(MemId::WGT, 16, seed + 1));
  const uint32_t acc = p.buffer(MemId::ACC, 16, bytes(MemId::ACC, 16, seed + 2));
  const uint32_t acc8 = p.buffer(MemId::ACC_8BIT, 16, bytes(MemId::ACC_8BIT, 16, seed + 3));
  const uint32_t out = p.buffer(MemId::OUT, 64);
  p.add(make_load(MemId::UOP, 0, u, 1, n_uops, n_uops));
  const uint32_t tiles = rnd(1, 4);
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t y = rnd(1, 3), x = rnd(1, 4);
    p.add(with_deps(make_load(MemId::INP, rnd(0, 8), inp + rnd(0, 8), y, x, x + rnd(0, 3), rnd(0, 1), rnd(0, 1),
                              rnd(0, 2), rnd(0, 1)),
                    false, t > 0, false, false));
    p.add(with_deps(make_load(MemId::WGT, rnd(0, 4), wgt + rnd(0, 4), 1, rnd(1, 8), 8), false, false, false, true));
    std::vector<vta::isa::Insn> compute;
    if (rnd(0, 2) == 0) compute.push_back(make_load(MemId::ACC, rnd(0, 8), acc + rnd(0, 4), rnd(1, 2), rnd(1, 4), 4));
    if (rnd(0, 3) == 0) compute.push_back(make_load(MemId::ACC_8BIT, rnd(0, 8), acc8 + rnd(0, 4), 1, rnd(1, 4), 4));
    const uint32_t bgn = rnd(0, n_uops - 1), end = rnd(bgn + 1, n_uops);
    compute.push_back(make_gemm(rnd(0, 3) == 0, bgn, end, rnd(1, 3), rnd(1, 3), rnd(0, 4), rnd(0, 4), rnd(0, 4),
                                rnd(0, 4), rnd(0, 2), rnd(0, 2)));
    for (uint32_t a = rnd(0, 2); a > 0; --a) {
      const auto op = static_cast<AluOp>(rnd(0, 4));
      const bool imm = rnd(0, 1) == 1;
      const int32_t v = op == AluOp::SHR ? static_cast<int32_t>(rnd(0, 6)) : static_cast<int32_t>(rnd(0, 200)) - 100;
      compute.push_back(
          make_alu(op, imm, v, bgn, end, rnd(1, 2), rnd(1, 3), rnd(0, 4), rnd(0, 4), rnd(0, 4), rnd(0, 4)));
    }
    for (size_t k = 0; k < compute.size(); ++k) {
      const bool gemm = compute[k].opcode() == vta::isa::Opcode::GEMM;
      const bool first = k == 0, last = k + 1 == compute.size();
      p.add(with_deps(compute[k], gemm, first && t > 0, last, last));
    }
    p.add(with_deps(make_store(rnd(0, 16), out + 16 * (t % 4), rnd(1, 2), rnd(1, 4), 8), true, false, true, false));
  }
  p.add(with_deps(make_finish(), false, true, false, false));
}

struct Outcome {
  std::vector<std::vector<uint8_t>> dram;  // every allocation, in address order
  vta::RunStats stats;
};

template <typename Build>
Outcome run_on(const std::string& backend, const vta::Config& cfg, Build&& build, const vta::BackendOptions& o = {}) {
  auto b = vta::make_backend(backend, cfg, o);
  ProgramBuilder p(*b);
  build(p);
  p.run();
  Outcome r;
  for (const auto& [addr, a] : b->dram().allocations()) r.dram.push_back(b->dram().read(addr, a.bytes));
  r.stats = b->stats();
  return r;
}

class VerilatorRandom : public ::testing::TestWithParam<std::string> {};

TEST_P(VerilatorRandom, MatchesGoldenValuesAndSystemCCycles) {
  const vta::Config cfg = preset(GetParam());
  uint64_t macs = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(testing::Message() << GetParam() << " seed " << seed);
    auto build = [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); };
    const Outcome rtl = run_on("verilator", cfg, build);
    const Outcome gold = run_on("golden", cfg, build);
    const Outcome sc = run_on("systemc", cfg, build);
    EXPECT_EQ(rtl.dram, gold.dram);
    for (const auto& [k, v] : gold.stats.total.items()) EXPECT_EQ(rtl.stats.total.get(k), v) << k;
    // Every stat of the two cycle models, cycles and stalls included.
    for (const auto& [k, v] : sc.stats.total.items()) EXPECT_EQ(rtl.stats.total.get(k), v) << "systemc " << k;
    EXPECT_EQ(rtl.stats.total.items().size(), sc.stats.total.items().size());
    macs += gold.stats.total.get("gemm.macs");
    if (HasFailure()) return;
  }
  EXPECT_GT(macs, 0u);
}

INSTANTIATE_TEST_SUITE_P(Verilator, VerilatorRandom, ::testing::Values("vta-1x16x16", "vta-4x16x16", "vta-1x32x32"),
                         [](const auto& tpi) {
                           std::string s = tpi.param;
                           for (auto& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

TEST(Verilator, DoubleBufferedConvMatchesSystemC) {
  for (const char* name : {"vta-1x16x16", "vta-4x16x16"}) {
    auto rtl = vta::make_backend("verilator", preset(name));
    auto sc = vta::make_backend("systemc", preset(name));
    rtl->run(conv_program(*rtl, 4));
    sc->run(conv_program(*sc, 4));
    EXPECT_EQ(rtl->stats().total.items(), sc->stats().total.items()) << name;
  }
}

TEST(Verilator, RunTimeKnobsBelowTheBuiltMaxima) {
  // Command and token queues, bursts and ALU intervals are run-time ports
  // (their package values are maxima); memory latencies and outstanding
  // reads live in the C++ memory model.
  const std::vector<vta::Override> ov{{"queues.command_depth", "2"},     {"queues.token_depth", "3"},
                                      {"memory.max_burst", "16"},        {"alu.ii_vector", "1"},
                                      {"memory.read_latency", "0"},      {"memory.write_latency", "0"},
                                      {"memory.outstanding_reads", "1"}, {"memory.arbitration", "fixed_priority"}};
  const vta::Config cfg = preset("vta-1x16x16", ov);
  for (uint32_t seed = 20; seed < 24; ++seed) {
    auto build = [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); };
    const Outcome rtl = run_on("verilator", cfg, build);
    const Outcome sc = run_on("systemc", cfg, build);
    EXPECT_EQ(rtl.dram, run_on("golden", cfg, build).dram) << seed;
    EXPECT_EQ(rtl.stats.total.items(), sc.stats.total.items()) << seed;
  }
}

TEST(Verilator, ReadSramMatchesGolden) {
  const vta::Config cfg = preset("vta-1x16x16");
  auto rtl = vta::make_backend("verilator", cfg);
  auto gold = vta::make_backend("golden", cfg);
  for (auto* b : {rtl.get(), gold.get()}) {
    ProgramBuilder p(*b);
    random_program(p, cfg, 7);
    p.run();
  }
  for (MemId m : {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::ACC_8BIT, MemId::OUT})
    EXPECT_EQ(rtl->read_sram(m, 0, 24), gold->read_sram(m, 0, 24)) << vta::isa::mem_name(m);
  // Out of range: the golden model's message.
  std::string want, got;
  try {
    gold->read_sram(MemId::INP, 2040, 16);
  } catch (const vta::Error& e) {
    want = e.what();
  }
  try {
    rtl->read_sram(MemId::INP, 2040, 16);
  } catch (const vta::Error& e) {
    got = e.what();
  }
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
}

TEST(Verilator, BuffersCarryOverBetweenRuns) {
  const vta::Config cfg = preset("vta-1x16x16");
  auto rtl = vta::make_backend("verilator", cfg);
  auto gold = vta::make_backend("golden", cfg);
  for (auto* b : {rtl.get(), gold.get()}) {
    ProgramBuilder p(*b);
    random_program(p, cfg, 3);
    p.run();
    ProgramBuilder q(*b);  // no loads: GEMM and ALU on what the first run left
    q.add(make_gemm(false, 0, 1, 2, 2, 1, 1, 1, 1, 1, 0));
    q.add(make_alu(AluOp::ADD, false, 0, 0, 1, 2, 2, 1, 1, 1, 1));
    q.add(with_deps(make_finish(), false, false, false, false));
    q.run();
  }
  EXPECT_EQ(rtl->read_sram(MemId::ACC, 0, 32), gold->read_sram(MemId::ACC, 0, 32));
  EXPECT_EQ(rtl->read_sram(MemId::OUT, 0, 32), gold->read_sram(MemId::OUT, 0, 32));
}

TEST(Verilator, CommittedTestPackageIsFresh) {
  // sim/rtl/generated/vta_pkg_rtl-alu4.sv, the 4-lane ALU model of the timing tests.
  const vta::Config c = vta::load_config(std::string(VTA_SOURCE_DIR) + "/tests/configs/rtl-alu4.yaml");
  std::ifstream in(std::string(VTA_SOURCE_DIR) + "/sim/rtl/generated/vta_pkg_rtl-alu4.sv");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, vta::isa::generate_sv_package(c))
      << "regenerate with: vta gen sv --config tests/configs/rtl-alu4.yaml -o sim/rtl/generated/vta_pkg_rtl-alu4.sv";
}

namespace fs = std::filesystem;

fs::path tmp_dir(const std::string& name) {
  fs::path d = fs::path(VTA_BINARY_DIR) / "test-tmp" / "verilator" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The first and last timestamps (#N lines) of a VCD file.
std::pair<uint64_t, uint64_t> vcd_times(const fs::path& f) {
  std::ifstream in(f);
  std::string line;
  uint64_t lo = UINT64_MAX, hi = 0;
  bool defs = false;
  while (std::getline(in, line)) {
    if (line.find("$enddefinitions") != std::string::npos) defs = true;
    if (!line.empty() && line[0] == '#') {
      const uint64_t t = std::stoull(line.substr(1));
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
  }
  EXPECT_TRUE(defs) << f;
  return {lo, hi};
}

TEST(Verilator, WaveIsWrittenAndBoundedByItsWindow) {
  const fs::path dir = tmp_dir("wave");
  vta::BackendOptions o;
  o.wave_path = (dir / "run.vcd").string();
  o.wave_from = 30;
  o.wave_cycles = 40;
  auto b = vta::make_backend("verilator", preset("vta-1x16x16"), o);
  ProgramBuilder p(*b);
  random_program(p, b->config(), 5);
  p.run();
  ASSERT_GT(b->stats().total.get("cycles.total"), 70u);
  ASSERT_TRUE(fs::exists(o.wave_path));
  const auto [lo, hi] = vcd_times(o.wave_path);
  EXPECT_EQ(lo, 2u * 30);
  EXPECT_EQ(hi, 2u * 70 - 1);
  const auto small = fs::file_size(o.wave_path);
  // A second run writes run.1.vcd; a wider window writes more.
  ProgramBuilder q(*b);
  random_program(q, b->config(), 5);
  q.run();
  EXPECT_TRUE(fs::exists(dir / "run.1.vcd"));
  vta::BackendOptions wide = o;
  wide.wave_path = (dir / "wide.vcd").string();
  wide.wave_from = 0;
  wide.wave_cycles = 1000000;
  auto w = vta::make_backend("verilator", preset("vta-1x16x16"), wide);
  ProgramBuilder r(*w);
  random_program(r, w->config(), 5);
  r.run();
  EXPECT_GT(fs::file_size(wide.wave_path), small);
  EXPECT_EQ(vcd_times(wide.wave_path).second, 2 * w->stats().total.get("cycles.total") - 1);
}

TEST(Verilator, TraceHasASlicePerInstruction) {
  const fs::path dir = tmp_dir("trace");
  vta::BackendOptions o;
  o.trace_path = (dir / "t.json").string();
  auto b = vta::make_backend("verilator", preset("vta-1x16x16"), o);
  ProgramBuilder p(*b);
  random_program(p, b->config(), 9);
  p.run();
  std::ifstream in(o.trace_path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("traceEvents"), std::string::npos);
  EXPECT_NE(text.find("\"cycles\":" + std::to_string(b->stats().total.get("cycles.total"))), std::string::npos);
}

}  // namespace
