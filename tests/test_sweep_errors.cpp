// Bad sweep specs and stores: one message naming file, line and key, exit 2.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "report_parts.h"
#include "run_cli.h"
#include "sweep_test_util.h"
#include "vta/model/backend.h"
#include "vta/sweeps/constraints.h"
#include "vta/sweeps/show.h"
#include "vta/sweeps/space.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/store.h"

namespace {

using vta::test::run_vta;
using vta::test::sweep_dir;
using vta::test::write_spec;

const char* kNet = "networks: [lenet5]\n";

// Runs `vta sweep run` on `spec` and expects exit 2 with `needle` in the message.
void expect_spec_error(const std::string& spec, const std::string& needle) {
  const auto dir = sweep_dir("spec");
  const std::string f = write_spec(dir, "s.yaml", spec);
  const auto r = run_vta("sweep run -q " + f + " --db " + (dir / "s.db").string());
  EXPECT_EQ(r.code, 2) << spec << "\n" << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << "wanted: " << needle << "\ngot: " << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
}

TEST(SweepSpecErrors, FunnelTuneOutOfRange) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "funnel: {tune: 0}\n", "s.yaml:3");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "funnel: {tune: 100}\n", "tune");
}

TEST(SweepSpecErrors, FunnelStage1LayersIsAllOrSelected) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "funnel: {stage1: {layers: some}}\n",
                    "s.yaml:3: layers = 'some' is not all or selected");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "funnel: {stage1: {rows: all}}\n", "rows");
}

// Stage 4 places and routes stage 3's points with nextpnr-ecp5: it needs a
// stage 3 and an ECP5 device, and ranks on nothing.
TEST(SweepSpecErrors, Stage4NeedsStage3AndAnEcp5Device) {
  const std::string ecp5 = std::string("base: vta-1x16x16\ndevice: lfe5u-85f\n") + kNet;
  expect_spec_error(ecp5 + "funnel:\n  stage4: {pnr: true}\n", "s.yaml:5: funnel.stage4 places and routes stage 3's");
  expect_spec_error(ecp5 + "funnel:\n  stage3: {top_k: 1}\n  stage4: {pnr: maybe}\n",
                    "pnr = 'maybe' is not true, false or optional");
  expect_spec_error(ecp5 + "funnel:\n  stage3: {top_k: 1}\n  stage4: {seed: 2}\n", "funnel.stage4 needs pnr: true");
  expect_spec_error(ecp5 + "funnel:\n  stage3: {top_k: 1}\n  stage4: {pnr: true, part: 85k}\n", "part");
  expect_spec_error(std::string("base: vta-1x16x16\ndevice: xczu7ev\n") + kNet +
                        "funnel:\n  stage3: {top_k: 1}\n  stage4: {pnr: true}\n",
                    "'xczu7ev' is not one (ECP5 devices: lfe5u-25f, lfe5u-45f, lfe5u-85f, lfe5um-85f)");
  expect_spec_error(
      std::string("base: vta-1x16x16\n") + kNet + "funnel:\n  stage3: {top_k: 1}\n  stage4: {pnr: true}\n",
      "the spec names none");
  expect_spec_error(ecp5 + "objectives:\n  - maximize: pnr_fmax_mhz\n",
                    "objective pnr_fmax_mhz is measured by stage 4's place and route");
}

TEST(SweepSpecErrors, UnknownTopLevelKey) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "axis:\n  - knob: clock.mhz\n",
                    "s.yaml:3: unknown key 'axis' in the sweep spec (did you mean 'axes'?)");
}

TEST(SweepSpecErrors, UnknownKnobWithSuggestion) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: gemm.blockin\n    values: [16]\n",
                    "s.yaml:4: unknown knob 'gemm.blockin' (did you mean 'gemm.block_in'?)");
}

TEST(SweepSpecErrors, AxisValueNotAPowerOfTwo) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: gemm.batch\n    values: [1, 3]\n",
                    "s.yaml:5: gemm.batch = 3 must be a power of two");
}

TEST(SweepSpecErrors, AxisValueOutOfRange) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet +
                        "axes:\n  - knob: gemm.pipeline_depth\n    range: {from: 60, to: 70}\n",
                    "gemm.pipeline_depth = 65 is out of range [1, 64]");
}

