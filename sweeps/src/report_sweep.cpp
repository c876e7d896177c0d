// The sweep report (html.h): one self-contained page from a results store.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report_parts.h"
#include "vta/isa/error.h"
#include "vta/sweeps/export.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/pareto.h"
#include "vta/sweeps/show.h"

namespace vta::sweeps {

namespace {

// The objectives of the stored spec (the report needs nothing else of it).
std::vector<Objective> stored_objectives(const std::string& spec_text) {
  std::vector<Objective> out;
  try {
    const YAML::Node root = YAML::Load(spec_text);
    if (root["objectives"])
      for (const auto& o : root["objectives"])
        out.push_back(o["maximize"] ? Objective{o["maximize"].as<std::string>(), true}
                                    : Objective{o["minimize"].as<std::string>(), false});
  } catch (const YAML::Exception&) {
  }
  if (out.empty()) out.push_back({"cycles", false});
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}", v) : "-"; }

}  // namespace

std::string sweep_report_html(const Store& store, const SweepReportOptions& o) {
  const auto info = store.info();
  const auto spec = store.spec();  // for the clock and the run line of Pareto points; nullopt: a moved base
  const std::vector<StoredPoint> points = store.load(true);
  std::vector<Objective> objs = stored_objectives(info ? info->spec_text : "");
  // The metrics plotted: every objective (one scatter per pair of them), else
  // the one objective against DRAM bytes.
  std::vector<Objective> axes = objs;
  if (axes.size() == 1) axes.push_back({axes[0].metric == "dram_bytes" ? "cycles" : "dram_bytes", false});

  nlohmann::ordered_json d;
  d["axes"] = nlohmann::ordered_json::array();
  for (const auto& a : axes)
    d["axes"].push_back(a.metric + (a.maximize ? " (higher is better)" : " (lower is better)"));
  d["pairs"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = i + 1; j < axes.size(); ++j) d["pairs"].push_back({i, j});

  d["funnel"] = funnel_data(points);

  // Per network: the Pareto front among the points measured at the highest
  // fidelity any of them reached (stage 2 when the funnel ran it: estimates
  // and measurements are not compared with each other); the points known only
  // from stage 1 are drawn apart.
  auto result_at = [](const StoredPoint& p, int st) -> const StageResult* {
    auto it = p.stages.find(st);
    return it != p.stages.end() && it->second.status == "ok" ? &it->second : nullptr;
  };
  auto values = [&](const StageResult& r) {
    nlohmann::ordered_json v = nlohmann::ordered_json::array();
    for (const auto& a : axes) v.push_back(r.metrics.get(a.metric));
    return v;
  };
  std::map<std::string, std::vector<const StoredPoint*>> by_net;
  for (const auto& p : points)
    if (best_result(p)) by_net[p.info.network].push_back(&p);
  d["networks"] = nlohmann::ordered_json::array();
  std::vector<const StoredPoint*> pareto_points;
  std::string pareto_tables;
  for (const auto& [net, all] : by_net) {
    const int fs =
        std::any_of(all.begin(), all.end(), [&](const StoredPoint* p) { return result_at(*p, kStageSystemC); })
            ? kStageSystemC
            : kStageAnalytic;
    std::vector<const StoredPoint*> ps;
    nlohmann::ordered_json nj{{"name", net},
                              {"stage", fs},
                              {"points", nlohmann::ordered_json::array()},
                              {"estimates", nlohmann::ordered_json::array()}};
    for (const auto* p : all) {
      if (result_at(*p, fs)) {
        ps.push_back(p);
      } else if (const StageResult* a = result_at(*p, kStageAnalytic)) {
        nj["estimates"].push_back({{"v", values(*a)}, {"label", knobs_label(p->info.knobs)}, {"stage", 1}});
      }
    }
    std::vector<std::vector<double>> rows;
    for (const auto* p : ps) rows.push_back(oriented(result_at(*p, fs)->metrics, objs));
    std::vector<size_t> front = pareto_front(rows);
    const std::set<size_t> on(front.begin(), front.end());
    for (size_t i = 0; i < ps.size(); ++i)
      nj["points"].push_back({{"v", values(*result_at(*ps[i], fs))},
                              {"pareto", on.count(i) > 0},
                              {"stage", fs},
                              {"label", knobs_label(ps[i]->info.knobs)}});
    d["networks"].push_back(nj);
    // Best first in the first objective.
    std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) { return rows[a] < rows[b]; });
    std::vector<ParetoRow> table;
    for (size_t i : front) {
      table.push_back({ps[i], result_at(*ps[i], fs), nullptr, ""});
      if (auto v = ps[i]->stages.find(kStageVerify); v != ps[i]->stages.end()) table.back().verify = &v->second;
      if (auto v = ps[i]->stages.find(kStagePnr); v != ps[i]->stages.end()) table.back().pnr = &v->second;
      if (spec) table.back().run = reproduce_line(*spec, ps[i]->info.index, net);
      pareto_points.push_back(ps[i]);
    }
    pareto_tables += fmt::format("<h3>{}: {} Pareto points of {} measured at stage {} ({})</h3>\n", xml_escape(net),
                                 front.size(), ps.size(), fs, stage_name(fs));
    pareto_tables += pareto_table_html(table, objs, spec ? &*spec : nullptr);
  }

  // Per-layer cycle bars of Pareto points measured on a cycle model.
  d["layer_points"] = nlohmann::ordered_json::array();
  for (const auto* p : pareto_points) {
    if (d["layer_points"].size() >= o.layer_points) break;
    auto it = p->stages.find(kStageVerify);
    if (it == p->stages.end() || it->second.status != "ok") it = p->stages.find(kStageSystemC);
    if (it == p->stages.end() || it->second.status != "ok") continue;
    nlohmann::ordered_json lp{{"title", p->info.network + " " + knobs_label(p->info.knobs)},
                              {"layers", nlohmann::ordered_json::array()}};
    for (const auto& l : it->second.layers)
      if (l.device == "vta") lp["layers"].push_back({l.name, l.load, l.gemm, l.alu, l.store, l.stall, l.cycles});
    d["layer_points"].push_back(lp);
  }

  // Utilization heat map over two axes: the best utilization of the points in each cell.
  std::vector<std::string> axis_keys;
  if (!points.empty()) {
    const auto first = nlohmann::ordered_json::parse(points[0].info.knobs);
    for (auto it = first.begin(); it != first.end(); ++it) axis_keys.push_back(it.key());
  }
  const std::string hx = !o.heat_x.empty() ? o.heat_x : axis_keys.size() > 0 ? axis_keys[0] : "";
  const std::string hy = !o.heat_y.empty() ? o.heat_y : axis_keys.size() > 1 ? axis_keys[1] : "";
  for (const auto& [opt, key] : {std::pair{"--heat-x", o.heat_x}, std::pair{"--heat-y", o.heat_y}})
    if (!key.empty() && !points.empty() && std::find(axis_keys.begin(), axis_keys.end(), key) == axis_keys.end())
      fail("{} {}: not an axis of this sweep (its axes: {})", opt, key, fmt::join(axis_keys, ", "));
  auto text = [](const nlohmann::ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  if (!hx.empty() && !hy.empty()) {
    std::vector<std::string> xs, ys;
    std::map<std::pair<std::string, std::string>, double> cell;
    for (const auto& p : points) {
      const StageResult* b = best_result(p);
      if (!b) continue;
      const auto k = nlohmann::ordered_json::parse(p.info.knobs);
      if (!k.contains(hx) || !k.contains(hy)) continue;
      const std::string x = text(k[hx]), y = text(k[hy]);
      if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
      if (std::find(ys.begin(), ys.end(), y) == ys.end()) ys.push_back(y);
      double& c = cell.try_emplace({x, y}, 0.0).first->second;
      c = std::max(c, b->metrics.get("util"));
    }
    nlohmann::ordered_json cells = nlohmann::ordered_json::array();
    for (const auto& [xy, v] : cell)
      cells.push_back({std::find(xs.begin(), xs.end(), xy.first) - xs.begin(),
                       std::find(ys.begin(), ys.end(), xy.second) - ys.begin(), v});
    d["heat"] = {{"x", hx}, {"y", hy}, {"xs", xs}, {"ys", ys}, {"cells", cells}};
  }

  // Stage-1 error against SystemC, per point and per layer.
  std::vector<double> point_err;
  std::map<std::string, std::vector<double>> layer_err;  // "index name" -> |error| %
  std::vector<std::string> layer_order;
  for (const auto& p : points) {
    auto a = p.stages.find(kStageAnalytic), s = p.stages.find(kStageSystemC);
    if (a == p.stages.end() || s == p.stages.end() || a->second.status != "ok" || s->second.status != "ok") continue;
    const double ca = a->second.metrics.get("cycles"), cs = s->second.metrics.get("cycles");
    if (cs > 0) point_err.push_back(100.0 * (ca - cs) / cs);
    for (size_t i = 0; i < a->second.layers.size() && i < s->second.layers.size(); ++i) {
      const LayerRow &la = a->second.layers[i], &ls = s->second.layers[i];
      if (la.device != "vta" || ls.cycles <= 0) continue;
      const std::string key = fmt::format("{} ({})", la.name, la.op);
      if (!layer_err.count(key)) layer_order.push_back(key);
      layer_err[key].push_back(std::abs(100.0 * (la.cycles - ls.cycles) / ls.cycles));
    }
  }
  std::string err_html;
  if (point_err.empty()) {
    err_html =
        "<p class=\"note\">No point has both stage-1 and stage-2 results, so the analytical estimate's error "
        "is not measured in this sweep.</p>\n";
  } else {
    std::vector<double> abs_err;
    for (double e : point_err) abs_err.push_back(std::abs(e));
    err_html = fmt::format(
        "<p>Over {} points with both stages: network cycles off by {} % at the median, {} % at "
        "worst (absolute); signed median {} %.</p>\n",
        point_err.size(), pct(median(abs_err)), pct(*std::max_element(abs_err.begin(), abs_err.end())),
        pct(median(point_err)));
    std::vector<double> all;
    for (const auto& [k, v] : layer_err) all.insert(all.end(), v.begin(), v.end());
    if (!all.empty()) {
      std::sort(all.begin(), all.end());
      err_html += fmt::format(
          "<p>Over all {} VTA layer results: |error| {} % at the median, {} % at the 90th percentile, {} % at "
          "worst.</p>\n",
          all.size(), pct(median(all)), pct(all[all.size() * 9 / 10]), pct(all.back()));
    }
    err_html +=
        "<table><tr><th class=l>layer</th><th>points</th><th>median |error| %</th><th>worst |error| %</th></tr>\n";
    for (const auto& k : layer_order) {
      const auto& v = layer_err[k];
      err_html += fmt::format("<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", xml_escape(k),
                              v.size(), pct(median(v)), pct(*std::max_element(v.begin(), v.end())));
    }
    err_html += "</table>\n";
  }

  std::string body =
      fmt::format("<h1>Sweep {}</h1>\n<p class=\"note\">{}; spec {}; started {}. Objectives: {}.</p>\n",
                  xml_escape(info ? info->name : "?"), xml_escape(info ? info->tool : ""),
                  xml_escape(info ? info->spec_source : ""), xml_escape(info ? info->created : ""), [&] {
                    std::string s;
                    for (const auto& ob : objs)
                      s += (s.empty() ? "" : ", ") + std::string(ob.maximize ? "maximize " : "minimize ") + ob.metric;
                    return xml_escape(s);
                  }());
  body +=
      "<h2>Funnel</h2><p class=\"note\">Points each stage kept, on a log scale (stage 0 checks each design and "
      "the spec's constraints; the invalid designs are broken down by the reason the store records, numbers "
      "left out).</p><canvas id=\"funnel\" width=\"1100\" height=\"" +
      std::to_string(60 + 28 * d["funnel"]["counts"].size()) + "\"></canvas>\n";
  if (!d["funnel"]["reasons"].empty()) {
    body += "<table><tr><th class=l>why designs are invalid (numbers left out)</th><th>points</th></tr>\n";
    for (const auto& r : d["funnel"]["reasons"])
      body += fmt::format("<tr><td class=l>{}</td><td>{}</td></tr>\n", xml_escape(r[0].get<std::string>()),
                          r[1].get<int64_t>());
    body += "</table>\n";
  }
  body += fmt::format(
      "<h2>Pareto front</h2><p class=\"note\">Each point at its best stage (the highest that finished); the "
      "Pareto points over all {} objectives are drawn large in every plot, one plot per pair of objectives "
      "(a point that looks dominated in one pair is better in another objective). Hover a point for its "
      "knobs.</p>\n",
      objs.size());
  const bool one_pair = d["pairs"].size() == 1;
  for (size_t i = 0; i < d["networks"].size(); ++i) {
    body += "<div class=\"plots\">\n";  // the pairs side by side (Chart.js makes each canvas a block)
    for (size_t k = 0; k < d["pairs"].size(); ++k)
      body += fmt::format("<canvas id=\"pareto{}_{}\" width=\"{}\" height=\"{}\"></canvas>\n", i, k,
                          one_pair ? 900 : 430, one_pair ? 460 : 340);
    body += "</div>\n";
  }
  body +=
      "<p class=\"note\">The Pareto points: click a column's header to sort by it; <i>reproduce</i> holds the "
      "point's knobs and the <code>vta run</code> line of its stage-2 cycles (<code>vta sweep show DB "
      "POINT</code> writes its config).</p>\n" +
      pareto_tables;
  body +=
      "<h2>Per-layer cycles of Pareto points</h2><p class=\"note\">Busy cycles per module on the cycle model "
      "(they overlap in time) and compute's token stalls.</p>\n";
  for (size_t i = 0; i < d["layer_points"].size(); ++i)
    body += fmt::format("<canvas id=\"layers{}\" width=\"1100\" height=\"320\"></canvas>\n", i);
  if (d["layer_points"].empty()) body += "<p class=\"note\">No Pareto point ran on a cycle model.</p>\n";
  body += "<h2>GEMM utilization heat map</h2>\n";
  if (d.contains("heat")) {
    double top = 0;
    for (const auto& c : d["heat"]["cells"]) top = std::max(top, c[2].get<double>());
    // The colour scale: the script's color() runs linearly between these two colours.
    body += fmt::format(
        "<canvas id=\"heat\" width=\"900\" height=\"460\"></canvas>\n<div class=\"scale\"><span>best GEMM "
        "utilization %:</span> <span>0</span><span class=\"bar\" style=\"background: linear-gradient(to right, "
        "rgb(255,120,80), rgb(0,220,140))\"></span><span>{:.1f}</span></div>\n",
        top);
  } else {
    body += "<p class=\"note\">Needs two axes.</p>\n";
  }
  body += "<h2>Stage-1 (analytical) error against stage 2 (SystemC)</h2>\n" + err_html;

  const std::string script = R"js(
chart('funnel', {type: 'bar', data: {labels: DATA.funnel.labels, datasets: [{label: 'points', data: DATA.funnel.counts, backgroundColor: DATA.funnel.colors}]},
                 options: {indexAxis: 'y', plugins: {legend: {display: false}},
                           scales: {x: {type: 'logarithmic', min: 0.5, title: {display: true, text: 'points (log scale)'}},
                                    y: {title: {display: true, text: 'funnel step'}}}}});
DATA.networks.forEach(function (n, i) {
  DATA.pairs.forEach(function (pr, k) {
    var mk = function (list, on) {
      return list.filter(function (p) { return on === null || p.pareto === on; })
                 .map(function (p) { return {x: p.v[pr[0]], y: p.v[pr[1]], label: p.label, stage: p.stage}; });
    };
    chart('pareto' + i + '_' + k, {type: 'scatter', data: {datasets: [
        {label: 'Pareto', data: mk(n.points, true), backgroundColor: PALETTE[2], pointRadius: 6},
        {label: 'other points (stage ' + n.stage + ')', data: mk(n.points, false), backgroundColor: 'rgba(78,121,167,0.35)', pointRadius: 3},
        {label: 'stage-1 estimates only', data: mk(n.estimates, null), backgroundColor: 'rgba(160,160,160,0.25)', pointRadius: 2}]},
      options: {scales: {x: {title: {display: true, text: DATA.axes[pr[0]]}}, y: {title: {display: true, text: DATA.axes[pr[1]]}}},
                plugins: {title: {display: true, text: n.name},
                          tooltip: {callbacks: {label: function (c) { return c.raw.label + ' (stage ' + c.raw.stage + ')'; }}}}}});
  });
});
DATA.layer_points.forEach(function (lp, i) {
  var names = lp.layers.map(function (l) { return l[0]; });
  var parts = ['load', 'gemm', 'alu', 'store', 'stall'];
  var sets = parts.map(function (p, k) { return {label: p, data: lp.layers.map(function (l) { return l[k + 1]; }), backgroundColor: PALETTE[k], stack: 's'}; });
  chart('layers' + i, {type: 'bar', data: {labels: names, datasets: sets},
                       options: {plugins: {title: {display: true, text: lp.title}},
                                 scales: {x: {stacked: true, title: {display: true, text: 'layer'}},
                                          y: {stacked: true, title: {display: true, text: 'busy cycles'}}}}});
});
if (DATA.heat) {
  var h = DATA.heat, max = 0;
  h.cells.forEach(function (c) { max = Math.max(max, c[2]); });
  var color = function (v) { var t = max > 0 ? v / max : 0; return 'rgba(' + Math.round(255 * (1 - t)) + ',' + Math.round(120 + 100 * t) + ',' + Math.round(80 + 60 * t) + ',0.95)'; };
  // One tick per axis value, labelled with it.
  var ticks = function (names) { return function (axis) { axis.ticks = names.map(function (_, i) { return {value: i}; }); }; };
  chart('heat', {type: 'scatter', data: {datasets: [{label: 'best GEMM utilization % (' + h.x + ' x ' + h.y + ')',
      data: h.cells.map(function (c) { return {x: c[0], y: c[1], v: c[2]}; }),
      backgroundColor: h.cells.map(function (c) { return color(c[2]); }), pointStyle: 'rect',
      pointRadius: Math.max(6, Math.min(40, 300 / Math.max(h.xs.length, h.ys.length)))}]},
    options: {scales: {x: {min: -0.5, max: h.xs.length - 0.5, title: {display: true, text: h.x}, afterBuildTicks: ticks(h.xs), ticks: {callback: function (v) { return h.xs[v]; }}},
                       y: {min: -0.5, max: h.ys.length - 0.5, title: {display: true, text: h.y}, afterBuildTicks: ticks(h.ys), ticks: {callback: function (v) { return h.ys[v]; }}}},
              plugins: {tooltip: {callbacks: {label: function (c) { return h.x + '=' + h.xs[c.raw.x] + ', ' + h.y + '=' + h.ys[c.raw.y] + ': ' + c.raw.v.toFixed(1) + ' %'; }}}}}});
}
)js";
  return html_page("Sweep " + (info ? info->name : std::string("?")), body, d, script);
}

}  // namespace vta::sweeps
