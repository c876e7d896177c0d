// The per-run HTML report: where the cycles of one network on one design go.
#include <fmt/format.h>

#include "vta/sweeps/html.h"

namespace vta::sweeps {

std::string run_report_html(const compiler::Report& r) {
  nlohmann::ordered_json d;
  d["layers"] = nlohmann::ordered_json::array();
  for (const auto& w : r.rows) {
    if (!w.timed) continue;
    d["layers"].push_back({{"name", w.layer},
                           {"load", w.load},
                           {"gemm", w.gemm},
                           {"alu", w.alu},
                           {"store", w.store},
                           {"stall", w.stall},
                           {"cycles", w.cycles},
                           {"roofline", w.roofline},
                           {"util", w.util}});
  }
  std::string body = fmt::format(
      "<h1>{} on {}</h1>\n<p class=\"note\">backend {}, config hash {}, {}; {}.</p>\n", xml_escape(r.network),
      xml_escape(r.config_name), xml_escape(r.backend), xml_escape(r.config_hash), xml_escape(r.tool),
      xml_escape(r.check_text.empty() ? (r.check_passed ? "output bit-exact" : "OUTPUT MISMATCH") : r.check_text));
  body += fmt::format(
      "<p>{} cycles in all ({:.1f} us at the design's clock), GEMM utilisation over the VTA layers {:.1f} %.</p>\n",
      r.total.cycles, r.total.time_us, r.total.util);
  if (d["layers"].empty())
    body +=
        "<p class=\"note\">This backend reports no cycles (it is not a cycle model), so there is nothing to "
        "plot.</p>\n";
  body +=
      "<h2>Cycles per layer</h2>\n<p class=\"note\">Busy cycles of each module (they overlap in time, so a bar can "
      "exceed the layer's cycles, drawn as a line) and the compute module's token stalls.</p>\n"
      "<canvas id=\"layers\" width=\"1100\" height=\"420\"></canvas>\n"
      "<h2>GEMM utilisation per layer</h2><canvas id=\"util\" width=\"1100\" height=\"260\"></canvas>\n";
  body +=
      "<h2>Table</h2><table><tr><th class=l>layer</th><th class=l>op</th><th class=l>device</th><th>MACs</th>"
      "<th>cycles</th><th>load</th><th>GEMM</th><th>ALU</th><th>store</th><th>stall</th><th>roofline</th><th>util "
      "%</th></tr>\n";
  for (const auto& w : r.rows)
    body += fmt::format(
        "<tr><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td></tr>\n",
        xml_escape(w.layer), w.op, w.device, w.macs, w.cycles, w.load, w.gemm, w.alu, w.store, w.stall, w.roofline,
        w.util);
  body += "</table>\n";
  const std::string script = R"js(
if (DATA.layers.length) {
  var names = DATA.layers.map(function (l) { return l.name; });
  var parts = ['load', 'gemm', 'alu', 'store', 'stall'];
  var sets = parts.map(function (p, i) {
    return {type: 'bar', label: p, data: DATA.layers.map(function (l) { return l[p]; }), backgroundColor: PALETTE[i], stack: 's'};
  });
  sets.push({type: 'line', label: 'cycles', data: DATA.layers.map(function (l) { return l.cycles; }), borderColor: '#000', pointRadius: 2});
  chart('layers', {type: 'bar', data: {labels: names, datasets: sets},
                   options: {scales: {x: {stacked: true, title: {display: true, text: 'layer'}}, y: {stacked: true, title: {display: true, text: 'cycles'}}}}});
  chart('util', {type: 'bar', data: {labels: names, datasets: [{label: 'GEMM utilisation %', data: DATA.layers.map(function (l) { return l.util; }), backgroundColor: PALETTE[4]}]},
                 options: {scales: {x: {title: {display: true, text: 'layer'}}, y: {min: 0, max: 100, title: {display: true, text: 'GEMM utilisation %'}}}}});
}
)js";
  return html_page(fmt::format("{} on {}", r.network, r.config_name), body, d, script);
}

}  // namespace vta::sweeps
