// The verilator backend beyond the shared suites (which run on it too):
// values and counters against golden and cycles and every stat against the
// SystemC model on seeded random programs, run-time knobs below the built
// model's maxima, read_sram, traces and bounded waveforms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "conv_program.h"
#include "random_program.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

class VerilatorRandom : public ::testing::TestWithParam<std::string> {};

// Values and counters against golden, every stat against the SystemC model.
void expect_random_programs_match(const vta::Config& cfg) {
  uint64_t macs = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(testing::Message() << cfg.name << " seed " << seed);
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
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(macs, 0u);
}

TEST_P(VerilatorRandom, MatchesGoldenValuesAndSystemCCycles) { expect_random_programs_match(preset(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Verilator, VerilatorRandom, ::testing::Values("vta-1x16x16", "vta-4x16x16", "vta-1x32x32"),
                         [](const auto& tpi) {
                           std::string s = tpi.param;
                           for (auto& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// The GEMM array pipelined over 8 stages (registers after the multiply and
// after adder-tree levels 2, 3 and 4; INP and WGT read at stage 2, ACC at
// stage 6) and 16 accumulator lanes on 4 ALU lanes of latency 6
// (tests/configs/rtl-deep.yaml): same values, cycles and stalls.
TEST(Verilator, PipelinedGemmArrayMatchesSystemC) {
  expect_random_programs_match(vta::load_config(std::string(VTA_SOURCE_DIR) + "/tests/configs/rtl-deep.yaml"));
}

// alu.concurrent (vta_concurrent.sv; docs/timing.md, "Concurrent ALU"): the
// RTL's scan, two pipes, bank scoreboard and in-order pushes against the
// SystemC model's, cycle for cycle and stat for stat (vta-1x16x16's model
// with the knob is built on demand into the build tree's test cache).
TEST(Verilator, ConcurrentAluMatchesSystemC) {
  use_test_rtl_cache();
  expect_random_programs_match(preset("vta-1x16x16", {{"alu.concurrent", "true"}}));
}

// Network `g` compiled for `cfg`, run on the RTL and on SystemC: the same
// output and every stat equal. Returns the RTL's output and cycles.
std::pair<std::vector<int16_t>, double> expect_rtl_equals_systemc(const vta::compiler::Graph& g,
                                                                  const vta::compiler::Tensor& in,
                                                                  const vta::Config& cfg) {
  const vta::compiler::CompiledNetwork net = vta::compiler::compile(g, cfg);
  auto rtl = vta::make_backend("verilator", cfg);
  auto sc = vta::make_backend("systemc", cfg);
  const auto r = vta::compiler::run_network(net, *rtl, in);
  const auto s = vta::compiler::run_network(net, *sc, in);
  EXPECT_EQ(r.output.data, s.output.data);
  EXPECT_EQ(rtl->stats().total.items(), sc->stats().total.items());
  return {r.output.data, static_cast<double>(rtl->stats().total.get("cycles.total"))};
}

// ResNet-18's 3x3 convs of stages 1 and 3 at full size (the zoo's
// single-layer networks) on the same design, where codegen runs each tile's
// epilogue (ALU) beside the next tile's GEMMs: stats equal SystemC's, the
// output is the same, and the pipes overlap (fewer cycles than the serial
// core's).
TEST(Verilator, ConcurrentAluResNet18LayersMatchSystemC) {
  use_test_rtl_cache();
  const vta::Config cfg = preset("vta-1x16x16", {{"alu.concurrent", "true"}});
  const vta::Config serial = preset("vta-1x16x16");
  for (const char* layer : {"conv:64,56,56,64,3,1,1", "conv:256,14,14,256,3,1,1"}) {
    SCOPED_TRACE(layer);
    const vta::compiler::Graph g = vta::compiler::build_zoo(layer);
    const vta::compiler::Tensor in = vta::compiler::zoo_input(g, 7);
    const double cycles = expect_rtl_equals_systemc(g, in, cfg).second;
    auto one = vta::make_backend("systemc", serial);
    vta::compiler::run_network(vta::compiler::compile(g, serial), *one, in);
    EXPECT_LT(cycles, one->stats().total.get("cycles.total"));
  }
}

// ResNet-18 at 32x32 on the same design: its fused-Add convs defer their
// epilogues too (the operand rides with the next tile's first step,
// operand_rides()); the output is the integer reference's and every stat
// equals SystemC's.
TEST(Verilator, ConcurrentAluResNet18MatchesSystemC) {
  use_test_rtl_cache();
  const vta::Config cfg = preset("vta-1x16x16", {{"alu.concurrent", "true"}});
  vta::compiler::ZooOptions o;
  o.image = 32;
  const vta::compiler::Graph g = vta::compiler::build_zoo("resnet18", o);
  const vta::compiler::Tensor in = vta::compiler::zoo_input(g, 7);
  EXPECT_EQ(expect_rtl_equals_systemc(g, in, cfg).first,
            vta::compiler::run_graph(g, in)[static_cast<size_t>(g.output)].data);
}

// Element widths (docs/design.md, "Data types"; sim/rtl/README.md, "Element
// widths"): the RTL built at int4 operands and outputs with 16-bit
// accumulators, and at int16 operands and outputs on two batch rows (models
// built on demand into the build tree's test cache, as the Widths random
// programs of test_golden_random use them): values against golden, cycles
// and every stat against SystemC, and every element of every buffer, in the
// packed form, against golden's read_sram.
TEST(Verilator, ElementWidthsMatchSystemC) {
  use_test_rtl_cache();
  for (const char* name : {"dtype-w4a4", "dtype-w16a16"}) {
    const vta::Config cfg = vta::load_config(std::string(VTA_SOURCE_DIR) + "/tests/configs/" + name + ".yaml");
    expect_random_programs_match(cfg);
    if (::testing::Test::HasFailure()) return;
    auto rtl = vta::make_backend("verilator", cfg);
    auto gold = vta::make_backend("golden", cfg);
    for (auto* b : {rtl.get(), gold.get()}) {
      ProgramBuilder p(*b);
      random_program(p, cfg, 5);
      p.run();
    }
    const auto& d = cfg.derived;
    for (const auto& [m, depth] : std::initializer_list<std::pair<MemId, int64_t>>{{MemId::UOP, d.uop_depth},
                                                                                   {MemId::INP, d.inp_depth},
                                                                                   {MemId::WGT, d.wgt_depth},
                                                                                   {MemId::ACC, d.acc_depth},
                                                                                   {MemId::OUT, d.out_depth}})
      EXPECT_EQ(rtl->read_sram(m, 0, static_cast<uint32_t>(depth)), gold->read_sram(m, 0, static_cast<uint32_t>(depth)))
          << name << " " << vta::isa::mem_name(m);
  }
}

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
  // Command and token queues and bursts are run-time ports (their package
  // values are maxima); the ALU intervals are run-time ports of any value
  // (the built 1x16x16 model has 1 and 2: these are below and above);
  // memory latencies and outstanding reads live in the C++ memory model.
  const std::vector<vta::Override> ov{
      {"queues.command_depth", "2"}, {"queues.token_depth", "3"},       {"memory.max_burst", "16"},
      {"alu.ii_vector", "1"},        {"memory.dram", "fixed"},          {"memory.read_latency", "0"},
      {"memory.write_latency", "0"}, {"memory.outstanding_reads", "1"}, {"memory.arbitration", "fixed_priority"}};
  const std::vector<vta::Override> slow_alu{{"alu.ii_imm", "3"}, {"alu.ii_vector", "5"}};
  for (const vta::Config& cfg : {preset("vta-1x16x16", ov), preset("vta-1x16x16", slow_alu)})
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
  // The same trace as SystemC's (sim::write_trace): one slice per
  // instruction on the module tracks, the memory port's bursts on track 4.
  std::ifstream in(o.trace_path);
  const auto j = nlohmann::json::parse(in);
  size_t slices = 0, port = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] != 4) ++slices;
    if (e["ph"] == "X" && e["tid"] == 4) ++port;
  }
  EXPECT_EQ(slices, b->stats().total.get("insn.total"));
  EXPECT_GT(port, 0u);
  EXPECT_EQ(j["otherData"]["truncated"], false);
  EXPECT_EQ(j["otherData"]["cycles"], b->stats().total.get("cycles.total"));
}

}  // namespace
