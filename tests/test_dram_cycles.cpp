// The cycle models with a DRAM preset behind the memory port (memory.dram;
// docs/timing.md rules 10, 12 and 13 "with the DRAM model"): the SystemC
// model, the Verilator RTL and the co-simulated RTL agree cycle for cycle and
// stat for stat on the timing suite's kinds of programs and on seeded random
// programs, on several presets and DRAM options; with the DRAM model the
// cycles follow clock.mhz, with the fixed model they do not.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "conv_program.h"
#include "random_program.h"
#include "test_support.h"
#include "vta/sim/dram/config.h"
#include "vta/sim/dram/spec.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;
using Build = std::function<void(ProgramBuilder&)>;

// The kinds of program of test_timing.cpp: fetch, loads of each memory with
// and without pads, rows split into bursts, strided rows (row misses), a
// store, token-only instructions, a load -> GEMM -> store pipeline, loads
// overlapping GEMMs, and two clients on the read port.
std::vector<std::pair<std::string, Build>> timing_programs() {
  std::vector<std::pair<std::string, Build>> v;
  v.emplace_back("finish", [](ProgramBuilder& p) { p.add(make_finish()); });
  for (MemId m : {MemId::UOP, MemId::WGT, MemId::INP, MemId::ACC, MemId::ACC_8BIT})
    for (int pad : {0, 2})
      v.emplace_back(fmt::format("load mem {} pad {}", static_cast<int>(m), pad), [m, pad](ProgramBuilder& p) {
        uint32_t a = p.buffer(m, 1);
        p.add(make_load(m, 0, a, 1, 1, 1, 0, 0, pad, 0));
        p.add(make_finish());
      });
  v.emplace_back("rows split into bursts", [](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 260);
    p.add(make_load(MemId::INP, 0, a, 2, 130, 130));
    p.add(make_finish());
  });
  v.emplace_back("strided rows", [](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 8 * 1024);
    p.add(make_load(MemId::INP, 0, a, 8, 16, 1024));
    p.add(make_finish());
  });
  v.emplace_back("store", [](ProgramBuilder& p) {
    uint32_t o = p.buffer(MemId::OUT, 64);
    p.add(make_store(0, o, 2, 32, 32));
    p.add(make_finish());
  });
  v.emplace_back("token-only", [](ProgramBuilder& p) {
    p.add(with_deps(make_load(MemId::INP, 0, 0, 0, 0, 0), false, false, false, true));
    p.add(with_deps(make_finish(), true, false, false, false));
  });
  v.emplace_back("load gemm store", [](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    uint32_t o = p.buffer(MemId::OUT, 1);
    p.add(with_deps(make_load(MemId::INP, 0, a, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, false, true));
    p.add(with_deps(make_store(0, o, 1, 1, 1), true, false, true, false));
    p.add(with_deps(make_finish(), false, true, false, false));
  });
  v.emplace_back("loads overlap gemms", [](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 2);
    p.add(with_deps(make_load(MemId::INP, 0, a, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_load(MemId::INP, 1, a + 1, 1, 1, 1), false, false, false, true));
    p.add(with_deps(make_gemm(false, 0, 1, 10, 10), true, false, false, false));
    p.add(with_deps(make_gemm(false, 0, 1, 10, 10), true, false, false, false));
    p.add(make_finish());
  });
  v.emplace_back("two clients", [](ProgramBuilder& p) {
    uint32_t a = p.buffer(MemId::INP, 1);
    uint32_t c = p.buffer(MemId::ACC, 1);
    p.add(make_load(MemId::INP, 0, a, 1, 1, 1));
    p.add(make_load(MemId::ACC, 0, c, 1, 1, 1));
    p.add(make_finish());
  });
  v.emplace_back("alu", [](ProgramBuilder& p) {
    p.add(make_alu(AluOp::ADD, false, 0, 0, 1, 2, 3, 0, 0, 0, 0));
    p.add(make_finish());
  });
  return v;
}

// Every stat of `backend` equals the SystemC model's on `cfg`.
void expect_same_as_systemc(const std::string& backend, const vta::Config& cfg, const Build& build,
                            const std::string& what) {
  SCOPED_TRACE(backend + " on " + cfg.name + " memory.dram " + cfg.memory.dram + ": " + what);
  const Outcome sc = run_on("systemc", cfg, build);
  const Outcome other = run_on(backend, cfg, build);
  EXPECT_EQ(other.dram, sc.dram);
  EXPECT_EQ(other.stats.total.items(), sc.stats.total.items());
}

struct DramCase {
  const char* preset;
  std::vector<vta::Override> set;
};

std::string case_name(const ::testing::TestParamInfo<DramCase>& i) {
  std::string n = i.param.preset;
  for (const auto& [k, v] : i.param.set) n += "_" + v;
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class DramCycles : public ::testing::TestWithParam<DramCase> {
 protected:
  vta::Config config() const { return preset(GetParam().preset, GetParam().set); }
};

TEST_P(DramCycles, TimingProgramsSystemCEqualsVerilator) {
  const vta::Config cfg = config();
  for (const auto& [what, build] : timing_programs()) {
    expect_same_as_systemc("verilator", cfg, build, what);
    if (HasFailure()) return;
  }
}

TEST_P(DramCycles, RandomProgramsSystemCEqualsVerilator) {
  const vta::Config cfg = config();
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    expect_same_as_systemc(
        "verilator", cfg, [&cfg, seed](ProgramBuilder& p) { random_program(p, cfg, seed); },
        fmt::format("seed {}", seed));
    if (HasFailure()) return;
  }
}

