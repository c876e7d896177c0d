#include "report_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/xml_escape.h"
#include "vta/sweeps/space.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/wide.h"

namespace vta::sweeps {

namespace {

// The checks cell of a Pareto table (stage 3's, then stage 4's place and
// route when it ran): per check its name and a short outcome (ok, FAILED,
// NOT RUN, optional), the details on hover (title); a point whose stage 3
// failed before its checks shows its status.
std::string checks_cell(const StageResult& r, const StageResult* pnr) {
  std::vector<Check> checks = parse_checks(r.check);
  if (pnr)
    for (Check& k : parse_checks(pnr->check)) checks.push_back(std::move(k));
  std::string cell, title;
  for (const Check& k : checks) {
    const std::string brief = k.outcome == "passed"     ? "ok"
                              : k.outcome == "optional" ? "not run (optional)"
                              : k.outcome == "not run"  ? "NOT RUN"
                                                        : "FAILED";
    cell += fmt::format("{}{} {}", cell.empty() ? "" : ", ", k.name, brief);
    title += fmt::format("{}{}: {}{}", title.empty() ? "" : "\n", k.name, k.outcome,
                         k.detail.empty() ? "" : " (" + k.detail + ")");
  }
  if (checks.empty()) {
    cell = r.status;
    title = r.error;
  }
  return fmt::format("<td class=l title=\"{}\">{}</td>", xml_escape(title), xml_escape(cell));
}

// A numeric cell: shown with 4 significant digits, sorted by its value.
std::string num_cell(double v) {
  if (!std::isfinite(v)) return "<td data-v=\"\">-</td>";
  return std::abs(v) >= 1000 ? fmt::format("<td data-v=\"{:.17g}\">{:.0f}</td>", v, v)
                             : fmt::format("<td data-v=\"{:.17g}\">{:.4g}</td>", v, v);
}

// A header: escaped, with a line-break opportunity after each '.' and '_'
// of a knob or metric name, so that a table of many columns fits the page.
std::string header(const std::string& name) {
  std::string h;
  for (const char c : name) {
    h += xml_escape(std::string(1, c));
    if (c == '.' || c == '_') h += "<wbr>";
  }
  return h;
}

// The estimate's resource columns a Pareto table shows when a row uses them.
constexpr const char* kResources[] = {"lut", "ff", "dsp", "bram36", "uram", "alm", "m20k", "ebr"};

}  // namespace

std::string knobs_label(const std::string& knobs_json) {
  const auto k = nlohmann::ordered_json::parse(knobs_json, nullptr, false);
  std::string s;
  if (k.is_object())
    for (auto it = k.begin(); it != k.end(); ++it)
      s += (s.empty() ? "" : " ") + it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump());
  return s;
}

