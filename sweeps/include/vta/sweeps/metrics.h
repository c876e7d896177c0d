#pragma once
// The metrics of a design point: what objectives, constraints, Pareto fronts
// and reports refer to by name. One list, here; stages fill the values.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

/// cycles, time_ms, inferences_per_s, gops, gops_per_mac, dram_bytes, util, macs.
const std::vector<std::string>& metric_names();
/// One-line meaning of each metric (for the README and `vta sweep metrics`).
const std::vector<std::pair<std::string, std::string>>& metric_docs();
bool is_metric(const std::string& name);

/// The network metrics of one inference of `batch` images taking `cycles`
/// device cycles on `c`, with `macs` MACs in all and `vta_macs` on VTA.
Metrics network_metrics(const Config& c, double cycles, double dram_bytes, int64_t macs, int64_t vta_macs,
                        int64_t batch);

}  // namespace vta::sweeps
