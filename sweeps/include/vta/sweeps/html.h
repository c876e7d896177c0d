#pragma once
// Self-contained HTML reports with plots: Chart.js (Debian's libjs-chart.js,
// embedded at build time) is inlined into each page, so a report opens
// offline. Every page records in its <body> how many charts it drew
// (data-charts), how many canvases hold pixels (data-drawn) and any script
// error (data-errors), which the tests read from headless Chromium.
#include <string>

#include <nlohmann/json.hpp>

#include "vta/compiler/run/report.h"
#include "vta/isa/xml_escape.h"
#include "vta/sweeps/store.h"

namespace vta::sweeps {

/// A page: `body` HTML, then Chart.js, then `data` as the constant DATA and `script`.
std::string html_page(const std::string& title, const std::string& body, const nlohmann::ordered_json& data,
                      const std::string& script);

struct SweepReportOptions {
  std::string heat_x, heat_y;  // axes of the utilization heat map (default: the first two axes)
  size_t layer_points = 6;     // Pareto points whose per-layer bars are drawn
};
/// The sweep report of a store: Pareto scatter, per-layer cycle bars of the
/// Pareto points, utilization heat map, the funnel, the stage-1 error table.
std::string sweep_report_html(const Store& store, const SweepReportOptions& o);

/// The per-run report of `vta run --model ... --report-html`.
std::string run_report_html(const compiler::Report& r);

}  // namespace vta::sweeps