std::string pareto_table_html(const std::vector<ParetoRow>& rows, const std::vector<Objective>& objs,
                              const SweepSpec* spec) {
  std::vector<std::string> knob_keys;
  if (!rows.empty()) {
    const auto k = nlohmann::ordered_json::parse(rows[0].point->info.knobs);
    for (auto it = k.begin(); it != k.end(); ++it) knob_keys.push_back(it.key());
  }
  std::vector<std::string> resources;
  for (const char* r : kResources)
    for (const auto& row : rows)
      if (row.result->metrics.get(r) > 0) {
        resources.push_back(r);
        break;
      }
  std::string h = "<table class=\"sortable\"><thead><tr><th title=\"index in the design space\">point</th>";
  for (const auto& k : knob_keys) h += "<th>" + header(k) + "</th>";
  for (const auto& ob : objs)
    h += fmt::format("<th title=\"{}\">{} {}</th>", ob.maximize ? "higher is better" : "lower is better",
                     header(ob.metric), ob.maximize ? "&#8593;" : "&#8595;");
  // The design's clock, unless it is a swept knob (a column already).
  const bool clock_column = spec && std::find(knob_keys.begin(), knob_keys.end(), "clock.mhz") == knob_keys.end();
  if (clock_column) h += "<th>clock MHz</th>";
  h += "<th title=\"the estimate's Fmax\">" + header("fmax_mhz") + "</th>";
  for (const auto& r : resources) h += "<th>" + std::string(r) + "</th>";
  h += "<th class=l>checks (stages 3, 4)</th><th class=l>reproduce</th></tr></thead><tbody>\n";
  for (const auto& row : rows) {
    const auto knobs = nlohmann::ordered_json::parse(row.point->info.knobs);
    h += fmt::format("<tr><td data-v=\"{}\">{}</td>", row.point->info.index, row.point->info.index);
    for (const auto& k : knob_keys) {
      const std::string text = knobs.contains(k) ? knobs[k].get<std::string>() : "";
      const auto v = typed_knob(k, text);
      h += v.is_number() ? fmt::format("<td data-v=\"{}\">{}</td>", v.dump(), xml_escape(text))
                         : fmt::format("<td class=l>{}</td>", xml_escape(text));
    }
    for (const auto& ob : objs) h += num_cell(row.result->metrics.get(ob.metric));
    if (clock_column) {
      double mhz = NAN;
      try {
        mhz = Space(*spec).config(row.point->info.index).clock.mhz;
      } catch (const vta::Error&) {
      }
      h += num_cell(mhz);
    }
    h += num_cell(row.result->metrics.get("fmax_mhz"));
    for (const auto& r : resources) h += num_cell(row.result->metrics.get(r));
    h += row.verify ? checks_cell(*row.verify, row.pnr) : "<td class=l>no stage 3</td>";
    h += fmt::format(
        "<td class=l><details><summary>knobs, run</summary><pre>{}</pre><pre>{}</pre></details></td></tr>\n",
        xml_escape(knobs.dump(1)), xml_escape(row.run.empty() ? "(the spec no longer loads)" : row.run));
  }
  return h + "</tbody></table>\n";
}

std::string invalid_reason(const std::string& raw) {
  // Without the spec line of the knob the sweep set ("s.yaml:12: axis
  // alu.lanes: "; "--set alu.lanes: " in stores written before).
  const std::string error = without_origin(raw);
  // A constraint names its expression and then the values of this point.
  if (error.starts_with("constraint '"))
    if (const auto end = error.find("' (", 12); end != std::string::npos)
      return error.substr(0, end + 1) + (error.find(" is false", end) != std::string::npos ? " is false" : "");
  static const std::regex number("[0-9]+(\\.[0-9]+)?([KMG]iB)?");
  return std::regex_replace(error, number, "N");
}

nlohmann::ordered_json funnel_data(const std::vector<StoredPoint>& points) {
  int64_t valid = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, pnr = 0;
  std::map<std::string, int64_t> invalid;  // reason -> points
  for (const auto& p : points) {
    auto ok = [&](int st) {
      auto it = p.stages.find(st);
      return it != p.stages.end() && it->second.status == "ok";
    };
    valid += ok(0), s1 += ok(1), s2 += ok(2), s3 += ok(3), s4 += ok(kStagePnr);
    pnr += p.stages.count(kStagePnr);
    if (auto it = p.stages.find(kStageConfig); it != p.stages.end() && it->second.status != "ok")
      ++invalid[invalid_reason(it->second.error)];
  }
  nlohmann::ordered_json labels = nlohmann::ordered_json::array(), counts = labels, colors = labels;
  auto bar = [&](const std::string& label, int64_t n, const char* color) {
    labels.push_back(fmt::format("{} ({})", label, n));
    counts.push_back(n);
    colors.push_back(color);
  };
  bar("visited", static_cast<int64_t>(points.size()), "#4e79a7");
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  for (const auto& [reason, n] : invalid) {
    // Chart.js gives the axis labels a third of the canvas: the whole reason is in `reasons`.
    bar("invalid: " + (reason.size() > 56 ? reason.substr(0, 53) + "..." : reason), n, "#e15759");
    reasons.push_back({reason, n});
  }
  bar("valid designs", valid, "#4e79a7");
  bar("stage 1 analytic", s1, "#4e79a7");
  bar("stage 2 SystemC", s2, "#4e79a7");
  bar("stage 3 verified", s3, "#59a14f");
  if (pnr > 0) bar("stage 4 placed and routed, clock met", s4, "#59a14f");  // a spec with funnel.stage4
  return {{"labels", labels}, {"counts", counts}, {"colors", colors}, {"reasons", reasons}};
}

}  // namespace vta::sweeps
