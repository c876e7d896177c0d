#pragma once
// The stages of the multi-fidelity funnel, each one function from a design
// point (a config and a prepared network) to a row of results:
//   0  config: load the design, check the spec's constraints (runner.cpp)
//   1  analytic: the compiler's cost model per layer, no instructions
//   2  systemc: compile and run timing-only on the SystemC cycle model
//   3  verify: values on, output bit-exact against the integer reference,
//      and (optionally) the RTL on Verilator for cycle agreement
//   4  pnr: place and route on an ECP5 device, nextpnr's Fmax against the
//      clock (stage_pnr.h)
// The runner only schedules them (runner.h).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"
#include "vta/sweeps/metrics.h"
#include "vta/sweeps/spec.h"

namespace vta::sweeps {

constexpr int kStageConfig = 0, kStageAnalytic = 1, kStageSystemC = 2, kStageVerify = 3, kStagePnr = 4;
constexpr int kStages = 5;
const char* stage_name(int stage);

struct LayerRow {
  std::string name, op, device;
  int64_t macs = 0;
  double cycles = 0, load = 0, gemm = 0, alu = 0, store = 0, stall = 0, dram_bytes = 0;
  double energy_uj = -1;  // stages 2 and 3, VTA layers; < 0: not measured (stage 1, host layers)
};

/// One check of stage 3: "bit-exact" (the SystemC model's output against the
/// integer reference) or "rtl" (the verilator backend: same output and
/// cycles as SystemC); or stage 4's "pnr" (nextpnr's Fmax reaches clock.mhz).
struct Check {
  std::string name;
  std::string outcome;  // passed, failed, not run, optional (an optional check that did not run)
  std::string detail;   // what was measured, or why it did not run
};
/// The stored form of a point's checks (StageResult::check):
/// "NAME: OUTCOME (DETAIL); NAME: OUTCOME (DETAIL)".
std::string checks_text(const std::vector<Check>& checks);
/// The checks in a stored check text; a text of another form (a store
/// written before the checks had names) is one check named "check" whose
/// outcome is "failed" when the text says MISMATCH or DIFFERENT, else
/// "passed".
std::vector<Check> parse_checks(const std::string& text);

/// One point's result at one stage.
struct StageResult {
  int stage = 0;
  std::string status = "ok";  // ok, invalid (the design or a constraint), failed, timeout
  std::string error;          // why, when not ok
  std::string check;          // stage 3: what was checked and its outcome; else ""
  Metrics metrics;
  std::vector<LayerRow> layers;
  double wall_s = 0;
  nlohmann::ordered_json to_json() const;
  static StageResult from_json(const nlohmann::json& j);
};

/// A network built (zoo) or imported (ONNX) once per sweep, with the input
/// every point runs on.
struct PreparedNetwork {
  NetworkSpec spec;
  compiler::Graph graph;
  compiler::Tensor input;
};
/// Throws vta::Error naming the spec file and line of the network. A zoo
/// network comes from the zoo cache (entry kAnyConfig) unless `use_cache` is
/// false.
PreparedNetwork prepare_network(const NetworkSpec& n, const std::string& spec_source, bool use_cache = true);

/// `n` at element widths (dtype.inp_bits a, dtype.wgt_bits w): a zoo
/// network built at them (once per process and widths, kept), any other
/// as prepared. A sweep's parent builds the widths of its space before it
/// forks the workers (sweep_widths()), so that no worker builds them again.
const PreparedNetwork& network_at_widths(const PreparedNetwork& n, int a, int w);
/// `layers`: with a row per layer (false: the totals alone).
StageResult stage_analytic(const Config& c, const PreparedNetwork& n, bool layers = true);
/// Stages 2 and 3 also record energy per layer and `energy_uj` per inference
/// (sweeps/layer_energy.h: the default technology table; static power
/// `static_w` x time when > 0, the spec device's).
/// `tune` > 0: with the tiles tune_network() keeps among `tune` candidates
/// per layer (the cache at tune_cache_path()); metric `tune_systemc_runs`.
StageResult stage_systemc(const Config& c, const PreparedNetwork& n, double static_w = 0, int tune = 0);
/// What stage 3 asks of the RTL: `run` the verilator check; `optional`: a
/// check that cannot run leaves the point ok; `unavailable`: why it cannot
/// run (the model's build failed before the stage), "" to try.
struct RtlCheck {
  bool run = false, optional = false;
  std::string unavailable;
};
/// Status "failed" when a check failed, or when the RTL check was asked for,
/// is not optional and did not run (check says why).
StageResult stage_verify(const Config& c, const PreparedNetwork& n, const RtlCheck& rtl, double static_w = 0,
                         int tune = 0);

}  // namespace vta::sweeps
