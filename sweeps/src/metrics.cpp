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

const std::vector<MetricInfo>& metrics() {
  static const std::vector<MetricInfo> table = {
#define VTA_METRIC(name, from, column, expr, doc) {#name, MetricFrom::from, column, doc},
#include "vta/sweeps/metrics.def"
#undef VTA_METRIC
  };
  return table;
}

const MetricInfo* find_metric(const std::string& name) {
  for (const MetricInfo& m : metrics())
    if (name == m.name) return &m;
  return nullptr;
}

bool is_cycle_model_metric(const std::string& name) {
  const MetricInfo* m = find_metric(name);
  return m && m->from == MetricFrom::CYCLE_MODEL;
}

bool is_place_route_metric(const std::string& name) {
  const MetricInfo* m = find_metric(name);
  return m && m->from == MetricFrom::PLACE_ROUTE;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const MetricInfo& m : metrics())
      if (m.from == MetricFrom::ANALYTIC && m.column > 0) v.push_back(m.name);
    return v;
  }();
  return names;
}

namespace {
// Every metric an objective may name: metrics.def's (the columns of an
// export first), then the estimate's columns (with every option that adds
// columns).
const std::vector<std::string>& all_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = metric_names();
    for (const MetricFrom from : {MetricFrom::CYCLE_MODEL, MetricFrom::ACCURACY, MetricFrom::ESTIMATE,
                                  MetricFrom::ANALYTIC, MetricFrom::PLACE_ROUTE})
      for (const MetricInfo& m : metrics())
        if (m.from == from && std::find(v.begin(), v.end(), m.name) == v.end()) v.push_back(m.name);
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
  [[maybe_unused]] auto get = [&](const char* name) { return m.get(name); };
#define VTA_METRIC(name, from, column, expr, doc) VTA_METRIC_##from(name, expr)
#define VTA_METRIC_ANALYTIC(name, expr)
#define VTA_METRIC_CYCLE_MODEL(name, expr)
#define VTA_METRIC_PLACE_ROUTE(name, expr)
#define VTA_METRIC_ACCURACY(name, expr)
#define VTA_METRIC_ESTIMATE(name, expr) \
  if (const double v = (expr); std::isfinite(v)) m.set(#name, v);
#include "vta/sweeps/metrics.def"
#undef VTA_METRIC
#undef VTA_METRIC_ANALYTIC
#undef VTA_METRIC_CYCLE_MODEL
#undef VTA_METRIC_PLACE_ROUTE
#undef VTA_METRIC_ACCURACY
#undef VTA_METRIC_ESTIMATE
}

Metrics network_metrics(const Config& c, const NetworkRun& in) {
  const double mac_units = static_cast<double>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out);
  Metrics m;
  // Each ANALYTIC line becomes a local `const double name = expr;`, so a
  // line may use the ones above it.
#define VTA_METRIC(name, from, column, expr, doc) VTA_METRIC_##from(name, expr)
#define VTA_METRIC_ANALYTIC(name, expr) \
  const double name = (expr);           \
  m.values.emplace_back(#name, name);
#define VTA_METRIC_CYCLE_MODEL(name, expr)
#define VTA_METRIC_PLACE_ROUTE(name, expr)
#define VTA_METRIC_ACCURACY(name, expr)
#define VTA_METRIC_ESTIMATE(name, expr)
#include "vta/sweeps/metrics.def"
#undef VTA_METRIC
#undef VTA_METRIC_ANALYTIC
#undef VTA_METRIC_CYCLE_MODEL
#undef VTA_METRIC_PLACE_ROUTE
#undef VTA_METRIC_ACCURACY
#undef VTA_METRIC_ESTIMATE
  (void)mac_units;
  return m;
}

}  // namespace vta::sweeps
