// Design-space sweeps: the space, Pareto fronts, constraints, the analytical
// stage against SystemC, resume, SIGKILL at random moments, failing points,
// and the HTML reports drawn in headless Chromium.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "env_guard.h"
#include "run_cli.h"
#include "sweep_test_util.h"
#include "vta/compiler/analytic.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/accuracy.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/model/backend.h"
#include "vta/sweeps/constraints.h"
#include "vta/sweeps/layer_energy.h"
#include "vta/sweeps/metrics.h"
#include "vta/sweeps/pareto.h"
#include "vta/sweeps/runner.h"
#include "vta/sweeps/space.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/store.h"

namespace {

using namespace vta::sweeps;
using vta::test::run_vta;
using vta::test::sweep_dir;
using vta::test::write_spec;

SweepSpec spec_of(const std::string& text) { return load_spec_text(text, "t.yaml"); }

TEST(SweepSpace, ProductZipAndMixedRadix) {
  const SweepSpec s = spec_of(
      "base: vta-1x16x16\nnetworks: [lenet5]\naxes:\n"
      "  - knob: clock.mhz\n    values: [250, 300, 333]\n"
      "  - zip:\n      gemm.batch: [1, 4]\n      gemm.block_in: [32, 16]\n"
      "  - knob: buffers.inp\n    pow2: {from: 16KiB, to: 64KiB}\n");
  const Space sp(s);
  ASSERT_EQ(sp.size(), 3 * 2 * 3);
  for (int64_t i = 0; i < sp.size(); ++i) EXPECT_EQ(sp.index(sp.digits(i)), i);
  const auto v = sp.axis_values(sp.size() - 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], (vta::Override{"clock.mhz", "333"}));
  EXPECT_EQ(v[1], (vta::Override{"gemm.batch", "4"}));
  EXPECT_EQ(v[2], (vta::Override{"gemm.block_in", "16"}));
  EXPECT_EQ(v[3], (vta::Override{"buffers.inp", "64KiB"}));
}

// Stage 1's order: the points that differ only in the GEMM pipeline depth,
// which one tile search serves, side by side, the rest in the spec's order
// (the depth's axis moved innermost); repeated indices (a point on several
// networks) keep their given order.
TEST(SweepSpace, DepthInnermostPutsADesignsDepthsSideBySide) {
  const SweepSpec s = spec_of(
      "base: vta-1x16x16\nnetworks: [lenet5]\naxes:\n"
      "  - knob: alu.lanes\n    values: [8, 16]\n"
      "  - knob: gemm.pipeline_depth\n    range: {from: 11, to: 13}\n"
      "  - knob: clock.mhz\n    values: [200, 300]\n"
      "  - knob: memory.bus_bits\n    values: [64, 128]\n");
  const Space sp(s);
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < sp.size(); ++i) indices.push_back(i), indices.push_back(i);
  const std::vector<size_t> order = sp.depth_innermost(indices);
  ASSERT_EQ(order.size(), indices.size());
  EXPECT_EQ(std::set<size_t>(order.begin(), order.end()).size(), order.size());
  std::vector<std::vector<int64_t>> got;
  for (size_t i = 0; i < order.size(); i += 2) {
    EXPECT_LT(order[i], order[i + 1]);  // the repeat keeps its place after the first
    EXPECT_EQ(indices[order[i]], indices[order[i + 1]]);
    got.push_back(sp.digits(indices[order[i]]));
  }
  std::vector<std::vector<int64_t>> want;
  for (int64_t lanes = 0; lanes < 2; ++lanes)
    for (int64_t mhz = 0; mhz < 2; ++mhz)
      for (int64_t bus = 0; bus < 2; ++bus)
        for (int64_t depth = 0; depth < 3; ++depth) want.push_back({lanes, depth, mhz, bus});
  EXPECT_EQ(got, want);
  // Without a depth axis: the index order.
  const SweepSpec clocks =
      spec_of("base: vta-1x16x16\nnetworks: [lenet5]\naxes:\n  - knob: clock.mhz\n    values: [200, 300, 333]\n");
  const Space flat(clocks);  // a Space keeps a reference to its spec
  EXPECT_EQ(flat.depth_innermost({2, 0, 1}), (std::vector<size_t>{1, 2, 0}));
}

// Every shipped example spec loads, its space is non-empty and points of it
// load as configs (a renamed knob or a bad value fails here, not in a user's run).
TEST(SweepSpace, EveryExampleSpecLoads) {
  size_t n = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::string(VTA_SOURCE_DIR) + "/sweeps/examples")) {
    if (f.path().extension() != ".yaml") continue;
    SCOPED_TRACE(f.path().string());
    const SweepSpec s = load_spec(f.path().string());
    const Space sp(s);
    EXPECT_GT(sp.size(), 0);
    EXPECT_FALSE(s.networks.empty());
    // Points may be invalid (a sweep stores them so), but not all of a sample.
    int valid = 0;
    for (int64_t k = 0; k < 64; ++k) try {
        vta::load_config_text(s.base_text, s.base, sp.overrides(k * (sp.size() - 1) / 63));
        ++valid;
      } catch (const vta::Error&) {
      }
    EXPECT_GT(valid, 0);
    ++n;
  }
  EXPECT_GE(n, 4u);
}

// batch as an axis of the network: one network per batch size, each its own key.
TEST(SweepSpace, BatchListIsOneNetworkPerSize) {
  const SweepSpec s =
      spec_of("base: vta-1x16x16\nnetworks:\n  - {zoo: lenet5, batch: [1, 4, 16], seed: 3}\n  - resnet18\n");
  ASSERT_EQ(s.networks.size(), 4u);
  EXPECT_EQ(s.networks[0].key(), "lenet5/s3");
  EXPECT_EQ(s.networks[1].key(), "lenet5/b4/s3");
  EXPECT_EQ(s.networks[2].key(), "lenet5/b16/s3");
  EXPECT_EQ(s.networks[3].key(), "resnet18");
  EXPECT_THROW(spec_of("base: vta-1x16x16\nnetworks:\n  - {zoo: lenet5, batch: []}\n"), vta::Error);
  EXPECT_THROW(spec_of("base: vta-1x16x16\nnetworks:\n  - {zoo: lenet5, batch: [1, 1]}\n"), vta::Error);
}

TEST(SweepSpace, RangesAndSeededSamplesAreDeterministic) {
  const std::string text =
      "base: vta-1x16x16\nnetworks: [lenet5]\nstrategy: {kind: random, samples: 20, seed: 7}\naxes:\n"
      "  - knob: gemm.pipeline_depth\n    range: {from: 11, to: 20}\n"
      "  - knob: clock.mhz\n    range: {from: 100, to: 400, step: 50}\n";
  const SweepSpec s = spec_of(text);
  ASSERT_EQ(s.axes[0].values.size(), 10u);
  ASSERT_EQ(s.axes[1].values.size(), 7u);
  const Space sp(s);
  const auto a = sp.initial_points(), b = Space(spec_of(text)).initial_points();
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(std::set<int64_t>(a.begin(), a.end()).size(), 20u);
  for (int64_t i : a) EXPECT_LT(i, sp.size());
}

