#include "vta/sweeps/metrics.h"

#include "vta/sweeps/spec.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vta::sweeps {

double Metrics::get(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::numeric_limits<double>::quiet_NaN();
}

bool Metrics::has(const std::string& name) const {
  return std::any_of(values.begin(), values.end(), [&](const auto& kv) { return kv.first == name; });
}

void Metrics::set(const std::string& name, double v) {
  for (auto& [k, old] : values)
    if (k == name) {
      old = v;
      return;
    }
  values.emplace_back(name, v);
}

const std::vector<std::pair<std::string, std::string>>& metric_docs() {
  static const std::vector<std::pair<std::string, std::string>> docs = {
      {"cycles", "device cycles of one inference (the VTA layers; host layers excluded)"},
      {"time_ms",
       "one inference in milliseconds: the device cycles at the design's clock.mhz plus host_ms, the "
       "deterministic host model (host layers, im2col, bands, device copies on the host link; "
       "compiler/include/vta/compiler/schedule/host_cost.h), no wall clock"},
      {"inferences_per_s", "images per second: batch / time"},
      {"gops", "effective giga-operations per second: 2 x all MACs of the network / time"},
      {"gops_per_mac", "gops per MAC unit of the array (batch x block_in x block_out)"},
      {"dram_bytes", "DRAM bytes read and written by the device program"},
      {"util", "GEMM utilisation over the VTA layers: their MACs / (cycles x MACs per cycle), percent"},
      {"macs", "multiply-accumulates of one inference (all layers)"},
  };
  return docs;
}

const std::vector<std::pair<std::string, std::string>>& cycle_model_metric_docs() {
  static const std::vector<std::pair<std::string, std::string>> docs = {
      {"energy_uj",
       "energy of one inference in microjoules (VTA layers; stages 2 and 3 only): the backend's activity "
       "counts through the estimate's technology table, plus the spec device's static power x time"},
  };
  return docs;
}

bool is_cycle_model_metric(const std::string& name) {
  const auto& d = cycle_model_metric_docs();
  return std::any_of(d.begin(), d.end(), [&](const auto& kv) { return kv.first == name; });
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& [k, d] : metric_docs()) v.push_back(k);
    return v;
  }();
  return names;
}

namespace {
// Every metric an objective may name: the network metrics, then the
// estimate's columns (with every option that adds columns).
const std::vector<std::string>& all_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = metric_names();
    for (const auto& [k, d] : cycle_model_metric_docs()) v.push_back(k);
    v.push_back("gops_per_dsp");
    v.push_back("host_ms");  // in the metrics JSON, not a column of the store
    estimate::EstimateOptions o;
    o.device = estimate::devices().front().name;
    for (const auto& [k, val] : estimate::columns(estimate::estimate(default_config(), o)))
      if (std::find(v.begin(), v.end(), k) == v.end()) v.push_back(k);
    return v;
  }();
  return names;
}
}  // namespace

bool is_metric(const std::string& name) {
  const auto& n = all_metric_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

const std::vector<std::string>& known_metrics() { return all_metric_names(); }

estimate::EstimateOptions estimate_options(const SweepSpec& s) {
  estimate::EstimateOptions o;
  o.device = s.device;
  o.family = s.family;
  o.pack_int8 = s.pack_int8;
  return o;
}

std::vector<std::pair<std::string, double>> resource_columns(const Config& c, const estimate::EstimateOptions& o) {
  return estimate::columns(estimate::estimate(c, o));
}

void add_resources(Metrics& m, const std::vector<std::pair<std::string, double>>& columns) {
  for (const auto& [k, v] : columns) m.set(k, v);
  const double dsp = m.get("dsp"), gops = m.get("gops");
  if (std::isfinite(gops) && dsp > 0) m.set("gops_per_dsp", gops / dsp);
}

Metrics network_metrics(const Config& c, double cycles, double dram_bytes, int64_t macs, int64_t vta_macs,
                        int64_t batch, double host_ms) {
  const double mac_units = static_cast<double>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out);
  const double time_ms = cycles / (c.clock.mhz * 1e3) + host_ms;
  const double gops = time_ms > 0 ? 2.0 * static_cast<double>(macs) / (time_ms * 1e6) : 0;
  Metrics m;
  m.values = {{"cycles", cycles},
              {"time_ms", time_ms},
              {"host_ms", host_ms},
              {"inferences_per_s", time_ms > 0 ? static_cast<double>(batch) / (time_ms * 1e-3) : 0},
              {"gops", gops},
              {"gops_per_mac", gops / mac_units},
              {"dram_bytes", dram_bytes},
              {"util", cycles > 0 ? 100.0 * static_cast<double>(vta_macs) / (cycles * mac_units) : 0},
              {"macs", static_cast<double>(macs)}};
  return m;
}

}  // namespace vta::sweeps