TEST(SweepSpecErrors, RangeOnAPowerOfTwoKnob) {
  expect_spec_error(
      std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: alu.lanes\n    range: {from: 8, to: 32}\n",
      "s.yaml:5: a range needs an integer or real knob; alu.lanes takes power-of-two values");
}

TEST(SweepSpecErrors, ZipListsOfUnequalLength) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet +
                        "axes:\n  - zip:\n      gemm.block_in: [16, 32]\n      gemm.block_out: [16]\n",
                    "s.yaml:6: zip lists must have equal lengths: gemm.block_out has 1 values, the first has 2");
}

TEST(SweepSpecErrors, KnobSweptTwice) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet +
                        "set: {clock.mhz: 200}\naxes:\n  - knob: clock.mhz\n    values: [100]\n",
                    "knob clock.mhz is already set or swept");
}

TEST(SweepSpecErrors, ConstraintSyntax) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "constraints:\n  - \"buffers.inp + <= 4MiB\"\n",
                    "s.yaml:4: constraint 'buffers.inp + <= 4MiB':");
}

TEST(SweepSpecErrors, ConstraintUnknownVariable) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "constraints:\n  - \"buffers.inpt < 4MiB\"\n",
                    "s.yaml:4: constraint 'buffers.inpt < 4MiB':");
}

// muParser takes an assignment, a bare value and a list as expressions; a
// constraint that is not a test would prune nothing (or everything) silently.
TEST(SweepSpecErrors, ConstraintMustBeOneComparison) {
  const std::string head = std::string("base: vta-1x16x16\n") + kNet + "constraints:\n  - \"";
  expect_spec_error(head + "clock.mhz = 100\"\n", "s.yaml:4: constraint 'clock.mhz = 100': '=' assigns a value");
  expect_spec_error(head + "clock.mhz += 1\"\n", "'+=' assigns a value");
  expect_spec_error(head + "buffers.inp\"\n", "compares nothing");
  expect_spec_error(head + "dsp < 1, dsp > 0\"\n", "one comparison per constraint");
  for (const char* ok : {"clock.mhz == 100", "clock.mhz != 100", "dsp <= 220 && bram36 >= 1"})
    EXPECT_NO_THROW(vta::sweeps::check_constraint({ok, 4}, "s.yaml")) << ok;
}

// A grid too large to list is refused before a store is made (it ended in
// std::bad_alloc and left a store behind).
TEST(SweepSpecErrors, GridTooLargeToList) {
  const std::string axes =
      "axes:\n  - knob: queues.command_depth\n    range: {from: 1, to: 1000}\n"
      "  - knob: queues.token_depth\n    range: {from: 1, to: 1000}\n"
      "  - knob: memory.read_latency\n    range: {from: 0, to: 999}\n";
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + axes,
                    "the grid has 1e+09 points, more than the 100000000 one run lists");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + axes + "strategy: {kind: random, samples: 200000000}\n",
                    "strategy random samples 2e+08 points");
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(VTA_BINARY_DIR) / "test-tmp" / "sweep" /
                                       "SweepSpecErrors.GridTooLargeToList" / "spec" / "s.db"));
  EXPECT_NO_THROW(vta::sweeps::load_spec_text(
      std::string("base: vta-1x16x16\n") + kNet + axes + "strategy: {kind: random, samples: 1000}\n", "s.yaml"));
}

// A funnel that selects more stage-2 points than max_points stops before
// stage 2 with the count of each rule (top_k counts per objective).
TEST(SweepFunnel, Stage2SelectionAboveMaxPointsIsRefused) {
  const auto dir = sweep_dir("funnel");
  const std::string spec = write_spec(dir, "s.yaml",
                                      std::string("base: vta-1x16x16\n") + kNet +
                                          "axes:\n  - knob: gemm.pipeline_depth\n    range: {from: 4, to: 9}\n"
                                          "objectives:\n  - minimize: cycles\n  - maximize: gops\n"
                                          "funnel:\n  stage2: {top_k: 3, max_points: 2}\n");
  const auto r = run_vta("sweep run -q " + spec + " --db " + (dir / "s.db").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("stage 2 selects"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("top_k of cycles 3, top_k of gops 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("more than funnel.stage2.max_points = 2"), std::string::npos) << r.out;
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "funnel:\n  stage2: {top_k: 3, max_points: 0}\n",
                    "max_points");
}

TEST(SweepSpecErrors, UnknownObjectiveMetric) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "objectives:\n  - minimize: cycels\n",
                    "s.yaml:4: unknown metric 'cycels'");
}

