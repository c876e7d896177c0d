#include "vta/sweeps/html.h"

#include <string_view>

namespace vta::sweeps {

std::string_view chartjs_source();  // chartjs_source.cpp, generated

namespace {

// JSON inside <script>: the HTML parser ends the element at "</script" and
// enters its "escaped" state at "<!--", where a later "<script" swallows the
// rest of the page's code; neither can be escaped inside the element, so no
// '<' may reach it. '<', '>' and '&' only ever stand inside JSON strings,
// where \u003c, \u003e and \u0026 mean the same characters; U+2028 and
// U+2029 end a line in older JavaScript. The one embedding of data in a page.
std::string script_json(const nlohmann::ordered_json& j) {
  const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<')
      o += "\\u003c";
    else if (c == '>')
      o += "\\u003e";
    else if (c == '&')
      o += "\\u0026";
    else if (c == '\xe2' && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xa8' || s[i + 2] == '\xa9')) {
      o += s[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      o += c;
    }
  }
  return o;
}

// Helpers every page's script uses: chart() draws with animation off,
// counts, and notes each axis drawn without a title or without a labelled
// tick; tables of class
// "sortable" sort by a column when its header is clicked (by each cell's
// data-v number when it has one, else by its text). The epilogue marks the
// body with what was drawn.
const char* kPrelude = R"js(
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
var __charts = 0, __untitled = [];
function chart(id, cfg) {
  cfg.options = Object.assign({animation: false, responsive: false}, cfg.options || {});
  var c = new Chart(document.getElementById(id), cfg);
  Object.keys(c.scales).forEach(function (k) {
    var t = c.scales[k].options.title, named = (c.scales[k].ticks || []).filter(function (tick) {
      return tick.label !== undefined && tick.label !== null && String(tick.label) !== '';
    });
    if (!t || !t.display || !t.text) __untitled.push(id + '.' + k);
    if (!named.length) __untitled.push(id + '.' + k + ':ticks');
  });
  __charts++;
}
function sortKey(cell) {
  var v = cell.getAttribute('data-v');
  return v === null ? cell.textContent : v === '' ? Infinity : parseFloat(v);
}
function sortBy(table, col) {
  var th = table.tHead.rows[0].cells[col], up = th.getAttribute('data-dir') !== 'up';
  for (var i = 0; i < th.parentNode.cells.length; i++) th.parentNode.cells[i].removeAttribute('data-dir');
  th.setAttribute('data-dir', up ? 'up' : 'down');
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = sortKey(a.cells[col]), y = sortKey(b.cells[col]);
    return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
  });
  rows.forEach(function (r) { body.appendChild(r); });
}
document.querySelectorAll('table.sortable').forEach(function (t) {
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, col) {
    th.addEventListener('click', function () { sortBy(t, col); });
  });
});
var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
)js";

const char* kEpilogue = R"js(
(function () {
  var drawn = 0, canvases = document.getElementsByTagName('canvas');
  for (var i = 0; i < canvases.length; i++) {
    var c = canvases[i], px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (var k = 3; k < px.length; k += 4) if (px[k] !== 0) { drawn++; break; }
  }
  document.body.setAttribute('data-charts', String(__charts));
  document.body.setAttribute('data-canvases', String(canvases.length));
  document.body.setAttribute('data-drawn', String(drawn));
  // What a reader could not read: an axis without a title, anything wider
  // than the window (the tests draw at 1400 px).
  var wide = [], all = document.body.getElementsByTagName('*'), w = document.documentElement.clientWidth;
  for (var j = 0; j < all.length && wide.length < 5; j++)
    if (all[j].getBoundingClientRect().right > w + 0.5) wide.push(all[j].tagName.toLowerCase() + (all[j].id ? '#' + all[j].id : ''));
  document.body.setAttribute('data-untitled', __untitled.join(' '));
  document.body.setAttribute('data-overflow', wide.join(' '));
  // With #check-sort (the tests): sort every column of every sortable table
  // both ways and check the order.
  if (location.hash === '#check-sort') {
    var sorted = 0;
    document.querySelectorAll('table.sortable').forEach(function (t) {
      for (var col = 0; col < t.tHead.rows[0].cells.length; col++)
        for (var pass = 0; pass < 2; pass++) {
          sortBy(t, col);
          var rows = t.tBodies[0].rows;
          for (var r = 1; r < rows.length; r++) {
            var a = sortKey(rows[r - 1].cells[col]), b = sortKey(rows[r].cells[col]);
            if (pass === 0 ? a > b : a < b) window.__errors.push('column ' + col + ' not sorted');
          }
          sorted++;
        }
    });
    document.body.setAttribute('data-sorted', String(sorted));
  }
  document.body.setAttribute('data-errors', window.__errors.join(' | '));
})();
)js";

const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
.note { color: #555; font-size: 13px; max-width: 900px; }
canvas { border: 1px solid #eee; margin: 4px 0; }
table.sortable { font-size: 12px; } table.sortable th, table.sortable td { padding: 2px 5px; }
table.sortable th { cursor: pointer; } th[data-dir=up]::after { content: " \25B2"; } th[data-dir=down]::after { content: " \25BC"; }
details pre { white-space: pre-wrap; word-break: break-all; max-width: 520px; margin: 4px 0; font-size: 12px; }
.plots { display: flex; flex-wrap: wrap; gap: 0 8px; }
.scale { font-size: 13px; display: flex; align-items: center; gap: 6px; }
.scale .bar { display: inline-block; width: 240px; height: 14px; border: 1px solid #ccc; }
)css";

}  // namespace

std::string html_page(const std::string& title, const std::string& body, const nlohmann::ordered_json& data,
                      const std::string& script) {
  std::string p = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
                  "</title>\n<style>" + kStyle + "</style></head>\n<body>\n" + body + "\n<script>\n";
  p += chartjs_source();
  p += "\n</script>\n<script>\n";
  p += kPrelude;
  p += "const DATA = " + script_json(data) + ";\n";
  p += "try {\n" + script + "\n} catch (e) { window.__errors.push(String(e)); }\n";
  p += kEpilogue;
  p += "</script>\n</body></html>\n";
  return p;
}

}  // namespace vta::sweeps