TEST_P(DramCycles, DoubleBufferedConvSystemCEqualsVerilator) {
  const vta::Config cfg = config();
  if (cfg.gemm.block_out != 16) GTEST_SKIP() << "conv_program's tiles are laid out for 16-wide blocks";
  auto rtl = vta::make_backend("verilator", cfg);
  auto sc = vta::make_backend("systemc", cfg);
  rtl->run(conv_program(*rtl, 3));
  sc->run(conv_program(*sc, 3));
  EXPECT_EQ(rtl->stats().total.items(), sc->stats().total.items());
}

INSTANTIATE_TEST_SUITE_P(
    Dram, DramCycles,
    ::testing::Values(DramCase{"vta-1x16x16", {{"memory.dram", "ddr3-1066"}}},
                      DramCase{"vta-1x16x16", {{"memory.dram", "ddr3-1066"}, {"clock.mhz", "333"}}},
                      DramCase{"vta-1x16x16",
                               {{"memory.dram", "lpddr4-3200"},
                                {"memory.page_policy", "closed"},
                                {"memory.dram_cdc_sync", "3"},
                                {"memory.dram_frontend_ns", "12.5"}}},
                      DramCase{"vta-1x16x16",
                               {{"memory.dram", "ddr4-2400"},
                                {"memory.outstanding_reads", "1"},
                                {"memory.max_burst", "16"},
                                {"memory.arbitration", "fixed_priority"},
                                {"memory.dram_queue_depth", "1"}}},
                      DramCase{"vta-4x16x16", {{"memory.dram", "ddr4-2400"}, {"clock.mhz", "300"}}},
                      DramCase{"vta-1x32x32", {{"memory.dram", "hbm2-2000"}, {"memory.channels", "4"}}}),
    case_name);

TEST(DramCycles, CoSimulatedRtlEqualsSystemC) {
  const vta::Config cfg = preset("vta-1x16x16", {{"memory.dram", "ddr3-1066"}});
  for (const auto& [what, build] : timing_programs()) {
    expect_same_as_systemc("systemc-rtl", cfg, build, what);
    if (HasFailure()) return;
  }
  expect_same_as_systemc(
      "systemc-rtl", cfg, [&cfg](ProgramBuilder& p) { random_program(p, cfg, 2); }, "seed 2");
}

// The same program at 100 and 200 MHz: the DRAM's nanoseconds are more core
// cycles at the faster clock; the fixed model's cycles do not move.
TEST(DramCycles, CyclesFollowTheClockOnlyWithTheDramModel) {
  for (const char* backend : {"systemc", "verilator"}) {
    auto cycles = [backend](const char* dram, const char* mhz) {
      const vta::Config cfg = preset("vta-1x16x16", {{"memory.dram", dram}, {"clock.mhz", mhz}});
      return run_on(backend, cfg, [&cfg](ProgramBuilder& p) { random_program(p, cfg, 4); })
          .stats.total.get("cycles.total");
    };
    EXPECT_EQ(cycles("fixed", "100"), cycles("fixed", "200")) << backend;
    for (const char* d : {"ddr3-1066", "ddr4-2400", "hbm2-2000"}) {
      const uint64_t slow = cycles(d, "100"), fast = cycles(d, "200");
      EXPECT_NE(slow, cycles("fixed", "100")) << backend << " " << d;
      EXPECT_GT(fast, slow) << backend << " " << d;
      EXPECT_LT(fast, 2 * slow) << backend << " " << d << ": the compute cycles do not change with the clock";
    }
  }
}

// A slower DRAM costs cycles: ddr3-1066 (2.1 GB/s) against hbm2-2000 on a
// memory-heavy program, same core clock.
TEST(DramCycles, SlowerMemoryCostsCycles) {
  auto cycles = [](const char* dram) {
    const vta::Config cfg = preset("vta-1x16x16", {{"memory.dram", dram}, {"clock.mhz", "250"}});
    return run_on("systemc", cfg,
                  [](ProgramBuilder& p) {
                    uint32_t a = p.buffer(MemId::WGT, 256);
                    p.add(make_load(MemId::WGT, 0, a, 1, 256, 256));
                    p.add(make_finish());
                  })
        .stats.total.get("cycles.total");
  };
  EXPECT_GT(cycles("ddr3-1066"), cycles("hbm2-2000"));
}

// memory.dram's choices are the DRAM model's presets, plus fixed.
TEST(DramConfig, ChoicesAreThePresets) {
  std::set<std::string> want{"fixed"}, have;
  for (const auto& p : vta::sim::dram::presets()) want.insert(p.name);
  const std::string choices = vta::find_knob("memory.dram")->choices;
  for (size_t at = 0; at <= choices.size();) {
    const size_t bar = std::min(choices.find('|', at), choices.size());
    have.insert(choices.substr(at, bar - at));
    at = bar + 1;
  }
  EXPECT_EQ(have, want);
}

// config_knobs.def is where dram::Options' defaults live.
TEST(DramConfig, OptionsOfTheDefaultsAreOptionsDefaults) {
  const vta::sim::dram::Setup s = vta::sim::dram::setup_of(preset("vta-1x16x16", {{"memory.dram", "ddr4-2400"}}));
  const vta::sim::dram::Options d;
  EXPECT_EQ(s.options.page_policy, d.page_policy);
  EXPECT_EQ(s.options.channels, d.channels);
  EXPECT_EQ(s.options.mapping, d.mapping);
  EXPECT_EQ(s.options.queue_depth, d.queue_depth);
  EXPECT_EQ(s.options.refresh, d.refresh);
  EXPECT_EQ(s.options.cdc_sync, d.cdc_sync);
  EXPECT_EQ(s.options.frontend_ns, d.frontend_ns);
  EXPECT_EQ(s.spec.name, "ddr4-2400");
  EXPECT_EQ(s.core, vta::sim::dram::Freq::mhz(100));
}

}  // namespace