TEST(SweepSpecErrors, UnknownStrategy) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "strategy: {kind: anneal}\n",
                    "s.yaml:3: unknown strategy 'anneal' (grid, random or evolve)");
}

TEST(SweepSpecErrors, UnknownNetworkNamesTheSpecLine) {
  expect_spec_error("base: vta-1x16x16\nnetworks:\n  - zoo: resnet19\n", "s.yaml:3: network resnet19:");
}

TEST(SweepSpecErrors, MissingOnnxFile) {
  expect_spec_error("base: vta-1x16x16\nnetworks:\n  - onnx: nowhere.onnx\n", "s.yaml:3: onnx file");
}

TEST(SweepSpecErrors, UnknownBase) {
  expect_spec_error(std::string("base: vta-9x9x9\n") + kNet,
                    "s.yaml:1: base: vta-9x9x9: no such config file or preset");
}

// A base name longer than the system allows in a file name (found by
// tests/fuzz/fuzz_sweep_spec: std::filesystem's exception escaped and the
// process aborted; regressions/sweep_spec/base-name-too-long.yaml).
TEST(SweepSpecErrors, BaseNameTooLongForTheSystem) {
  expect_spec_error("base: " + std::string(300, 'x') + "\n" + kNet, "s.yaml:1: base: xxxxxxxx");
  expect_spec_error("base: " + std::string(300, 'y') + ".yaml\n" + kNet, "no such config file or preset");
}

TEST(SweepSpecErrors, WrongType) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "timeout: [1]\n",
                    "s.yaml:3: timeout must be a single value, not a list");
}

TEST(SweepSpecErrors, TwoDocuments) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "---\nbase: vta-1x32x32\n",
                    "a second YAML document ('---'); a sweep spec is one document");
}

// yaml-cpp 0.7's LoadAll looped forever, allocating, on a stray ',' at the
// start of a line (found by tests/fuzz/fuzz_config).
// A mapping where a knob name or a key belongs (found by
// tests/fuzz/fuzz_sweep_spec: yaml-cpp's bad-conversion exception escaped).
TEST(SweepSpecErrors, MappingWhereANameBelongs) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: {from: 8KiB, to: 32KiB}\n",
                    "s.yaml:4: a knob must be a single value, not a mapping");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "? [a, b]\n: 1\n",
                    "must be a single value, not a list");
}

TEST(SweepSpecErrors, StrayCommaIsASyntaxErrorNotAHang) {
  expect_spec_error("base: vta-1x16x16\n,\n", "s.yaml:2: YAML syntax error");
}

TEST(SweepSpecErrors, UnknownDevice) {
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "device: xc7z999\n", "s.yaml:3: ");
}

TEST(SweepSpecErrors, ConstraintOnAResourceColumnIsKnownButATypoIsNot) {
  expect_spec_error(
      std::string("base: vta-1x16x16\n") + kNet + "constraints:\n  - \"dsp <= 220\"\n  - \"dps <= 220\"\n",
      "s.yaml:5: constraint 'dps <= 220':");
}

// Energy is measured from stage 2 on: a spec whose stage 1 ranks on it is an error.
TEST(SweepSpecErrors, EnergyObjectiveRankedAtStageOne) {
  const std::string axes = "axes:\n  - knob: clock.mhz\n    values: [100, 200]\n";
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + axes +
                        "objectives:\n  - minimize: cycles\n  - minimize: energy_uj\n"
                        "funnel: {stage2: {top_k: 1}}\n",
                    "s.yaml:8: objective energy_uj is measured from stage 2 (systemc) on, but funnel.stage2");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + axes + "objectives:\n  - minimize: energy_uj\n" +
                        "strategy: {kind: evolve, population: 2, generations: 1}\n",
                    "s.yaml:7: objective energy_uj is measured from stage 2 (systemc) on, but strategy evolve");
  expect_spec_error(std::string("base: vta-1x16x16\n") + kNet + "constraints:\n  - \"energy_uj <= 5\"\n",
                    "s.yaml:4: constraint 'energy_uj <= 5':");
}

