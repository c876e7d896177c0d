#pragma once
// A sweep spec: a design space over config knobs, the networks to run on
// each design, the objectives, a search strategy and the funnel of stages.
// Parsed once, strictly (unknown keys, wrong types and impossible axis
// values are vta::Error naming the file, line and key), then read-only.
// The format is documented in sweeps/README.md; examples in sweeps/examples/.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vta/isa/config.h"

namespace vta::sweeps {

/// One axis of the space: a knob and its values, or a zipped group of knobs
/// whose values advance together. values[i][k] is the i-th setting of keys[k],
/// as knob value text ("32KiB", "true", "300").
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  int line = 0;
};

/// A network every design point runs: a zoo name or an ONNX file.
struct NetworkSpec {
  std::string zoo;   // zoo name ("resnet18", "conv:16,8,8,16,3,1,1"), or empty
  std::string onnx;  // path of an ONNX model (resolved against the spec's folder), or empty
  int64_t batch = 1, image = 0;
  uint32_t seed = 1;
  /// Inputs of the accuracy metrics (top1_agree, sqnr_db); 0: not measured.
  /// Unless the network sets it, load_spec makes it kAccuracyInputs when an
  /// objective is an accuracy metric, else 0.
  int64_t accuracy = -1;
  static constexpr int64_t kAccuracyInputs = 16;
  int line = 0;
  /// Stable text identifying the network in the store ("resnet18", "resnet18/b4/i112/s2").
  std::string key() const;
};

/// Metrics a point reports, usable as objectives and in constraints.
/// cycles, time_ms, inferences_per_s, gops, gops_per_mac, dram_bytes, util,
/// plus every resource column of the estimate (stage 0) once it is built in.
struct Objective {
  std::string metric;
  bool maximize = false;
};

struct Constraint {
  std::string expr;
  int line = 0;
};

enum class Strategy { Grid, Random, Evolve };

/// Which points go on to the slower stages.
/// funnel.stage2.max_points when the spec does not say: about an hour of
/// stage 2 on ResNet-50 on two cores.
inline constexpr int64_t kDefaultStage2MaxPoints = 500;

struct Funnel {
  // Stage 1 stores its per-layer rows for every point with `stage1:
  // {layers: all}`; else only for the points stage 2 takes (estimated
  // again, with their rows, before stage 2 runs them): a million points'
  // rows would be most of the store and of stage 1's time.
  bool stage1_layers_all = false;
  // Stage 2 (compile + timing-only SystemC): the union of the best `top_k`
  // per objective and every point within `within_pct` % of the stage-1
  // Pareto front (-1: off), per network. Both off: every valid point.
  int64_t stage2_top_k = 0;
  double stage2_within_pct = -1;
  // The most points stage 2 may run: a larger selection is refused before
  // stage 2 starts, with how many each rule selected (top_k counts per
  // objective and per network, so three objectives select up to 3 x top_k).
  int64_t stage2_max_points = kDefaultStage2MaxPoints;
  // Stage 3 (values on, bit-exact check; RTL cycle agreement with `verilator`):
  // up to `stage3_top_k` points of the stage-2 Pareto front (0: no stage 3).
  int64_t stage3_top_k = 0;
  bool stage3_verilator = false;
  // `verilator: optional`: an RTL check that cannot run (no model can be
  // built) is shown as "not run, optional" and leaves the point ok; with
  // `verilator: true` it fails the point.
  bool stage3_verilator_optional = false;
  // Stages 2 and 3 compile with schedules tuned on the SystemC model: the
  // best `tune` tiles of each distinct layer measured (sweeps/tune.h, its
  // cache shared with `vta run --tune`); 0: the cost model's pick.
  int64_t tune = 0;
  // Stage 4 (place and route of stage 3's verified points on the spec's
  // ECP5 device with yosys + nextpnr-ecp5; sweeps/stage_pnr.h): `pnr: true`
  // runs it, and a point whose flow cannot run fails; `pnr: optional` shows
  // such a point as "not run, optional" and leaves it ok.
  bool stage4_pnr = false, stage4_pnr_optional = false;
  int64_t stage4_seed = 1;             // nextpnr's placement seed
  double stage4_timeout_s = 3 * 3600;  // per design
};

/// The most points one run lists (a grid, or random samples): each is held
/// in memory with its results.
inline constexpr int64_t kMaxListedPoints = 100'000'000;

struct SweepSpec {
  std::string name;
  std::string source;  // the file, for messages
  std::string text;    // the file's text, stored with the results
  std::string base;    // resolved path of the base config
  std::string base_text;
  std::vector<Override> set;   // fixed overrides on the base
  std::vector<int> set_lines;  // the spec line of each of `set`, for messages
  std::vector<Axis> axes;      // combined as a cartesian product
  std::vector<Constraint> constraints;
  std::vector<NetworkSpec> networks;
  std::vector<Objective> objectives;
  Strategy strategy = Strategy::Grid;
  int64_t samples = 0;      // random: points drawn; evolve: population size
  int64_t generations = 0;  // evolve
  uint64_t seed = 1;
  Funnel funnel;
  double timeout_s = 300;  // per point and stage
  // Stage 0's FPGA estimate (estimate/): a named device budget ("" none),
  // a family ("" the device's, or xc7) and DSP packing of int8 pairs.
  std::string device, family;
  bool pack_int8 = true;
};

/// What a spec's stored results depend on, part by part: (part name, its
/// canonical text) for the base config, the fixed overrides, the axes, the
/// constraints, the networks, the strategy (with the objectives when it is
/// evolve, whose visits they steer), the estimate's target and the timeout.
/// Two specs with equal parts visit the same points with the same results;
/// comments, the name, the funnel and the objectives of a grid or random
/// search are not among them.
std::vector<std::pair<std::string, std::string>> result_basis(const SweepSpec& s);

/// Loads and checks a spec file. Throws vta::Error naming file:line and key.
SweepSpec load_spec(const std::string& path);
/// Same from text; `source` names it and relative paths resolve against `dir`.
SweepSpec load_spec_text(const std::string& text, const std::string& source, const std::string& dir = ".");

}  // namespace vta::sweeps
