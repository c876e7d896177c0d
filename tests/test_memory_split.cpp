// The per-layer memory split (vta/compiler/run/memory_split.h): the cycles a
// layer loses to the DRAM behind the port, by cause, from counterfactual
// timing-only SystemC runs; and the idealisation it rests on,
// memory.dram_row_timing = false (activate and precharge one DRAM cycle).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "error_of.h"
#include "run_cli.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/memory_split.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/sim/dram/config.h"
#include "vta/sim/dram/controller.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

struct Split {
  Report report;
  NetworkResult real;
};

// lenet5 on vta-1x16x16 (its board's DDR3-1066) with `overrides`, timing-only
// on SystemC, with the memory split added.
Split split_of(const std::vector<vta::Override>& overrides) {
  const vta::Config c = preset("vta-1x16x16", overrides);
  const Graph g = build_zoo("lenet5");
  const Tensor x = zoo_input(g, 3);
  const CompiledNetwork net = compile(g, c);
  vta::BackendOptions o;
  o.timing_only = true;
  auto backend = vta::make_backend("systemc", c, o);
  Split s{{}, run_network(net, *backend, x)};
  s.report = make_report(net, s.real, c, "systemc");
  add_memory_split(s.report, net, c, s.real, x);
  return s;
}

int64_t lost(const ReportRow& w) { return w.mem_bw + w.mem_row + w.mem_refresh; }

// The parts of every layer add up to its cycles against an ideal port, run
// here through the config loader (fixed memory, no latency) rather than the
// split's own variant.
TEST(MemorySplit, PartsAddUpToTheCyclesLostAgainstAnIdealPort) {
  const Split s = split_of({{"clock.mhz", "333"}});
  const vta::Config ideal_cfg = preset(
      "vta-1x16x16",
      {{"clock.mhz", "333"}, {"memory.dram", "fixed"}, {"memory.read_latency", "0"}, {"memory.write_latency", "0"}});
  const Graph g = build_zoo("lenet5");
  CompiledNetwork net = compile(g, preset("vta-1x16x16", {{"clock.mhz", "333"}}));
  net.config_hash = ideal_cfg.hash();  // the same program on the ideal port
  vta::BackendOptions o;
  o.timing_only = true;
  auto backend = vta::make_backend("systemc", ideal_cfg, o);
  const NetworkResult ideal = run_network(net, *backend, zoo_input(g, 3));
  ASSERT_EQ(ideal.layers.size(), s.report.rows.size());
  int64_t total = 0;
  int split_rows = 0;
  for (size_t i = 0; i < s.report.rows.size(); ++i) {
    const ReportRow& w = s.report.rows[i];
    if (!w.timed) {
      EXPECT_FALSE(w.mem_split()) << w.layer;
      continue;
    }
    ASSERT_TRUE(w.mem_split()) << w.layer;
    ++split_rows;
    EXPECT_EQ(lost(w), static_cast<int64_t>(w.cycles) - static_cast<int64_t>(ideal.layers[i].stats.get("cycles.total")))
        << w.layer;
    total += lost(w);
  }
  EXPECT_GT(split_rows, 0);
  EXPECT_EQ(lost(s.report.total), total);
  EXPECT_GT(s.report.total.mem_bw, 0) << "DDR3-1066 at 333 MHz costs the core cycles";
  EXPECT_GT(s.report.total.mem_row, 0) << "lenet5's loads open rows";
}

TEST(MemorySplit, WithoutRefreshNothingIsLostToRefresh) {
  const Split s = split_of({{"clock.mhz", "333"}, {"memory.dram_refresh", "false"}});
  for (const auto& w : s.report.rows)
    if (w.mem_split()) {
      EXPECT_EQ(w.mem_refresh, 0) << w.layer;
    }
  EXPECT_NE(s.report.memory_basis.find("refresh off"), std::string::npos) << s.report.memory_basis;
}

// The same DRAM in nanoseconds costs a faster core more cycles.
TEST(MemorySplit, AFasterCoreLosesMoreCyclesToTheSameDram) {
  const int64_t at100 = lost(split_of({{"clock.mhz", "100"}}).report.total);
  const int64_t at333 = lost(split_of({{"clock.mhz", "333"}}).report.total);
  EXPECT_LT(at100, at333);
}

TEST(MemorySplit, FixedMemoryHasNothingToSplit) {
  const vta::Config c = preset("vta-1x16x16", {{"memory.dram", "fixed"}});
  EXPECT_FALSE(memory_split_applies(c));
  Report r;
  const std::string e =
      vta::test::error_of([&] { add_memory_split(r, CompiledNetwork{}, c, NetworkResult{}, Tensor{}); });
  EXPECT_NE(e.find("memory.dram = fixed"), std::string::npos) << e;
  // A report without the split prints no split columns and leaves the CSV's empty.
  r.rows.push_back(ReportRow{});
  EXPECT_EQ(report_table(r).find("mem bw"), std::string::npos);
  EXPECT_NE(report_csv(r).find(",,,\n"), std::string::npos);
  EXPECT_FALSE(report_json(r)["layers"][0].contains("memory_split"));
}

// Through the command: the table's columns, the summary line, the JSON.
TEST(MemorySplit, TheRunCommandPrintsItWithADramPreset) {
  const std::string json = ::testing::TempDir() + "/memory_split.json";
  const auto r =
      vta::test::run_vta("run --model lenet5 -b systemc --timing-only --set clock.mhz=333 --report-json " + json);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("mem bw"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lost to the DRAM: bandwidth and latency"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ddr3-1066 at 333 MHz"), std::string::npos) << r.out;
  const auto fixed = vta::test::run_vta("run --model lenet5 -b systemc --timing-only --set memory.dram=fixed");
  ASSERT_EQ(fixed.code, 0) << fixed.out;
  EXPECT_EQ(fixed.out.find("mem bw"), std::string::npos) << fixed.out;
}

// memory.dram_row_timing = false: activates and precharges cost one cycle,
// so random reads (every one a row miss or conflict) gain bandwidth and
// sequential ones (row hits) hardly change.
TEST(DramRowTiming, RandomReadsGainSequentialReadsBarelyChange) {
  auto drain_cycles = [](bool row_timing, bool random) {
    vta::Config c = preset("vta-4x16x16");  // ddr4-2400
    c.memory.dram_row_timing = row_timing;
    c.memory.dram_refresh = false;
    const vta::sim::dram::Setup s = vta::sim::dram::setup_of(c);
    vta::sim::dram::Controller ctl(s.spec, s.options);
    std::mt19937_64 rng(7);
    const uint64_t n = 4000, bytes = 64;
    for (uint64_t i = 0; i < n; ++i)
      ctl.submit({random ? rng() % (s.spec.capacity_bytes() / bytes) * bytes : i * bytes, static_cast<uint32_t>(bytes),
                  false, 0});
    return static_cast<double>(ctl.drain());
  };
  const double rnd_on = drain_cycles(true, true), rnd_off = drain_cycles(false, true);
  const double seq_on = drain_cycles(true, false), seq_off = drain_cycles(false, false);
  EXPECT_LT(rnd_off, 0.6 * rnd_on) << "random reads: " << rnd_on << " -> " << rnd_off;
  EXPECT_LE(seq_off, seq_on);
  EXPECT_GT(seq_off, 0.97 * seq_on) << "sequential reads: " << seq_on << " -> " << seq_off;
}

}  // namespace