// ------------------------------------------------- errors of design points

// The stage-0 error of each point of `spec` (file `s.yaml` in a fresh
// folder, run to stage 0), by index; `path` is set to the spec's path.
std::map<int64_t, std::string> stage0_errors(const std::string& spec, std::string& path) {
  const auto dir = sweep_dir("stage0");
  path = write_spec(dir, "s.yaml", spec);
  const std::string db = (dir / "s.db").string();
  const auto r = run_vta("sweep run -q --max-stage 0 " + path + " --db " + db);
  EXPECT_EQ(r.code, 0) << r.out;
  std::map<int64_t, std::string> errors;
  for (const auto& p : vta::sweeps::Store(db, false).load(false))
    if (const auto it = p.stages.find(vta::sweeps::kStageConfig); it != p.stages.end())
      errors[p.info.index] = it->second.error;
  return errors;
}

// An invalid design's error names where its knob's value came from: the
// spec file and the line of the axis (or of the fixed setting), not the
// `--set` of the command line, which a sweep's user never typed.
TEST(SweepPointErrors, AnInvalidDesignNamesTheSpecLineOfItsAxis) {
  std::string path;
  const auto e = stage0_errors(std::string("name: origins\nbase: vta-1x16x16\n") + kNet +
                                   "axes:\n"
                                   "  - {knob: alu.lanes, values: [16, 32]}\n"
                                   "  - {knob: buffers.inp, values: [32KiB, 64KiB]}\n",
                               path);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e.at(0), "");
  EXPECT_EQ(e.at(1).rfind(path + ":6: axis buffers.inp: buffers.inp = 64KiB: this config cannot be encoded", 0), 0u)
      << e.at(1);
  EXPECT_EQ(e.at(2).rfind(path + ":5: axis alu.lanes: alu.lanes = 32 exceeds the 16 elements", 0), 0u) << e.at(2);
  for (const auto& [index, error] : e) EXPECT_EQ(error.find("--set"), std::string::npos) << index << ": " << error;
  const auto f = stage0_errors(std::string("name: origins\nbase: vta-1x16x16\n") + kNet +
                                   "set:\n  clock.mhz: 250\n  alu.lanes: 32\n"
                                   "axes:\n  - {knob: gemm.pipeline_depth, values: [5]}\n",
                               path);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f.at(0).rfind(path + ":6: set alu.lanes: alu.lanes = 32 exceeds the 16 elements", 0), 0u) << f.at(0);
}

// Where each override of a point comes from: the fixed settings, then the
// axes in order, a zipped axis's knobs each by the zip's line.
TEST(SweepPointErrors, EveryOverrideHasItsSpecLine) {
  const vta::sweeps::SweepSpec s = vta::sweeps::load_spec_text(
      "base: vta-1x16x16\nnetworks: [lenet5]\nset:\n  clock.mhz: 250\naxes:\n"
      "  - knob: alu.lanes\n    values: [8, 16]\n"
      "  - zip:\n      gemm.batch: [1, 4]\n      gemm.block_in: [32, 16]\n",
      "t.yaml");
  const vta::sweeps::Space space(s);
  ASSERT_EQ(space.overrides(0).size(), 4u);
  EXPECT_EQ(space.origin(0), "t.yaml:4: set clock.mhz");
  EXPECT_EQ(space.origin(1), "t.yaml:6: axis alu.lanes");
  EXPECT_EQ(space.origin(2), "t.yaml:8: axis gemm.batch");
  EXPECT_EQ(space.origin(3), "t.yaml:8: axis gemm.block_in");
}

