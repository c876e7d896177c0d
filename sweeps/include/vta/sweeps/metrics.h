#pragma once
// The metrics of a design point: what objectives, constraints, Pareto fronts
// and reports refer to by name. One list, metrics.def; stages fill the values.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vta/estimate/estimate.h"
#include "vta/isa/config.h"

namespace vta::sweeps {

/// Named values of one point and stage, in metrics.def order for the
/// network metrics, then any others (resource columns).
struct Metrics {
  std::vector<std::pair<std::string, double>> values;
  /// The value of `name`; NaN when absent.
  double get(const std::string& name) const;
  bool has(const std::string& name) const;
  void set(const std::string& name, double v);
};

/// When a metric exists and who computes it (metrics.def).
enum class MetricFrom : uint8_t { ANALYTIC, CYCLE_MODEL, ESTIMATE, PLACE_ROUTE, ACCURACY };
/// One line of metrics.def.
struct MetricInfo {
  const char* name;
  MetricFrom from;
  int column;  // schema version of the store that made it a column of `results`; 0: none
  const char* doc;
};
/// Every metric of metrics.def, in file order.
const std::vector<MetricInfo>& metrics();
/// The metrics.def line of `name`; nullptr for an estimate column or an unknown name.
const MetricInfo* find_metric(const std::string& name);

/// The ANALYTIC metrics that are columns of the store (cycles, time_ms,
/// inferences_per_s, gops, gops_per_mac, dram_bytes, util, macs, ...), in
/// file order: the leading metric columns of an export.
const std::vector<std::string>& metric_names();
bool is_metric(const std::string& name);
/// Metrics only the cycle-model stages (2 systemc, 3 verify) measure, from
/// the backend's activity counters (CYCLE_MODEL in metrics.def, e.g.
/// `energy_uj`: sweeps/layer_energy.h). Stage 1 has no activity counts, so it
/// cannot rank on them (load_spec rejects a spec whose stage 1 would).
bool is_cycle_model_metric(const std::string& name);
/// Metrics of stage 4's place and route (PLACE_ROUTE in metrics.def):
/// measured after the funnel's last selection, so no objective may name them.
bool is_place_route_metric(const std::string& name);
/// Every name is_metric() accepts: metric_names(), the CYCLE_MODEL and
/// ESTIMATE metrics, the other ANALYTIC ones (host_ms), then the estimate's
/// resource columns.
const std::vector<std::string>& known_metrics();

struct SweepSpec;
/// The estimate options of a spec (device, family, packing).
estimate::EstimateOptions estimate_options(const SweepSpec& s);
/// The estimate's columns for `c` under `o`.
std::vector<std::pair<std::string, double>> resource_columns(const Config& c, const estimate::EstimateOptions& o);
/// Adds the columns to `m`, and gops_per_dsp when `m` has gops.
void add_resources(Metrics& m, const std::vector<std::pair<std::string, double>>& columns);

/// What one inference of a network took: the inputs of the ANALYTIC metrics.
struct NetworkRun {
  double cycles = 0;      // device cycles (the VTA layers)
  double dram_bytes = 0;  // read and written by the device program
  int64_t macs = 0;       // all layers
  int64_t vta_macs = 0;   // the VTA layers
  int64_t batch = 1;      // images per inference
  double host_ms = 0;     // the host model (host_cost.h)
};
/// The ANALYTIC metrics of metrics.def for `in` on `c`, in file order.
Metrics network_metrics(const Config& c, const NetworkRun& in);

}  // namespace vta::sweeps
