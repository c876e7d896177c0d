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

// Helpers every page's script uses: chart() draws with animation off and
// counts; the epilogue marks the body with what was drawn.
const char* kPrelude = R"js(
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
var __charts = 0;
function chart(id, cfg) {
  cfg.options = Object.assign({animation: false, responsive: false}, cfg.options || {});
  new Chart(document.getElementById(id), cfg);
  __charts++;
}
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