// The report's funnel groups invalid designs by reason: a store written
// before errors named the spec line ("--set KEY: ") and one written since
// give the same reason, whatever the axis's line or the spec's path.
TEST(SweepPointErrors, InvalidReasonGroupsOldAndNewMessagesAlike) {
  const std::string reason = "alu.lanes = N exceeds the N elements of one ACC element (gemm.batch x gemm.block_out)";
  for (const std::string& error :
       {std::string("--set alu.lanes: alu.lanes = 32 exceeds the 16 elements of one ACC element (gemm.batch x "
                    "gemm.block_out)"),
        std::string("s.yaml:5: axis alu.lanes: alu.lanes = 64 exceeds the 16 elements of one ACC element (gemm.batch "
                    "x gemm.block_out)"),
        std::string("/a dir/sweeps: 2/s.yaml:12: set alu.lanes: alu.lanes = 32 exceeds the 32 elements of one ACC "
                    "element (gemm.batch x gemm.block_out)")})
    EXPECT_EQ(vta::sweeps::invalid_reason(error), reason) << error;
  // A message from elsewhere keeps its text (its numbers grouped).
  EXPECT_EQ(vta::sweeps::invalid_reason("configs/x.yaml:5: buffers.inp = 1B is smaller"),
            "configs/x.yaml:N: buffers.inp = NB is smaller");
}

// A design's name is made of the spec's knob values and goes into the YAML
// that `sweep show` and stage 4 write, and into comment lines of generated
// SystemVerilog and OpenCL: a value holding a newline, quotes, $(...) or
// </script> gives a one-line name that the YAML carries back unchanged.
TEST(SweepPointErrors, ADesignNameFromHostileValuesStaysOneLineAndRoundTrips) {
  const std::string hostile = "a\n</script>\"$(touch /tmp/x)'\r`b`";
  vta::Config c = vta::load_config_text("", "<default>");
  c.name = vta::sweeps::point_name("vta-1x16x16", {{"memory.dram_mapping", hostile}, {"alu.lanes", "8"}});
  EXPECT_EQ(c.name.find('\n'), std::string::npos);
  EXPECT_EQ(c.name.find('\r'), std::string::npos);
  EXPECT_NE(c.name.find("</script>\"$(touch /tmp/x)'"), std::string::npos) << c.name;
  const vta::Config back = vta::load_config_text(vta::to_yaml(c), "round.yaml");
  EXPECT_EQ(back.name, c.name);
}

// A later stage builds the design named for its knobs, so that its messages
// (the RTL model's) name the design that failed, not only the base preset.
TEST(SweepPointErrors, TheRtlCheckNamesTheSweptDesign) {
  bool verilator = false;
  for (const auto& [name, d] : vta::backends()) verilator = verilator || name == "verilator";
  if (!verilator) GTEST_SKIP() << "the verilator backend is not built into this binary";
  const auto dir = sweep_dir("rtl-name");
  const std::string spec = write_spec(dir, "s.yaml",
                                      std::string("name: rtl-name\nbase: vta-1x16x16\n") + kNet +
                                          "axes:\n  - {knob: memory.bus_bits, values: [256]}\n"
                                          "objectives:\n  - minimize: cycles\n  - maximize: gops\n"
                                          "funnel:\n  stage3: {top_k: 1, verilator: optional}\n");
  const std::string db = (dir / "s.db").string();
  const auto r = run_vta("sweep run -q " + spec + " --db " + db, "VTA_RTL_ON_DEMAND=off");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto points = vta::sweeps::Store(db, false).load(false);
  ASSERT_EQ(points.size(), 1u);
  const auto it = points[0].stages.find(vta::sweeps::kStageVerify);
  ASSERT_NE(it, points[0].stages.end());
  EXPECT_NE(it->second.check.find("config 'vta-1x16x16 memory.bus_bits=256' has memory.bus_bits 256"),
            std::string::npos)
      << it->second.check;
}

TEST(SweepStoreErrors, NotAStore) {
  const auto dir = sweep_dir("store");
  write_spec(dir, "junk.db", "this is not SQLite");
  const auto r = run_vta("sweep status " + (dir / "junk.db").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("junk.db: "), std::string::npos) << r.out;
}