TEST(SweepPareto, RanksAndWithinFront) {
  // Minimize both: (1,5) (2,2) (5,1) form the front; (3,3) is dominated by (2,2); (6,6) by all.
  const std::vector<std::vector<double>> rows = {{1, 5}, {3, 3}, {2, 2}, {6, 6}, {5, 1}, {NAN, 1}};
  EXPECT_EQ(pareto_front(rows), (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(pareto_ranks(rows), (std::vector<int>{0, 1, 0, 2, 0, 3}));
  // 40 % better, (3,3) becomes (1.8,1.8), which (2,2) no longer dominates.
  EXPECT_EQ(within_front(rows, 40), (std::vector<size_t>{0, 1, 2, 4}));
}

// Hypervolume up to a reference point, checked against areas and volumes
// computed by hand (boxes from each row to the reference, their union).
TEST(SweepPareto, HypervolumeIsTheUnionOfTheBoxes) {
  // (1,5) (2,2) (5,1) up to (6,6): columns [1,2) x 1, [2,5) x 4, [5,6) x 5.
  const std::vector<std::vector<double>> rows = {{1, 5}, {3, 3}, {2, 2}, {6, 6}, {5, 1}, {NAN, 1}};
  EXPECT_DOUBLE_EQ(hypervolume(rows, {6, 6}), 1 * 1 + 3 * 4 + 1 * 5);
  // A row on the reference's boundary adds nothing; one beyond it neither.
  EXPECT_DOUBLE_EQ(hypervolume({{6, 1}, {7, 0}, {2, 2}}, {6, 6}), 16);
  EXPECT_DOUBLE_EQ(hypervolume({}, {1, 1}), 0);
  // Three objectives: two unit-offset boxes up to (2,2,2) overlap in one unit cube.
  EXPECT_DOUBLE_EQ(hypervolume({{0, 1, 1}, {1, 0, 1}}, {2, 2, 2}), 2 + 2 - 1);
  // (0,0,1) and (1,1,0) up to (2,2,2): 4 + 2 - 1 (the overlap [1,2)^3); (1,1,1) is dominated.
  EXPECT_DOUBLE_EQ(hypervolume({{0, 0, 1}, {1, 1, 0}, {1, 1, 1}}, {2, 2, 2}), 5);
  // One objective: the distance from the best row to the reference.
  EXPECT_DOUBLE_EQ(hypervolume({{3}, {1}, {2}}, {4}), 3);
}

TEST(SweepConstraints, UnitsAndTheViolatedMessage) {
  ConstraintSet cs({{"buffers.inp + buffers.wgt + buffers.acc + buffers.uop <= 400KiB", 3},
                    {"gemm.block_in * gemm.block_out * gemm.batch <= 256", 4}},
                   "t.yaml");
  // The default design's buffers add up to 448 KiB.
  EXPECT_NE(cs.violated(vta::default_config()).find("(t.yaml:3) is false with buffers.acc = 131072"), std::string::npos)
      << cs.violated(vta::default_config());
  const vta::Config small = vta::load_config_text("", "x", {{"buffers.wgt", "128KiB"}});
  EXPECT_EQ(cs.violated(small), "");
  const vta::Config big =
      vta::load_config_text("", "x", {{"buffers.wgt", "128KiB"}, {"gemm.block_out", "32"}, {"gemm.block_in", "32"}});
  EXPECT_NE(
      cs.violated(big).find("constraint 'gemm.block_in * gemm.block_out * gemm.batch <= 256' (t.yaml:4) is false"),
      std::string::npos)
      << cs.violated(big);
}

// A sweep's zoo networks come from the zoo cache, one entry for every design
// point (kAnyConfig); --no-cache (use_cache false) leaves the cache alone.
TEST(SweepStages, ZooNetworksComeFromTheCache) {
  const auto dir =
      std::filesystem::path(VTA_BINARY_DIR) / "test-tmp" / ("sweep-zoo-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  vta::test::EnvGuard env("VTA_CACHE_DIR", dir.string());
  NetworkSpec ns;
  ns.zoo = "lenet5";
  vta::compiler::ZooOptions zo;
  zo.seed = ns.seed;
  zo.batch = ns.batch;
  zo.image = ns.image;
  const std::string entry = vta::compiler::zoo_cache_path("lenet5", zo, vta::compiler::kAnyConfig);
  prepare_network(ns, "t.yaml", /*use_cache=*/false);
  EXPECT_FALSE(std::filesystem::exists(entry));
  const PreparedNetwork built = prepare_network(ns, "t.yaml");
  ASSERT_TRUE(std::filesystem::exists(entry)) << entry;
  const PreparedNetwork cached = prepare_network(ns, "t.yaml");
  EXPECT_EQ(cached.input.data, built.input.data);
  ASSERT_EQ(cached.graph.nodes.size(), built.graph.nodes.size());
  const vta::compiler::Tensor a =
      vta::compiler::run_graph(built.graph, built.input)[static_cast<size_t>(built.graph.output)];
  const vta::compiler::Tensor b =
      vta::compiler::run_graph(cached.graph, cached.input)[static_cast<size_t>(cached.graph.output)];
  EXPECT_EQ(a.data, b.data);
  std::filesystem::remove_all(dir);
}

// The analytical stage must track the cycle model: per network within 25 %
// on these designs (the README states the measured error of the examples).
TEST(SweepStages, AnalyticTracksSystemC) {
  NetworkSpec ns;
  ns.zoo = "lenet5";
  const PreparedNetwork n = prepare_network(ns, "t.yaml");
  // vta-4x16x16: batch rows (band_rows()); the last two: rectangular arrays (several INP or OUT
  // elements per position).
  const std::vector<std::pair<const char*, std::vector<vta::Override>>> designs = {
      {"vta-1x16x16", {}},
      {"vta-1x32x32", {}},
      {"vta-4x16x16", {}},
      {"vta-1x16x16", {{"gemm.block_out", "32"}}},
      {"vta-1x16x16", {{"gemm.block_in", "32"}}}};
  for (const auto& [preset, sets] : designs) {
    const vta::Config c = vta::load_config(vta::resolve_config_path(preset), sets);
    const StageResult a = stage_analytic(c, n), s = stage_systemc(c, n);
    ASSERT_EQ(a.layers.size(), s.layers.size());
    const double ca = a.metrics.get("cycles"), cs = s.metrics.get("cycles");
    EXPECT_GT(cs, 0);
    EXPECT_LT(std::abs(ca - cs) / cs, 0.25) << preset << ": analytic " << ca << ", systemc " << cs;
    EXPECT_EQ(a.metrics.get("macs"), s.metrics.get("macs"));
    // The host model is a function of the placed graph: the same at both stages, and part of time_ms.
    EXPECT_GT(a.metrics.get("host_ms"), 0);
    EXPECT_DOUBLE_EQ(a.metrics.get("host_ms"), s.metrics.get("host_ms")) << preset;
    EXPECT_DOUBLE_EQ(s.metrics.get("time_ms"), cs / (c.clock.mhz * 1e3) + s.metrics.get("host_ms")) << preset;
  }
}

// Stage 1 keeps the graph the passes made while the designs share what the
// passes read (graph_pass_knobs()): every design's estimate equals
// estimate_network()'s own, in any order of designs that share the graph or not.
TEST(SweepStages, AnalyticKeepsThePassedGraphOnlyWhileThePassesWouldAgree) {
  NetworkSpec ns;
  ns.zoo = "resnet18";
  ns.image = 32;
  const PreparedNetwork n = prepare_network(ns, "t.yaml");
  const std::vector<std::vector<vta::Override>> designs = {{},
                                                           {{"gemm.pipeline_depth", "12"}},
                                                           {{"clock.mhz", "250"}, {"memory.bus_bits", "128"}},
                                                           {{"gemm.block_out", "32"}},
                                                           {{"isa.acc_8bit", "false"}},
                                                           {},
                                                           {{"alu.lanes", "8"}}};
  for (const auto& sets : designs) {
    const vta::Config c = vta::load_config(vta::resolve_config_path("vta-1x16x16"), sets);
    const StageResult r = stage_analytic(c, n);
    const vta::compiler::NetworkEstimate want = vta::compiler::estimate_network(n.graph, c);
    ASSERT_EQ(r.layers.size(), want.layers.size());
    for (size_t i = 0; i < want.layers.size(); ++i) {
      EXPECT_EQ(r.layers[i].name, want.layers[i].name);
      EXPECT_EQ(r.layers[i].device, vta::compiler::device_name(want.layers[i].device)) << r.layers[i].name;
      EXPECT_EQ(r.layers[i].cycles, want.layers[i].cycles) << r.layers[i].name;
    }
    EXPECT_EQ(r.metrics.get("cycles"), want.cycles);
  }
}

// funnel.tune: stages 2 and 3 compile with tuned tiles; the first point
// measures the candidates, the next reads them from the cache
// ($VTA_CACHE_DIR/tune.json) without a SystemC run, and stage 3 stays bit-exact.
TEST(SweepStages, TunedStagesShareTheTuningCache) {
  const auto dir = sweep_dir("tune-cache");
  std::filesystem::remove_all(dir);
  const vta::test::EnvGuard env("VTA_CACHE_DIR", dir.string());
  NetworkSpec ns;
  ns.zoo = "resnet18";
  ns.image = 64;
  const PreparedNetwork n = prepare_network(ns, "t.yaml");
  const vta::Config c = vta::load_config(vta::resolve_config_path("vta-1x16x16"));
  const StageResult plain = stage_systemc(c, n), first = stage_systemc(c, n, 0, 3);
  EXPECT_EQ(first.metrics.get("tune_systemc_runs"), 3);
  EXPECT_TRUE(std::filesystem::exists(dir / "tune.json"));
  EXPECT_LE(first.metrics.get("cycles"), plain.metrics.get("cycles") * 1.001);
  const StageResult again = stage_systemc(c, n, 0, 3);
  EXPECT_EQ(again.metrics.get("tune_systemc_runs"), 0);
  EXPECT_EQ(again.metrics.get("cycles"), first.metrics.get("cycles"));
  const StageResult verify = stage_verify(c, n, RtlCheck{}, 0, 3);
  EXPECT_EQ(verify.metrics.get("tune_systemc_runs"), 0);
  EXPECT_NE(verify.status, "failed") << verify.check;
  EXPECT_EQ(verify.metrics.get("cycles"), first.metrics.get("cycles"));
}

// A sweep ranks on device and host work together: a slower host (host.mem_gbps,
// host.mac_ns) or link leaves the device cycles as they are and raises time_ms
// by exactly the host model's difference, identically on every run.
TEST(SweepStages, HostModelCountsInTimeMs) {
  NetworkSpec ns;
  ns.zoo = "lenet5";
  const PreparedNetwork n = prepare_network(ns, "t.yaml");
  const vta::Config fast = vta::load_config(vta::resolve_config_path("vta-1x16x16"), {});
  const vta::Config slow =
      vta::load_config(vta::resolve_config_path("vta-1x16x16"),
                       {{"host.mem_gbps", "0.01"}, {"host.link", "pcie"}, {"host.setup_us", "100"}});
  for (auto stage : {+[](const vta::Config&c, const PreparedNetwork&p) { return stage_analytic(c, p); },
                     +[](const vta::Config&c, const PreparedNetwork&p) { return stage_systemc(c, p); }}) {
    const StageResult f = stage(fast, n), s = stage(slow, n), again = stage(slow, n);
    EXPECT_EQ(f.metrics.get("cycles"), s.metrics.get("cycles"));
    EXPECT_GT(s.metrics.get("host_ms"), f.metrics.get("host_ms") + 0.4);  // at least 4 copies of 100 us
    EXPECT_DOUBLE_EQ(s.metrics.get("time_ms") - f.metrics.get("time_ms"),
                     s.metrics.get("host_ms") - f.metrics.get("host_ms"));
    EXPECT_EQ(s.metrics.get("time_ms"), again.metrics.get("time_ms"));  // no wall clock in it
    EXPECT_LT(s.metrics.get("inferences_per_s"), f.metrics.get("inferences_per_s"));
  }
}

// The accuracy metrics: measured when an objective names one (16 inputs)
// or the network asks (accuracy: N), the same as `vta run --accuracy N`'s
// (inputs from seed + 1000), once per network and widths, on every network
// stage; absent otherwise.
TEST(SweepStages, AccuracyMetricsWhenAskedForAndAsVtaRunMeasuresThem) {
  const std::string head = "name: a\nbase: vta-1x16x16\nnetworks: [{zoo: lenet5";
  EXPECT_EQ(spec_of(head + "}]\n").networks[0].accuracy, 0);
  EXPECT_EQ(spec_of(head + "}]\nobjectives: [{maximize: sqnr_db}]\n").networks[0].accuracy, 16);
  const SweepSpec s = spec_of(head + ", accuracy: 4}]\nobjectives: [{minimize: cycles}]\n");
  ASSERT_EQ(s.networks[0].accuracy, 4);
  const PreparedNetwork n = prepare_network(s.networks[0], "t.yaml");
  const vta::Config c = vta::load_config(vta::resolve_config_path("vta-1x16x16"), {});
  const vta::compiler::Accuracy want = vta::compiler::measure_accuracy(n.graph, 4, 1001);
  for (const StageResult& r : {stage_analytic(c, n), stage_systemc(c, n)}) {
    EXPECT_DOUBLE_EQ(r.metrics.get("top1_agree"), want.top1_agree());
    EXPECT_DOUBLE_EQ(r.metrics.get("sqnr_db"), want.output_sqnr_db);
  }
  PreparedNetwork off = n;
  off.spec.accuracy = 0;
  EXPECT_FALSE(stage_analytic(c, off).metrics.has("sqnr_db"));
  // The store's result basis changes with the count (its results would).
  EXPECT_NE(result_basis(s), result_basis(spec_of(head + "}]\nobjectives: [{minimize: cycles}]\n")));
}

// A point at other element widths runs the zoo network built at them
// (stages.cpp at_widths()): stage 2 compiles it and its accuracy is that of
// vta run at the same widths, finer than the 8-bit network's.
TEST(SweepStages, WidthsRunTheNetworkBuiltAtThem) {
  const SweepSpec s = spec_of(
      "name: a\nbase: vta-1x16x16\nnetworks: [{zoo: lenet5, accuracy: 4}]\n"
      "objectives: [{minimize: cycles}]\n");
  const PreparedNetwork n = prepare_network(s.networks[0], "t.yaml");
  const vta::Config c8 = vta::load_config(vta::resolve_config_path("vta-1x16x16"), {});
  const vta::Config c16 =
      vta::load_config(vta::resolve_config_path("vta-1x16x16"), {{"dtype.inp_bits", "16"}, {"dtype.out_bits", "16"}});
  vta::compiler::ZooOptions zo;
  zo.act_bits = 16;
  const vta::compiler::Accuracy want = vta::compiler::measure_accuracy(vta::compiler::build_zoo("lenet5", zo), 4, 1001);
  const StageResult r8 = stage_systemc(c8, n), r16 = stage_systemc(c16, n);
  EXPECT_DOUBLE_EQ(r16.metrics.get("sqnr_db"), want.output_sqnr_db);
  EXPECT_GT(r16.metrics.get("sqnr_db"), r8.metrics.get("sqnr_db"));
  EXPECT_GT(r16.metrics.get("cycles"), r8.metrics.get("cycles"));  // 16-bit activations: twice the bytes
}

// The element widths a sweep builds its zoo networks at before it forks the
// workers: a zip's rows as they are, separate axes in every combination,
// the base's where no axis sets one; network_at_widths() keeps each build.
TEST(SweepStages, SweepWidthsAreTheSpacesPairs) {
  const std::string head = "name: a\nbase: vta-1x16x16\nnetworks: [lenet5]\nobjectives: [{minimize: cycles}]\n";
  using Pairs = std::vector<std::pair<int, int>>;
  EXPECT_EQ(vta::sweeps::sweep_widths(spec_of(head)), (Pairs{{8, 8}}));
  EXPECT_EQ(vta::sweeps::sweep_widths(spec_of(head + "axes:\n  - zip:\n      dtype.wgt_bits: [4, 8, 8]\n"
                                                     "      dtype.inp_bits: [8, 8, 16]\n"
                                                     "      dtype.out_bits: [8, 8, 16]\n")),
            (Pairs{{8, 4}, {8, 8}, {16, 8}}));
  EXPECT_EQ(vta::sweeps::sweep_widths(spec_of(head + "axes:\n  - {knob: dtype.wgt_bits, values: [4, 8]}\n"
                                                     "  - {knob: dtype.inp_bits, values: [8, 16]}\n")),
            (Pairs{{8, 4}, {8, 8}, {16, 4}, {16, 8}}));
  EXPECT_EQ(vta::sweeps::sweep_widths(spec_of(head + "set: {dtype.inp_bits: 16, dtype.out_bits: 16}\n")),
            (Pairs{{16, 8}}));
  const PreparedNetwork n = prepare_network(spec_of(head).networks[0], "t.yaml");
  const PreparedNetwork& w4 = network_at_widths(n, 8, 4);
  EXPECT_EQ(w4.graph.wgt_bits, 4);
  EXPECT_EQ(&network_at_widths(n, 8, 4), &w4) << "built once";
  EXPECT_EQ(&network_at_widths(n, 8, 8), &n) << "the prepared network at its own widths";
}

// A sweep over host.cpu: the device cycles stay, and host_ms follows the
// presets' figures (isa/host_cpus): the Cortex-A9 slower than the Cortex-A53,
// slower than the Xeon core, on every figure, so on every host layer.
TEST(SweepStages, HostCpuAxisRanksTheCores) {
  const SweepSpec s = spec_of(
      "base: vta-1x16x16\nnetworks: [lenet5]\naxes:\n"
      "  - knob: host.cpu\n    values: [cortex-a9-650, cortex-a53-1200, xeon-e5-2690v3]\n");
  const Space sp(s);
  ASSERT_EQ(sp.size(), 3);
  const PreparedNetwork n = prepare_network(s.networks.at(0), "t.yaml");
  std::vector<double> host_ms, cycles;
  for (int64_t i = 0; i < sp.size(); ++i) {
    const vta::Config c = vta::load_config_text(s.base_text, s.base, sp.overrides(i));
    const StageResult r = stage_analytic(c, n);
    host_ms.push_back(r.metrics.get("host_ms"));
    cycles.push_back(r.metrics.get("cycles"));
  }
  EXPECT_EQ(cycles[0], cycles[1]);
  EXPECT_EQ(cycles[1], cycles[2]);
  EXPECT_GT(host_ms[2], 0);
  EXPECT_GT(host_ms[0], host_ms[1]);
  EXPECT_GT(host_ms[1], host_ms[2]);
}

// Stage 0's FPGA estimate: resource columns on every row, constraints on
// them, and designs that do not fit the named part stored invalid.
// Energy per layer: the activity counters map onto the estimate's Activity,
// every backend counts the same activity (dynamic energy is identical on
// golden and systemc), and the layers add up to the total.
TEST(LayerEnergy, ActivityCountersMapOntoTheEstimate) {
  vta::Stats s;
  s.set("gemm.macs", 7), s.set("alu.lane_ops", 11), s.set("cycles.total", 13);
  s.set("sram.read_bytes.WGT", 17), s.set("sram.write_bytes.INP", 19), s.set("sram.read_bytes.ACC", 23);
  s.set("dram.read_bytes", 29), s.set("dram.write_bytes.OUT", 31);
  const auto a = activity_of(s);
  EXPECT_EQ(a.macs, 7u);
  EXPECT_EQ(a.alu_ops, 11u);
  EXPECT_EQ(a.cycles, 13u);
  EXPECT_EQ(a.wgt_read_bytes, 17u);
  EXPECT_EQ(a.inp_write_bytes, 19u);
  EXPECT_EQ(a.acc_read_bytes, 23u);
  EXPECT_EQ(a.inp_read_bytes, 0u);
  EXPECT_EQ(a.dram_read_bytes, 29u);
  EXPECT_EQ(a.dram_write_bytes, 31u);
}

TEST(LayerEnergy, EveryBackendCountsTheSameActivityAndLayersAddUp) {
  const auto dir = sweep_dir("energy");
  std::map<std::string, nlohmann::json> reports;
  for (const std::string b : {"golden", "systemc"}) {
    const std::string json = (dir / (b + ".json")).string();
    const auto r = run_vta("run --model lenet5 -b " + b + " --report-json " + json);
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("energy uJ"), std::string::npos) << r.out;
    std::ifstream f(json);
    reports[b] = nlohmann::json::parse(f);
  }
  const auto& g = reports["golden"]["layers"];
  const auto& sc = reports["systemc"]["layers"];
  ASSERT_EQ(g.size(), sc.size());
  double sum = 0;
  int vta_layers = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_EQ(g[i].contains("energy_uj"), g[i]["device"] == "vta") << g[i].dump();
    if (!g[i].contains("energy_uj")) continue;
    ++vta_layers;
    EXPECT_GT(g[i]["energy_uj"].get<double>(), 0) << g[i]["layer"];
    EXPECT_DOUBLE_EQ(g[i]["energy_uj"].get<double>(), sc[i]["energy_uj"].get<double>()) << g[i]["layer"];
    sum += g[i]["energy_uj"].get<double>();
  }
  EXPECT_GE(vta_layers, 5);
  EXPECT_NEAR(reports["systemc"]["total"]["energy_uj"].get<double>(), sum, 1e-9 * sum);
  EXPECT_NE(reports["systemc"]["energy_basis"].get<std::string>().find("dynamic only"), std::string::npos);
}

TEST(SweepRunner, ResourceColumnsConstraintsAndDeviceFit) {
  const auto dir = sweep_dir("estimate");
  const std::string spec =
      write_spec(dir, "s.yaml",
                 "base: vta-1x16x16\ndevice: xc7z020\nnetworks: [lenet5]\n"
                 "set: {buffers.inp: 8KiB, buffers.wgt: 64KiB, buffers.acc: 32KiB, buffers.uop: 8KiB, "
                 "gemm.pipeline_depth: 8}\n"
                 "axes:\n  - zip:\n      gemm.block_in: [8, 16, 16]\n      gemm.block_out: [8, 16, 16]\n"
                 "      alu.lanes: [8, 16, 16]\n      clock.mhz: [100, 100, 400]\n"
                 "constraints:\n  - \"bram36 <= 200\"\n"
                 "objectives:\n  - minimize: cycles\n  - maximize: gops_per_dsp\n");
  const std::string db = (dir / "s.db").string();
  const auto r = run_vta("sweep run -q " + spec + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(run_vta("sweep export --json " + db).out);
  ASSERT_EQ(j["points"].size(), 3u);
  // 8x8 fits the Zynq-7020 (and at depth 8 meets 100 MHz); 16x16 needs more
  // DSPs and BRAM than it has; at 400 MHz it is also above the Fmax estimate.
  const auto& small = j["points"][0]["stages"];
  EXPECT_EQ(small["config"]["status"], "ok") << small.dump();
  EXPECT_GT(small["config"]["metrics"]["dsp"].get<double>(), 0);
  EXPECT_EQ(small["config"]["metrics"]["fits"].get<double>(), 1);
  EXPECT_GT(small["analytic"]["metrics"]["gops_per_dsp"].get<double>(), 0);
  EXPECT_TRUE(small["systemc"]["metrics"].contains("lut"));
  const auto& big = j["points"][1]["stages"]["config"];
  EXPECT_EQ(big["status"], "invalid");
  EXPECT_NE(big["error"].get<std::string>().find("xc7z020: needs"), std::string::npos) << big.dump();
  const std::string fast = j["points"][2]["stages"]["config"]["error"].get<std::string>();
  EXPECT_NE(fast.find("xc7z020"), std::string::npos);
  // The reason names the clock and the Fmax estimate it is above.
  EXPECT_NE(fast.find("clock.mhz 400 is above the Fmax estimate"), std::string::npos) << fast;
}

// The results table's metric columns are metrics.def's: version 1's before
// the metrics JSON, each later version's after `finished`, in that order (as
// an upgraded store has them); the schema version is the highest column's.
TEST(SweepStore, ResultColumnsFollowTheMetricTable) {
  const auto dir = sweep_dir("metric-columns");
  const std::string db = (dir / "m.db").string();
  { Store s(db, true); }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  std::vector<std::string> cols;
  ASSERT_EQ(sqlite3_exec(
                h, "SELECT name FROM pragma_table_info('results')",
                [](void* out, int, char** v, char**) {
                  static_cast<std::vector<std::string>*>(out)->push_back(v[0]);
                  return 0;
                },
                &cols, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  std::vector<std::string> want = {"point_key", "stage", "stage_name", "status", "error", "verify_status"};
  int newest = 3;
  for (const MetricInfo& m : metrics())
    if (m.column == 1) want.push_back(m.name);
  for (const char* c : {"metrics", "wall_s", "finished"}) want.push_back(c);
  for (int v = 2; v <= kSchemaVersion; ++v)
    for (const MetricInfo& m : metrics())
      if (m.column == v) want.push_back(m.name), newest = std::max(newest, v);
  EXPECT_EQ(cols, want);
  EXPECT_EQ(kSchemaVersion, newest);
  EXPECT_EQ(metric_names().front(), "cycles");
  EXPECT_TRUE(is_cycle_model_metric("energy_uj"));
  EXPECT_FALSE(is_cycle_model_metric("cycles"));
  EXPECT_EQ(find_metric("lut"), nullptr) << "estimate columns are not in the table";
}

// Energy from stage 2 on, per point and per layer, with the device's static
// power; a store of schema version 1 (no energy columns) is upgraded in place.
TEST(SweepRunner, EnergyIsAStageTwoObjectiveAndVersion1StoresUpgrade) {
  const auto dir = sweep_dir("energy");
  const std::string spec =
      write_spec(dir, "s.yaml",
                 "base: vta-1x16x16\ndevice: xc7z020\nnetworks: [lenet5]\n"
                 "set: {gemm.block_in: 8, gemm.block_out: 8, alu.lanes: 8, buffers.inp: 8KiB, buffers.wgt: 64KiB, "
                 "buffers.acc: 32KiB, buffers.uop: 8KiB, gemm.pipeline_depth: 8}\n"
                 "axes:\n  - knob: clock.mhz\n    values: [50, 100]\n"
                 "objectives:\n  - minimize: time_ms\n  - minimize: energy_uj\n");
  const std::string db = (dir / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db).code, 0);
  // Make it a version-1 store, as an older vta wrote it.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  // (Without the columns of every version after 1: metrics.def's.)
  std::string to_v1 =
      "ALTER TABLE layers DROP COLUMN energy_uj; UPDATE sweep SET schema_version = 1; DROP VIEW points_wide; "
      "ALTER TABLE results RENAME COLUMN verify_status TO \"check\";";
  for (const MetricInfo& m : metrics())
    if (m.column >= 2) to_v1 += std::string(" ALTER TABLE results DROP COLUMN ") + m.name + ";";
  ASSERT_EQ(sqlite3_exec(h, to_v1.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
  const auto r = run_vta("sweep run -q " + spec + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(run_vta("sweep export --json --layers " + db).out);
  EXPECT_EQ(j["sweep"]["schema_version"], kSchemaVersion);
  ASSERT_EQ(j["points"].size(), 2u);
  double e[2] = {0, 0};
  for (size_t p = 0; p < 2; ++p) {
    const auto& st = j["points"][p]["stages"];
    EXPECT_FALSE(st["analytic"]["metrics"].contains("energy_uj")) << "stage 1 has no activity counts";
    ASSERT_TRUE(st["systemc"]["metrics"].contains("energy_uj")) << st["systemc"].dump();
    e[p] = st["systemc"]["metrics"]["energy_uj"].get<double>();
    double sum = 0;
    int vta_layers = 0;
    for (const auto& l : st["systemc"]["layers"]) {
      ASSERT_EQ(l.size(), 12u) << l.dump();
      EXPECT_EQ(l[11].get<double>() > 0, l[2] == "vta") << l.dump();
      if (l[2] == "vta") sum += l[11].get<double>(), ++vta_layers;
    }
    EXPECT_GE(vta_layers, 5);
    EXPECT_NEAR(sum, e[p], 1e-9 * e[p]);
  }
  // Same cycles at half the clock: twice the static energy (the xc7z020's static power), same dynamic.
  EXPECT_GT(e[0], e[1]);
  const auto csv = run_vta("sweep export --csv " + db);
  EXPECT_NE(csv.out.find(",energy_uj"), std::string::npos);
}

// Export of a store with the run-dependent columns (wall time) removed.
std::string stable_export(const std::string& db) {
  const auto r = run_vta("sweep export --json --layers " + db);
  EXPECT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  j.erase("sweep");
  for (auto& p : j["points"])
    for (auto& [k, st] : p["stages"].items()) st.erase("wall_s");
  return j.dump(1);
}

const char* kSmallSweep =
    "name: small\nbase: vta-1x16x16\nnetworks: [lenet5]\n"
    "axes:\n"
    "  - knob: clock.mhz\n    values: [250, 333]\n"
    "  - knob: buffers.inp\n    pow2: {from: 16KiB, to: 64KiB}\n"
    "  - knob: gemm.pipeline_depth\n    range: {from: 4, to: 9}\n"
    "constraints:\n  - \"buffers.inp + buffers.wgt + buffers.acc + buffers.uop <= 512KiB\"\n"
    "objectives:\n  - minimize: cycles\n  - maximize: gops\n";

// Column names of a query over `db`, and its first row's SQLite types.
std::pair<std::vector<std::string>, std::vector<std::string>> columns_and_types(const std::string& db,
                                                                                const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &q, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  std::vector<std::string> names, types;
  if (q && sqlite3_step(q) == SQLITE_ROW)
    for (int c = 0; c < sqlite3_column_count(q); ++c) {
      names.push_back(sqlite3_column_name(q, c));
      const int t = sqlite3_column_type(q, c);
      types.push_back(t == SQLITE_INTEGER ? "integer"
                      : t == SQLITE_FLOAT ? "real"
                      : t == SQLITE_TEXT  ? "text"
                                          : "null");
    }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return {names, types};
}

// Every row of a query over `db`, its columns joined by '|'.
std::vector<std::string> rows_of(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &q, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  std::vector<std::string> rows;
  while (q && sqlite3_step(q) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(q); ++c) {
      const auto* t = sqlite3_column_text(q, c);
      row += (c ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return rows;
}

// Stage 1 stores its rows per layer for the points stage 2 takes (estimated
// again before stage 2, the same rows as `funnel.stage1: {layers: all}`
// stores for every point), not for every point.
TEST(SweepStore, StageOneKeepsLayerRowsForThePointsStageTwoTakes) {
  const auto dir = sweep_dir("layers");
  const std::string funnel = "funnel:\n  stage2: {top_k: 2}\n";
  const std::string some = write_spec(dir, "some.yaml", std::string(kSmallSweep) + funnel);
  const std::string all = write_spec(dir, "all.yaml", std::string(kSmallSweep) + funnel + "  stage1: {layers: all}\n");
  const std::string db_some = (dir / "some.db").string(), db_all = (dir / "all.db").string();
  ASSERT_EQ(run_vta("sweep run -q " + some + " --db " + db_some).code, 0);
  ASSERT_EQ(run_vta("sweep run -q " + all + " --db " + db_all).code, 0);
  const std::string with_layers = "SELECT DISTINCT point_key FROM layers WHERE stage = 1 ORDER BY 1";
  const std::string stage2 = "SELECT point_key FROM results WHERE stage = 2 ORDER BY 1";
  const auto taken = rows_of(db_some, stage2);
  ASSERT_GE(taken.size(), 2u);
  EXPECT_LT(taken.size(), 24u) << "top_k 2 of two objectives takes a few of the 24 valid points";
  EXPECT_EQ(rows_of(db_some, with_layers), taken);
  EXPECT_EQ(rows_of(db_all, with_layers).size(), 24u);
  const std::string rows =
      "SELECT * FROM layers WHERE stage = 1 AND point_key IN (" + stage2 + ") ORDER BY point_key, layer";
  EXPECT_EQ(rows_of(db_some, rows), rows_of(db_all, rows));
  EXPECT_FALSE(rows_of(db_some, rows).empty());
}

// The wide table for analysis: the view points_wide and `sweep export --csv`
// have one header, typed knob columns (sizes in bytes), every metric and
// estimate column (dsp, fmax_mhz) as a column, no column named by an SQL
// keyword; a store of schema version 2 (its `check` column) is upgraded.
TEST(SweepStore, WideViewAndCsvAreTypedAndShareAHeader) {
  const auto dir = sweep_dir("wide");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const std::string db = (dir / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db).code, 0);
  const auto csv = run_vta("sweep export --csv " + db);
  ASSERT_EQ(csv.code, 0) << csv.out;
  const std::string head = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_TRUE(
      head.starts_with("point_key,idx,network,config_hash,clock.mhz,buffers.inp,gemm.pipeline_depth,stage,"
                       "stage_name,status,error,verify_status,cycles,"))
      << head;
  const auto [names, types] =
      columns_and_types(db, "SELECT * FROM points_wide WHERE stage = 1 AND \"buffers.inp\" = 32768 LIMIT 1");
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ",") + n;
  // The CSV is the view, then the metrics a stage records beyond metrics.def and the estimate (stage 0's).
  EXPECT_EQ(joined + ",mac_units", head) << "the view and the CSV share one header";
  std::map<std::string, std::string> type;
  for (size_t c = 0; c < names.size(); ++c) {
    type[names[c]] = types[c];
    EXPECT_EQ(sqlite3_keyword_check(names[c].c_str(), static_cast<int>(names[c].size())), 0)
        << names[c] << " is an SQL keyword";
  }
  for (const char* c : {"idx", "clock.mhz", "buffers.inp", "gemm.pipeline_depth", "stage"})
    EXPECT_EQ(type[c], "integer") << c;
  for (const char* c : {"cycles", "time_ms", "dsp", "lut", "fmax_mhz", "util"}) EXPECT_EQ(type[c], "real") << c;
  // The CSV's row of that point: 32KiB as bytes, the clock as a number.
  EXPECT_TRUE(
      std::regex_search(csv.out, std::regex("\n[0-9a-f]+/lenet5,[0-9]+,lenet5,[0-9a-f]+,(250|333),32768,[4-9],1,"
                                            "analytic,ok,,,[0-9.]+,")))
      << csv.out.substr(0, 2000);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 36 + 24);
  // Back to schema version 2, as an older vta wrote it (`check`, layers with
  // rowids, no view): the next open upgrades it.
  const std::string layers = run_vta("sweep export --json --layers " + db).out;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "DROP VIEW points_wide; ALTER TABLE results RENAME COLUMN verify_status TO \"check\"; "
                         "CREATE TABLE old_layers AS SELECT * FROM layers; DROP TABLE layers; "
                         "ALTER TABLE old_layers RENAME TO layers; UPDATE sweep SET schema_version = 2;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(h);
  sqlite3_close(h);
  const auto again = run_vta("sweep export --csv " + db);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(again.out, csv.out);
  EXPECT_EQ(columns_and_types(db, "SELECT verify_status FROM results LIMIT 1").first.size(), 1u);
  EXPECT_EQ(run_vta("sweep export --json --layers " + db).out, layers);
  const auto sql = columns_and_types(db, "SELECT sql FROM sqlite_master WHERE name = 'layers'");
  EXPECT_EQ(sql.second, std::vector<std::string>{"text"});
  EXPECT_EQ(columns_and_types(db, "SELECT 1 FROM sqlite_master WHERE name = 'layers' AND sql LIKE '%WITHOUT ROWID'")
                .first.size(),
            1u)
      << "layers is a WITHOUT ROWID table from version 3 on";
}

// Evolve over two networks: deterministic for a seed, within its budget
// (population x (generations + 1) designs), every visited design run on
// both networks (it ranks on both: sweeps/README.md).
TEST(SweepRunner, EvolveOverTwoNetworksIsDeterministic) {
  const auto dir = sweep_dir("evolve");
  const std::string spec = write_spec(dir, "e.yaml",
                                      "name: e\nbase: vta-1x16x16\nnetworks: [lenet5, 'conv:16,8,8,16,3,1,1']\n"
                                      "axes:\n  - knob: clock.mhz\n    values: [100, 200, 250, 333]\n"
                                      "  - knob: gemm.pipeline_depth\n    range: {from: 4, to: 9}\n"
                                      "  - knob: alu.lanes\n    values: [4, 8, 16]\n"
                                      "objectives:\n  - minimize: cycles\n  - maximize: gops\n"
                                      "strategy: {kind: evolve, population: 4, generations: 3, seed: 7}\n");
  auto keys = [&](const std::string& db) {
    EXPECT_EQ(run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db).code, 0);
    std::map<std::string, int> per_design;  // config hash -> networks run
    for (const auto& p : Store(db, false).load(false)) ++per_design[p.info.config_hash];
    return per_design;
  };
  const auto a = keys((dir / "a.db").string()), b = keys((dir / "b.db").string());
  EXPECT_EQ(a, b);
  EXPECT_GE(a.size(), 4u);
  EXPECT_LE(a.size(), 16u);
  for (const auto& [hash, nets] : a) EXPECT_EQ(nets, 2) << hash;
}

TEST(SweepRunner, ResumeRedoesNothingAndInvalidPointsAreRecorded) {
  const auto dir = sweep_dir("resume");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const std::string db = (dir / "s.db").string();
  const auto first = run_vta("sweep run -q " + spec + " --db " + db);
  ASSERT_EQ(first.code, 0) << first.out;
  // 2 x 3 x 6 = 36 designs; 64KiB INP cannot be encoded (12 designs): recorded invalid with the reason.
  EXPECT_NE(first.out.find("stage 0 config  : 36 points (0 from the store), 24 ok, 12 invalid"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("stage 2 systemc : 24 points (0 from the store), 24 ok"), std::string::npos) << first.out;
  const auto again = run_vta("sweep run -q " + spec + " --db " + db);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("stage 1 analytic: 24 points (24 from the store)"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("stage 2 systemc : 24 points (24 from the store)"), std::string::npos) << again.out;
  const auto csv = run_vta("sweep export --csv " + db);
  ASSERT_EQ(csv.code, 0);
  EXPECT_NE(csv.out.find("cannot be encoded"), std::string::npos);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 36 + 24 + 24);
}

// An edit that changes nothing the results depend on (a comment, the name,
// the objectives of a grid search, the funnel) resumes the store and
// replaces its spec; one that changes a grid's space (an axis value added
// or removed, the constraints) reuses every stored point still in it and
// runs only the new ones; one that changes the results of a key (here `set`)
// is refused, naming the part.
TEST(SweepRunner, EditsThatKeepTheResultsResume) {
  const auto dir = sweep_dir("edit");
  const std::string db = (dir / "s.db").string();
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db).code, 0);
  std::string edited = std::string("# the funnel, tuned\n") + kSmallSweep;
  edited.replace(edited.find("name: small"), 11, "name: small-edited");
  edited.replace(edited.find("  - maximize: gops\n"), 19, "  - minimize: time_ms\nfunnel:\n  stage2: {top_k: 2}\n");
  write_spec(dir, "s.yaml", edited);
  const auto r = run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("edited since its results were stored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stage 1 analytic: 24 points (24 from the store)"), std::string::npos) << r.out;
  const auto status = run_vta("sweep status " + db);
  EXPECT_NE(status.out.find("sweep small-edited"), std::string::npos) << status.out;
  // The space edited: run, then the export's rows (a header, stage 0 and 1 rows).
  auto run_with = [&](const std::string& from, const std::string& to) {
    std::string text = edited;
    text.replace(text.find(from), from.size(), to);
    write_spec(dir, "s.yaml", text);
    return run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db);
  };
  auto csv_rows = [&] {
    const auto csv = run_vta("sweep export --csv " + db);
    return std::count(csv.out.begin(), csv.out.end(), '\n');
  };
  // A clock added: the 18 designs at 250 MHz reused, those at 300 new.
  auto o = run_with("values: [250, 333]", "values: [250, 300]");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("space edited since its results were stored: 18 points new, 18 reused from the store"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("stage 1 analytic: 24 points (12 from the store)"), std::string::npos) << o.out;
  EXPECT_EQ(csv_rows(), 1 + 36 + 24);  // not the 333 MHz points: they left the space
  // A clock removed: nothing new; the report and export follow the space.
  o = run_with("values: [250, 333]", "values: [250]");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("0 points new, 18 reused"), std::string::npos) << o.out;
  EXPECT_EQ(csv_rows(), 1 + 18 + 12);
  // Both back: every point is still stored.
  o = run_with("values: [250, 333]", "values: [333, 250, 300]");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("0 points new, 54 reused"), std::string::npos) << o.out;
  EXPECT_EQ(csv_rows(), 1 + 54 + 36);
  // A tighter constraint (and 300 MHz gone) judges the stored 32 KiB INP designs anew: invalid now.
  o = run_with("<= 512KiB", "<= 440KiB");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("space and constraints edited since its results were stored: 0 points new, 36 reused from the "
                       "store "
                       "(12 judged anew by the edited constraints)"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("stage 0 config  : 36 points (36 from the store), 12 ok, 24 invalid"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("stage 1 analytic: 12 points (12 from the store)"), std::string::npos) << o.out;
  EXPECT_EQ(csv_rows(), 1 + 36 + 12);
  // The fixed overrides change what a point's key holds: refused.
  o = run_with("base: vta-1x16x16\n", "base: vta-1x16x16\nset: {alu.lanes: 8}\n");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("'set' differs"), std::string::npos) << o.out;
}

