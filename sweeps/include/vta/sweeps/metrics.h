#pragma once
// The metrics of a design point: what objectives, constraints, Pareto fronts
// and reports refer to by name. One list, here; stages fill the values.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vta/estimate/estimate.h"
#include "vta/isa/config.h"

namespace vta::sweeps {

/// Named values of one point and stage, in metric_names() order for the
/// network metrics, then any others (resource columns).
struct Metrics {
  std::vector<std::pair<std::string, double>> values;
  /// The value of `name`; NaN when absent.
  double get(const std::string& name) const;
  bool has(const std::string& name) const;
  void set(const std::string& name, double v);
};

/// cycles, time_ms, inferences_per_s, gops, gops_per_mac, dram_bytes, util,
/// macs, gops_per_dsp, then the estimate's columns (estimate::columns():
/// lut, ff, dsp, bram36, uram, fmax_mhz, fits, util_* ...).
const std::vector<std::string>& metric_names();
/// One-line meaning of each metric (for the README and `vta sweep metrics`).
const std::vector<std::pair<std::string, std::string>>& metric_docs();
bool is_metric(const std::string& name);
/// Metrics only the cycle-model stages (2 systemc, 3 verify) measure, from
/// the backend's activity counters: `energy_uj` (one inference, the VTA
/// layers, sweeps/layer_energy.h). Stage 1 has no activity counts, so it
/// cannot rank on them (load_spec rejects a spec whose stage 1 would).
const std::vector<std::pair<std::string, std::string>>& cycle_model_metric_docs();
bool is_cycle_model_metric(const std::string& name);
/// Every name is_metric() accepts (network metrics, energy_uj, gops_per_dsp,
/// host_ms (network_metrics()' host model, kept in the metrics JSON), resource columns).
const std::vector<std::string>& known_metrics();

struct SweepSpec;
/// The estimate options of a spec (device, family, packing).
estimate::EstimateOptions estimate_options(const SweepSpec& s);
/// The estimate's columns for `c` under `o`.
std::vector<std::pair<std::string, double>> resource_columns(const Config& c, const estimate::EstimateOptions& o);
/// Adds the columns to `m`, and gops_per_dsp when `m` has gops.
void add_resources(Metrics& m, const std::vector<std::pair<std::string, double>>& columns);

/// The network metrics of one inference of `batch` images taking `cycles`
/// device cycles on `c` and `host_ms` of the host model (host_cost.h), with
/// `macs` MACs in all and `vta_macs` on VTA. time_ms is both together.
Metrics network_metrics(const Config& c, double cycles, double dram_bytes, int64_t macs, int64_t vta_macs,
                        int64_t batch, double host_ms);

}  // namespace vta::sweeps