// A store damaged outside vta (a JSON column edited by hand, a disk error):
// every command that reads it names the store, the row and the column, never
// nlohmann's own "[json.exception...]" message.
TEST(SweepStoreErrors, DamagedJsonColumnsAreNamed) {
  const auto dir = sweep_dir("damaged");
  const std::string spec =
      write_spec(dir, "s.yaml",
                 std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: clock.mhz\n    values: [100, 200]\n");
  const std::string good = (dir / "good.db").string();
  ASSERT_EQ(run_vta("sweep run -q " + spec + " --db " + good + " --max-stage 1").code, 0);
  const std::vector<std::pair<std::string, std::string>> damage = {
      {"UPDATE results SET metrics = '{bad'", "stage 0 metrics is not a JSON object"},
      {"UPDATE results SET metrics = '{\"cycles\": \"x\"}'", "metrics 'cycles' is not a number"},
      {"UPDATE points SET knobs = '[1, 2]'", "knobs is not a JSON object"},
      {"UPDATE points SET knobs = '{\"clock.mhz\": null}'", "knobs 'clock.mhz' is not a string"}};
  int n = 0;
  for (const auto& [sql, needle] : damage) {
    const std::string db = (dir / ("damaged" + std::to_string(n++) + ".db")).string();
    std::filesystem::copy_file(good, db, std::filesystem::copy_options::overwrite_existing);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(h);
    for (const std::string cmd : {"sweep status ", "sweep export --csv ", "sweep export --json "}) {
      const auto r = run_vta(cmd + db);
      EXPECT_EQ(r.code, 2) << cmd << sql << "\n" << r.out;
      EXPECT_NE(r.out.find(db + ": damaged results store: point "), std::string::npos) << cmd << sql << "\n" << r.out;
      EXPECT_NE(r.out.find(needle), std::string::npos) << cmd << sql << "\n" << r.out;
      EXPECT_EQ(r.out.find("json.exception"), std::string::npos) << r.out;
    }
  }
}

// WAL needs shared memory that network file systems do not give: there (or
// with VTA_SWEEP_JOURNAL=delete) a store keeps a rollback journal.
TEST(SweepStoreErrors, JournalModeFollowsTheFileSystem) {
  const auto dir = sweep_dir("journal");
  const std::string spec = write_spec(
      dir, "s.yaml", std::string("base: vta-1x16x16\n") + kNet + "axes:\n  - knob: clock.mhz\n    values: [100]\n");
  auto mode = [](const std::string& db) {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &q, nullptr);
    std::string m = sqlite3_step(q) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(q, 0)) : "";
    sqlite3_finalize(q);
    sqlite3_close(h);
    return m;
  };
  const std::string local = (dir / "local.db").string(), nfs = (dir / "nfs.db").string();
  EXPECT_FALSE(vta::sweeps::on_network_file_system(local));
  ASSERT_EQ(run_vta("sweep run -q --max-stage 0 " + spec + " --db " + local).code, 0);
  EXPECT_EQ(mode(local), "wal");
  ASSERT_EQ(run_vta("sweep run -q --max-stage 0 " + spec + " --db " + nfs, "VTA_SWEEP_JOURNAL=delete").code, 0);
  EXPECT_EQ(mode(nfs), "delete");
  const auto bad =
      run_vta("sweep run -q --max-stage 0 " + spec + " --db " + (dir / "x.db").string(), "VTA_SWEEP_JOURNAL=fast");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("VTA_SWEEP_JOURNAL=fast: give wal or delete"), std::string::npos) << bad.out;
}

TEST(SweepStoreErrors, MissingStore) {
  const auto r = run_vta("sweep status /nonexistent/dir/s.db");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/dir/s.db: no such results store"), std::string::npos) << r.out;
}

TEST(SweepStoreErrors, StoreInAMissingFolder) {
  const auto dir = sweep_dir("store");
  const std::string f = write_spec(dir, "s.yaml", std::string("base: vta-1x16x16\n") + kNet);
  const auto r = run_vta("sweep run -q " + f + " --db /nonexistent/dir/s.db");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/dir/s.db: cannot open the results store"), std::string::npos) << r.out;
}