// A stored point back to a design: its YAML loads as a config with the
// swept knobs and a name that says them, and its vta run line is given.
TEST(SweepShow, APointBecomesALoadableConfigAndARunLine) {
  const auto dir = sweep_dir("show");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const std::string db = (dir / "s.db").string();
  ASSERT_EQ(run_vta("sweep run -q --max-stage 1 " + spec + " --db " + db).code, 0);
  // Point 7: clock 250, buffers.inp 32KiB (the second pow2), depth 5 (mixed radix 2 x 3 x 6).
  const auto r = run_vta("sweep show " + db + " 7 -o " + (dir / "p7.yaml").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(dir / "p7.yaml");
  const std::string yaml{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(yaml.find("# Point 7 of sweep 'small'"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("# stage 1 analytic: ok, cycles "), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("# Stage 2's cycles: vta run --model lenet5 -c " + std::string(VTA_SOURCE_DIR) +
                      "/configs/vta-1x16x16.yaml --set clock.mhz=250 --set buffers.inp=32KiB --set "
                      "gemm.pipeline_depth=5 -b systemc --timing-only"),
            std::string::npos)
      << yaml;
  const auto shown = run_vta("config show -c " + (dir / "p7.yaml").string());
  ASSERT_EQ(shown.code, 0) << shown.out;
  EXPECT_NE(shown.out.find("name: \"vta-1x16x16 clock.mhz=250 buffers.inp=32KiB gemm.pipeline_depth=5\""),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("pipeline_depth: 5"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("inp: 32KiB"), std::string::npos) << shown.out;
  const auto missing = run_vta("sweep show " + db + " 999");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("no point 999 in this store"), std::string::npos) << missing.out;
}

TEST(SweepRunner, SigkillAtRandomMomentsLosesNothing) {
  const auto dir = sweep_dir("kill");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const std::string ref = (dir / "ref.db").string(), db = (dir / "killed.db").string();
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(run_vta("sweep run -q -j 2 " + spec + " --db " + ref).code, 0);
  const double full = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::mt19937 rng(12345);
  int kills = 0, landed = 0;
  for (int k = 0; k < 24; ++k) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("VTA_CONFIG_DIR", VTA_SOURCE_DIR "/configs", 1);
      freopen("/dev/null", "w", stdout);
      execl(VTA_EXE, VTA_EXE, "sweep", "run", "-q", "-j", "2", spec.c_str(), "--db", db.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    const double at = std::uniform_real_distribution<double>(0.0, 0.8)(rng) * full;
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ++kills;
    landed += WIFSIGNALED(status);
  }
  EXPECT_GE(kills, 20);
  EXPECT_GE(landed, 5) << "too few kills hit a running sweep to show anything";
  const auto last = run_vta("sweep run -q -j 2 " + spec + " --db " + db);
  ASSERT_EQ(last.code, 0) << last.out;
  EXPECT_EQ(stable_export(db), stable_export(ref));
}

// Starts `vta sweep run -q -j 1 SPEC --db DB` in the background.
pid_t start_sweep(const std::string& spec, const std::string& db) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("VTA_CONFIG_DIR", VTA_SOURCE_DIR "/configs", 1);
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execl(VTA_EXE, VTA_EXE, "sweep", "run", "-q", "-j", "1", spec.c_str(), "--db", db.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// A Slurm task cancelled (or a node lost) between creating its shard's file
// and committing the schema leaves an SQLite file without tables: status,
// merge and --resume count it as a shard not begun, and the rerun fills it.
TEST(SweepRunner, AShardWhoseCreationWasInterruptedIsNotBegun) {
  const auto dir = sweep_dir("blank-shard");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const auto shards = dir / "shards";
  std::filesystem::create_directories(shards);
  const std::string s0 = (shards / "shard-0.sqlite").string(), s1 = (shards / "shard-1.sqlite").string();
  ASSERT_EQ(run_vta("sweep run -q " + spec + " --shard 0/2 --max-stage 1 --db " + s0).code, 0);
  sqlite3* db = nullptr;  // what the cancelled task left: the file, in WAL mode, no schema
  ASSERT_EQ(sqlite3_open(s1.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_TRUE(std::filesystem::exists(s1));
  EXPECT_FALSE(store_created(s1));
  EXPECT_TRUE(store_created(s0));
  EXPECT_FALSE(store_created((shards / "none.sqlite").string()));
  std::ofstream(shards / "slurm-jobs.json") << nlohmann::json{{"spec", spec}, {"tasks", 2}}.dump();
  const auto status = run_vta("sweep status " + shards.string());
  ASSERT_EQ(status.code, 0) << status.out;
  EXPECT_TRUE(std::regex_search(status.out, std::regex("\\n1 +0 +0 +0 +0 +no store"))) << status.out;
  const auto merged = run_vta("sweep merge " + shards.string() + " -o " + (dir / "m.sqlite").string());
  ASSERT_EQ(merged.code, 0) << merged.out;
  // A merged store gets the typed view too (merge copies the tables; the view comes from the spec).
  EXPECT_EQ(columns_and_types((dir / "m.sqlite").string(), "SELECT \"buffers.inp\" FROM points_wide").second,
            std::vector<std::string>{"integer"});
  const auto rerun = run_vta("sweep run -q " + spec + " --shard 1/2 --max-stage 1 --db " + s1);
  ASSERT_EQ(rerun.code, 0) << rerun.out;
  EXPECT_TRUE(store_created(s1));
  const auto after = run_vta("sweep status " + shards.string());
  ASSERT_EQ(after.code, 0) << after.out;
  EXPECT_EQ(after.out.find("no store"), std::string::npos) << after.out;
}

TEST(SweepRunner, TwoProcessesShareOneStore) {
  const auto dir = sweep_dir("shared");
  const std::string spec = write_spec(dir, "s.yaml", kSmallSweep);
  const std::string ref = (dir / "ref.db").string(), db = (dir / "shared.db").string();
  ASSERT_EQ(run_vta("sweep run -q " + spec + " --db " + ref).code, 0);
  const pid_t a = start_sweep(spec, db), b = start_sweep(spec, db);
  int sa = 0, sb = 0;
  waitpid(a, &sa, 0);
  waitpid(b, &sb, 0);
  EXPECT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0);
  EXPECT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
  EXPECT_EQ(stable_export(db), stable_export(ref));
}

TEST(SweepRunner, CrashingAndHangingPointsAreRecordedAndTheSweepGoesOn) {
  const auto dir = sweep_dir("faults");
  const std::string spec = write_spec(dir, "s.yaml", std::string(kSmallSweep) + "timeout: 2s\n");
  const std::string db = (dir / "s.db").string();
  // Point 0 crashes in stage 2, point 1 hangs in stage 2 (both valid designs).
  const auto first = run_vta("sweep run -q " + spec + " --db " + db + " --max-stage 1");
  ASSERT_EQ(first.code, 0) << first.out;
  const auto r = run_vta("sweep run -q " + spec + " --db " + db, "VTA_SWEEP_FAULT=crash:2:0");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("stage 2 systemc : 24 points (0 from the store), 23 ok, 0 invalid, 1 failed"), std::string::npos)
      << r.out;
  const auto csv = run_vta("sweep export --csv " + db);
  EXPECT_NE(csv.out.find("the worker was killed by signal 11"), std::string::npos) << csv.out;

  const auto h = run_vta("sweep run -q " + spec + " --db " + (dir / "h.db").string(), "VTA_SWEEP_FAULT=hang:2:1");
  ASSERT_EQ(h.code, 0) << h.out;
  EXPECT_NE(h.out.find("23 ok, 0 invalid, 0 failed, 1 timed out"), std::string::npos) << h.out;
}

// Draws `html` in headless Chromium in a 1400-px window and returns the
// <body> attributes the page sets (`fragment`: the URL's, e.g. "#check-sort").
std::map<std::string, std::string> draw(const std::string& html, const std::string& fragment = "") {
  if (system("command -v chromium > /dev/null 2>&1") != 0) return {};
  const std::string cmd =
      "chromium --headless --no-sandbox --disable-gpu --window-size=1400,3000 --virtual-time-budget=5000 "
      "--dump-dom 'file://" +
      html + fragment + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string dom;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) dom.append(buf, n);
  pclose(p);
  std::map<std::string, std::string> attrs;
  const std::regex body("<body([^>]*)>");
  std::smatch m;
  if (std::regex_search(dom, m, body)) {
    const std::string a = m[1];
    const std::regex kv(R"re((data-[a-z]+)="([^"]*)")re");
    for (auto it = std::sregex_iterator(a.begin(), a.end(), kv); it != std::sregex_iterator(); ++it)
      attrs[(*it)[1]] = (*it)[2];
  }
  return attrs;
}

// Every plot drew, every axis has a title, nothing is wider than 1400 px,
// and (with `sortable_tables`) every column of the sortable tables sorts.
void expect_every_plot_drew(const std::string& html, int at_least, int sortable_tables = 0) {
  const auto a = draw(html, sortable_tables ? "#check-sort" : "");
  if (a.empty() && system("command -v chromium > /dev/null 2>&1") != 0) GTEST_SKIP() << "chromium is not installed";
  ASSERT_TRUE(a.count("data-charts")) << "the page's script did not finish: " << html;
  EXPECT_EQ(a.at("data-errors"), "");
  EXPECT_GE(std::stoi(a.at("data-charts")), at_least);
  EXPECT_EQ(a.at("data-drawn"), a.at("data-canvases")) << "a canvas stayed empty";
  EXPECT_EQ(a.at("data-charts"), a.at("data-canvases"));
  EXPECT_EQ(a.at("data-untitled"), "") << "axes without a title";
  EXPECT_EQ(a.at("data-overflow"), "") << "wider than the 1400-px window";
  if (sortable_tables) {
    EXPECT_GE(std::stoi(a.count("data-sorted") ? a.at("data-sorted") : "0"), 2 * sortable_tables);
  }
}

// Three objectives (one scatter per pair), a sortable Pareto table of real
// columns, the funnel on a log scale with the invalid points by reason, and
// a spec name that is markup, which must reach the page as text.
TEST(SweepReport, SweepReportDrawsEveryPlot) {
  const auto dir = sweep_dir("report");
  std::string text =
      std::string(kSmallSweep) + "  - minimize: dram_bytes\nfunnel:\n  stage2: {top_k: 3}\n  stage3: {top_k: 1}\n";
  text.replace(text.find("name: small"), 11, "name: \"</script><img src=x onerror=alert(1)>\"");
  const std::string spec = write_spec(dir, "s.yaml", text);
  const std::string db = (dir / "s.db").string(), html = (dir / "report.html").string();
  ASSERT_EQ(run_vta("sweep run -q " + spec + " --db " + db).code, 0);
  const auto r = run_vta("sweep report " + db + " -o " + html);
  ASSERT_EQ(r.code, 0) << r.out;
  // funnel + 3 Pareto scatters (3 pairs of objectives) + layer bars of >= 1 Pareto point + heat map
  expect_every_plot_drew(html, 6, 1);
  std::ifstream f(html);
  const std::string page((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(page.find("<img"), std::string::npos) << "the spec name reached the page as markup";
  EXPECT_NE(page.find("<h1>Sweep &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</h1>"), std::string::npos);
  EXPECT_NE(page.find("type: 'logarithmic'"), std::string::npos);
  // 12 designs whose 64KiB INP cannot be encoded: one bar, numbers left out of the reason.
  EXPECT_TRUE(std::regex_search(page, std::regex("\"invalid: [^\"]*cannot be encoded[^\"]*\\(12\\)\"")))
      << "no invalid-by-reason bar";
  // Each knob a column (clock.mhz among them: no second clock column), each objective, Fmax, resources.
  EXPECT_NE(page.find("<table class=\"sortable\"><thead><tr><th title=\"index in the design space\">point</th>"
                      "<th>clock.<wbr>mhz</th><th>buffers.<wbr>inp</th><th>gemm.<wbr>pipeline_<wbr>depth</th>"
                      "<th title=\"lower is better\">cycles &#8595;</th>"),
            std::string::npos);
  EXPECT_EQ(page.find("<th>clock MHz</th>"), std::string::npos);
  EXPECT_NE(page.find("<th title=\"the estimate's Fmax\">fmax_<wbr>mhz</th><th>lut</th>"), std::string::npos);
  EXPECT_NE(page.find("<pre>vta run --model lenet5 -c "), std::string::npos) << "no reproduce line";
  // The stage-1 error over every VTA layer result, as sweeps/README.md quotes it.
  EXPECT_TRUE(
      std::regex_search(page, std::regex("Over all [0-9]+ VTA layer results: \\|error\\| [0-9.]+ % at the median, "
                                         "[0-9.]+ % at the 90th percentile, [0-9.]+ % at worst")))
      << "no all-layers error line in the report";
}

// Stage 3 takes up to top_k points of each network's stage-2 Pareto front
// and says how many the front held: asking for 10 and getting 2 is explained.
TEST(SweepStages, Stage3SaysHowManyPointsTheFrontHeld) {
  const auto dir = sweep_dir("stage3-front");
  const std::string spec =
      write_spec(dir, "s.yaml", std::string(kSmallSweep) + "funnel:\n  stage2: {top_k: 3}\n  stage3: {top_k: 40}\n");
  const auto r = run_vta("sweep run " + spec + " --db " + (dir / "s.db").string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          "stage 3 selects ([0-9]+) points \\(top_k 40 of each network's stage-2 Pareto front: lenet5 ([0-9]+)\\)")))
      << r.out;
  EXPECT_EQ(m[1], m[2]) << "a front smaller than top_k is taken whole";
  EXPECT_NE(r.out.find("stage 3 verify  : " + m[1].str() + " points"), std::string::npos) << r.out;
}

TEST(SweepReport, RunReportDrawsEveryPlot) {
  const auto dir = sweep_dir("run");
  const std::string html = (dir / "run.html").string();
  const auto r = run_vta("run --model lenet5 -b systemc --timing-only --report-html " + html);
  ASSERT_EQ(r.code, 0) << r.out;
  expect_every_plot_drew(html, 2);
}

// Stage 3's checks are reported honestly: an RTL check that could not run
// is "not run" with its reason and fails the point, unless the spec says
// the RTL is optional; never "ok".
// Whether this binary has the verilator backend (the sanitizer build has not):
// without it, that is the reason an RTL check does not run.
static bool verilator_built() {
  for (const auto& [name, d] : vta::backends())
    if (name == "verilator") return true;
  return false;
}

TEST(SweepStages, AnRtlCheckThatCannotRunIsNotRunNeverOk) {
  const std::string why =
      verilator_built() ? "no model (a test)" : "the verilator backend is not built into this binary";
  NetworkSpec ns;
  ns.zoo = "lenet5";
  const PreparedNetwork n = prepare_network(ns, "t.yaml");
  const vta::Config c = vta::load_config(vta::resolve_config_path("vta-1x16x16"));
  const StageResult required = stage_verify(c, n, RtlCheck{true, false, "no model (a test)"});
  EXPECT_EQ(required.status, "failed");
  EXPECT_EQ(required.error, "rtl check not run: " + why);
  EXPECT_EQ(required.check,
            "bit-exact: passed (systemc output bit-exact with the integer reference); rtl: not run (" + why + ")");
  const StageResult optional = stage_verify(c, n, RtlCheck{true, true, "no model (a test)"});
  EXPECT_EQ(optional.status, "ok") << optional.error;
  const std::vector<Check> k = parse_checks(optional.check);
  ASSERT_EQ(k.size(), 2u) << optional.check;
  EXPECT_EQ(k[0].name, "bit-exact");
  EXPECT_EQ(k[0].outcome, "passed");
  EXPECT_EQ(k[1].name, "rtl");
  EXPECT_EQ(k[1].outcome, "optional");
  EXPECT_EQ(k[1].detail, why);
}

TEST(SweepStages, ChecksTextRoundTrips) {
  const std::vector<Check> checks{{"bit-exact", "failed", "systemc OUTPUT MISMATCH; see (this)"},
                                  {"rtl", "not run", "verilator: a; b (c)"}};
  const std::vector<Check> back = parse_checks(checks_text(checks));
  ASSERT_EQ(back.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back[i].name, checks[i].name);
    EXPECT_EQ(back[i].outcome, checks[i].outcome);
    EXPECT_EQ(back[i].detail, checks[i].detail);
  }
  // A store written before the checks had names: one check, judged by its words.
  EXPECT_EQ(parse_checks("systemc output bit-exact; verilator: 5 cycles (DIFFERENT from systemc)")[0].outcome,
            "failed");
  EXPECT_TRUE(parse_checks("").empty());
}

// The whole sweep: the RTL check of a design no model can be made for
// (models on demand off) is counted "not run", fails the point and the exit
// code; with `verilator: optional` it is shown as such and the sweep passes.
TEST(SweepRunner, RtlChecksNotRunAreCountedAndSetTheExitCode) {
  const auto dir = sweep_dir("rtl-not-run");
  const std::string base =
      "name: rtl\nbase: vta-1x16x16\nnetworks: [lenet5]\n"
      "axes:\n  - knob: gemm.pipeline_depth\n    values: [5]\n"
      "objectives:\n  - minimize: cycles\n  - maximize: gops\n";
  const std::string required = write_spec(dir, "r.yaml", base + "funnel:\n  stage3: {top_k: 1, verilator: true}\n");
  const auto r = run_vta("sweep run -q " + required + " --db " + (dir / "r.db").string(), "VTA_RTL_ON_DEMAND=off");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("stage 3 verify  : 1 points (0 from the store), 0 ok, 0 invalid, 1 failed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check bit-exact: 1 passed, 0 failed, 0 not run\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check rtl      : 0 passed, 0 failed, 1 not run\n"), std::string::npos) << r.out;
  const std::string optional = write_spec(dir, "o.yaml", base + "funnel:\n  stage3: {top_k: 1, verilator: optional}\n");
  const std::string db = (dir / "o.db").string(), html = (dir / "o.html").string();
  const auto o = run_vta("sweep run -q " + optional + " --db " + db, "VTA_RTL_ON_DEMAND=off");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("check rtl      : 0 passed, 0 failed, 0 not run, 1 not run (optional)"), std::string::npos)
      << o.out;
  ASSERT_EQ(run_vta("sweep report " + db + " -o " + html).code, 0);
  std::ifstream f(html);
  const std::string page((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // A short cell; the reason on hover.
  EXPECT_NE(page.find(">bit-exact ok, rtl not run (optional)</td>"), std::string::npos);
  EXPECT_NE(page.find("title=\"bit-exact: passed"), std::string::npos);
  EXPECT_NE(
      page.find(verilator_built() ? "VTA_RTL_ON_DEMAND=off" : "the verilator backend is not built into this binary"),
      std::string::npos);
}

}  // namespace
