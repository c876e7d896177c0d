// The `systemc-rtl` co-simulation (the RTL core as a SystemC module inside
// the SystemC model's top level) against the `verilator` backend, which
// clocks the same core from C++: values, cycles, every stat (per region too),
// on-chip buffers and error messages must be identical, run after run in one
// process, across errors, deadlocks, new backends and the SystemC engine's
// own runs. (The timing suite and the conformance vectors run on it too.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "conv_program.h"
#include "random_program.h"
#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::test;
using vta::isa::MemId;

const char* const kCoSim = "systemc-rtl";

// Every on-chip buffer's first elements, through the debug read port.
std::vector<std::vector<uint8_t>> buffers(const vta::Backend& b) {
  std::vector<std::vector<uint8_t>> out;
  for (MemId m : {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT}) out.push_back(b.read_sram(m, 0, 40));
  return out;
}

std::vector<std::vector<uint8_t>> dram_of(const vta::Backend& b) {
  std::vector<std::vector<uint8_t>> out;
  for (const auto& [addr, a] : b.dram().allocations()) out.push_back(b.dram().read(addr, a.bytes));
  return out;
}

// ctest runs each test in a process of its own: here SystemC elaborates (and
// the SystemC-wrapped model is constructed) after a verilator model, whose
// Verilator context was the thread's current one, is gone.
TEST(CoSim, ElaboratesAfterAVerilatorModelIsGone) {
  const vta::Config cfg = preset("vta-1x16x16");
  auto build = [&cfg](ProgramBuilder& p) { random_program(p, cfg, 2); };
  const Outcome rtl = run_on("verilator", cfg, build);
  const Outcome co = run_on(kCoSim, cfg, build);
  EXPECT_EQ(co.dram, rtl.dram);
  EXPECT_EQ(co.stats.to_json(), rtl.stats.to_json());
  EXPECT_EQ(run_on("verilator", cfg, build).stats.to_json(), rtl.stats.to_json());
}

TEST(CoSim, RandomProgramsMatchGoldenValuesAndVerilatorCycles) {
  const vta::Config cfg = preset("vta-1x16x16");
  uint64_t cycles = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    auto build = [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); };
    const Outcome co = run_on(kCoSim, cfg, build);
    EXPECT_EQ(co.dram, run_on("golden", cfg, build).dram);
    EXPECT_EQ(co.stats.to_json(), run_on("verilator", cfg, build).stats.to_json());
    cycles += co.stats.total.get("cycles.total");
    if (HasFailure()) return;
  }
  EXPECT_GT(cycles, 12u * 100);
}

TEST(CoSim, RunTimeKnobsBelowTheBuiltMaxima) {
  const vta::Config cfg = preset("vta-1x16x16", {{"queues.command_depth", "2"},
                                                 {"queues.token_depth", "3"},
                                                 {"memory.max_burst", "16"},
                                                 {"memory.dram", "fixed"},
                                                 {"memory.read_latency", "0"},
                                                 {"memory.outstanding_reads", "1"},
                                                 {"memory.arbitration", "fixed_priority"}});
  for (uint32_t seed = 20; seed < 23; ++seed) {
    auto build = [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); };
    const Outcome co = run_on(kCoSim, cfg, build);
    const Outcome rtl = run_on("verilator", cfg, build);
    EXPECT_EQ(co.dram, rtl.dram) << seed;
    EXPECT_EQ(co.stats.to_json(), rtl.stats.to_json()) << seed;
  }
}

TEST(CoSim, RegionStatsOfTheConvProgramMatchVerilator) {
  auto co = vta::make_backend(kCoSim, preset("vta-1x16x16"));
  auto rtl = vta::make_backend("verilator", preset("vta-1x16x16"));
  for (auto* b : {co.get(), rtl.get()}) {
    vta::Launch launch = conv_program(*b, 3);
    launch.regions = {{"tile0", 0, 7}, {"rest", 7, launch.insn_count}};
    b->run(launch);
  }
  ASSERT_EQ(co->stats().regions.size(), 2u);
  EXPECT_GT(co->stats().regions[1].second.get("gemm.macs"), 0u);
  EXPECT_EQ(co->stats().to_json(), rtl->stats().to_json());
  EXPECT_EQ(dram_of(*co), dram_of(*rtl));
}