TEST(SweepStoreErrors, ResumingWithAnotherSpec) {
  const auto dir = sweep_dir("store");
  const std::string a = write_spec(dir, "a.yaml", std::string("base: vta-1x16x16\n") + kNet);
  const std::string b = write_spec(dir, "b.yaml", std::string("base: vta-1x32x32\n") + kNet);
  const std::string db = (dir / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + a + " --db " + db).code, 0);
  const auto r = run_vta("sweep run -q " + b + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("holds sweep 'a' of another spec"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'base' differs"), std::string::npos) << r.out;
}

// What changes the results stored under a key is refused, naming the part:
// the device (the estimate's columns), and for a random search any change
// of its space (the sample it draws is another one).
TEST(SweepStoreErrors, EditsThatChangeStoredResultsAreRefused) {
  const auto dir = sweep_dir("store");
  const std::string head = "base: vta-1x16x16\naxes:\n  - {knob: clock.mhz, values: [200, 250]}\n";
  const std::string db = (dir / "e.db").string(), rdb = (dir / "r.db").string();
  const std::string f = write_spec(dir, "e.yaml", head + kNet);
  ASSERT_EQ(run_vta("sweep run -q --max-stage 0 " + f + " --db " + db).code, 0);
  write_spec(dir, "e.yaml", head + "device: xczu7ev\n" + kNet);
  auto r = run_vta("sweep run -q --max-stage 0 " + f + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("'device' differs"), std::string::npos) << r.out;
  const std::string random = "strategy: {kind: random, samples: 2, seed: 3}\n";
  write_spec(dir, "e.yaml", head + random + kNet);
  ASSERT_EQ(run_vta("sweep run -q --max-stage 0 " + f + " --db " + rdb).code, 0);
  std::string more = head;
  more.replace(more.find("250]"), 4, "250, 300]");
  write_spec(dir, "e.yaml", more + random + kNet);
  r = run_vta("sweep run -q --max-stage 0 " + f + " --db " + rdb);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("'axes' differs"), std::string::npos) << r.out;
}

TEST(SweepStoreErrors, FullStoreStopsWithAMessageAndLosesNothing) {
  const auto dir = sweep_dir("full");
  const std::string f = write_spec(dir, "s.yaml",
                                   std::string("base: vta-1x16x16\n") + kNet +
                                       "axes:\n  - knob: clock.mhz\n    range: {from: 100, to: 400, step: 1}\n"
                                       "funnel:\n  stage1: {layers: all}\n");
  // The same sweep fits an unlimited store; one limited to a few pages fills
  // up part way, as a full disk does (100 pages: stage 0's rows fit, stage
  // 1's do not; 60 held none once the rows grew with new knobs and estimate
  // columns).
  const auto full = vta::test::run_vta("sweep run -q --max-stage 1 " + f + " --db " + (dir / "t.db").string());
  ASSERT_EQ(full.code, 0) << full.out;
  const auto r =
      run_vta("sweep run -q --max-stage 1 " + f + " --db " + (dir / "u.db").string(), "VTA_SWEEP_DB_MAX_PAGES=100");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("cannot write the results store: database or disk is full"), std::string::npos) << r.out;
  // What was written is whole: the store opens, and every stage-1 row has its layers.
  const auto st = run_vta("sweep export --json --layers " + (dir / "u.db").string());
  ASSERT_EQ(st.code, 0) << st.out;
  const auto j = nlohmann::json::parse(st.out);
  size_t analytic = 0, configs = 0;
  for (const auto& pt : j["points"])
    if (configs += pt["stages"].contains("config"); pt["stages"].contains("analytic")) {
      ++analytic;
      EXPECT_FALSE(pt["stages"]["analytic"]["layers"].empty()) << "a result without its layers: " << pt["key"];
    }
  EXPECT_GT(configs, 0u) << "the store filled up before any result";
  EXPECT_LT(analytic, 301u) << "the store did not fill up";
}

TEST(SweepCliErrors, ExportNeedsAFormat) {
  const auto dir = sweep_dir("cli");
  const std::string f = write_spec(dir, "s.yaml", std::string("base: vta-1x16x16\n") + kNet);
  const std::string db = (dir / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + f + " --db " + db).code, 0);
  const auto r = run_vta("sweep export " + db);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("sweep export: give --csv or --json"), std::string::npos) << r.out;
}

}  // namespace