// One backend, several runs, buffers carried over; an error and a deadlock on
// the way: every step exactly as on verilator.
TEST(CoSim, ManyRunsInOneProcessThroughErrorsAndDeadlocks) {
  const vta::Config cfg = preset("vta-1x16x16");
  auto co = vta::make_backend(kCoSim, cfg);
  auto rtl = vta::make_backend("verilator", cfg);
  auto bounds =
      [](ProgramBuilder& p) {  // GEMM past the end of ACC (dst + 4094, whatever uop 0 holds): the checker's message
        p.add(make_gemm(false, 0, 1, 3, 1, 2047, 0, 0, 0, 0, 0));
        p.add(make_finish());
      };
  auto deadlock = [](ProgramBuilder& p) {  // compute pops a token that load never pushes
    p.add(with_deps(make_gemm(true, 0, 1, 1, 1), true, false, false, false));
    p.add(make_finish());
  };
  auto step = [&](const std::string& what, auto&& build) {
    SCOPED_TRACE(what);
    const std::string e_co = run_error(*co, build), e_rtl = run_error(*rtl, build);
    EXPECT_EQ(e_co, e_rtl);
    EXPECT_EQ(dram_of(*co), dram_of(*rtl));
    EXPECT_EQ(buffers(*co), buffers(*rtl));
    if (e_co.empty()) {
      EXPECT_EQ(co->stats().to_json(), rtl->stats().to_json());
    }
    return e_co;
  };
  step("seed 3", [&cfg](ProgramBuilder& p) { random_program(p, cfg, 3); });
  EXPECT_NE(step("bounds", bounds).find("instruction 0"), std::string::npos);
  step("seed 4", [&cfg](ProgramBuilder& p) { random_program(p, cfg, 4); });
  EXPECT_NE(step("deadlock", deadlock).find("deadlock"), std::string::npos);
  step("seed 5", [&cfg](ProgramBuilder& p) { random_program(p, cfg, 5); });
  step("no loads: on what the runs left", [](ProgramBuilder& p) {
    p.add(make_gemm(false, 0, 1, 2, 2, 1, 1, 1, 1, 1, 0));
    p.add(make_finish());
  });
}

// A new backend gets the power-on state of a new model (as a new verilator
// backend does), whatever the core ran before in the process.
TEST(CoSim, NewBackendStartsFromAFreshCore) {
  const vta::Config cfg = preset("vta-1x16x16");
  auto reader = [](ProgramBuilder& p) {  // reads buffers it never loads
    const uint32_t out = p.buffer(MemId::OUT, 64);
    p.add(make_alu(vta::isa::AluOp::ADD, true, 3, 0, 1, 4, 4, 4, 1, 4, 1));
    p.add(with_deps(make_gemm(false, 0, 1, 2, 8, 8, 1, 8, 1, 1, 0), false, false, false, true));
    p.add(with_deps(make_store(0, out, 1, 64, 64), true, false, false, false));
    p.add(make_finish());
  };
  run_on(kCoSim, cfg, [&cfg](ProgramBuilder& p) { random_program(p, cfg, 8); });
  auto co = vta::make_backend(kCoSim, cfg);
  auto gold = vta::make_backend("golden", cfg);
  EXPECT_EQ(run_error(*co, reader), "");
  EXPECT_EQ(run_error(*gold, reader), "");
  EXPECT_EQ(dram_of(*co), dram_of(*gold));
  EXPECT_EQ(buffers(*co), buffers(*gold));
}

// The SystemC engine and the co-simulated core share the process's
// simulation: runs of either, interleaved, are unaffected by the other's.
TEST(CoSim, InterleavesWithTheSystemCEngine) {
  const vta::Config cfg = preset("vta-1x16x16");
  std::vector<uint64_t> sc, co;
  for (int k = 0; k < 2; ++k) {
    auto s = vta::make_backend("systemc", cfg);
    s->run(conv_program(*s, 2));
    sc.push_back(s->stats().total.get("cycles.total"));
    auto c = vta::make_backend(kCoSim, cfg);
    c->run(conv_program(*c, 2));
    co.push_back(c->stats().total.get("cycles.total"));
  }
  EXPECT_GT(sc[0], 2u * 9000);
  EXPECT_EQ(sc[1], sc[0]);
  EXPECT_EQ(co[0], sc[0]);  // the RTL and the SystemC model agree on this program
  EXPECT_EQ(co[1], co[0]);
}

}  // namespace
