// libFuzzer target: strings from shared files (a spec's name, Slurm options,
// a sweep folder, axis values, ONNX names) on their way into the two outputs
// that another program interprets: the sweep report's HTML page and the
// Slurm job scripts. The input is split at NUL bytes into the fields below.
// Properties, each an abort (a finding) when broken:
//  - the page has exactly its own <script> elements, and the embedded JSON
//    holds no '<' (nothing in it can end the element or start a comment);
//  - the JSON reads back as the strings that went in (U+FFFD where the input
//    was not UTF-8);
//  - every job script is refused with a vta::Error, or each of its lines is
//    one the writer intended: '#!/bin/bash', an #SBATCH line of a known
//    option, 'set -euo pipefail', or a command line whose every shell word
//    is a single-quoted string, a double-quoted $SLURM_* expansion, or a
//    plain word of the writer's (no unquoted $, `, ;, |, &, <, > or
//    parenthesis anywhere).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "vta/isa/xml_escape.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/slurm.h"
#include "vta/sweeps/spec.h"

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "fuzz_untrusted_text: %s\n---\n%s\n---\n", what.c_str(), text.c_str());
  std::abort();
}

std::vector<std::string> fields(const uint8_t* data, size_t size, size_t n) {
  std::vector<std::string> out(n);
  size_t k = 0;
  for (size_t i = 0; i < size && k < n; ++i) {
    if (data[i] == 0)
      ++k;
    else
      out[k] += static_cast<char>(data[i]);
  }
  return out;
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

void check_page(const std::vector<std::string>& f) {
  nlohmann::ordered_json data;
  data["x"] = f[0];
  data["axes"] = {f[1], f[2]};
  data[f[3]] = f[4];  // a key from the input too (an axis name)
  const std::string page = vta::sweeps::html_page(f[5], "<p>" + vta::xml_escape(f[6]) + "</p>", data, "var y = 1;");
  // The script elements: Chart.js and the page's own.
  if (count(page, "<script") != 2 || count(page, "</script") != 2)
    finding("script elements changed", page.substr(0, 4096));
  // The DATA line of the page's own script, the second <script> element: the
  // title and the body come before it and may hold the same words.
  const auto script = page.find("<script>", page.find("<script>") + 1);
  const auto from = page.find("\nconst DATA = ", script);
  if (script == std::string::npos || from == std::string::npos) finding("no DATA line", page.substr(0, 4096));
  const std::string line = page.substr(from + 14, page.find(";\n", from) - from - 14);
  if (line.find('<') != std::string::npos || line.find('\n') != std::string::npos) finding("'<' in the JSON", line);
  const auto back = nlohmann::json::parse(line, nullptr, false);
  if (back.is_discarded()) finding("the JSON does not parse", line);
  // The strings as they went in, with U+FFFD where they were not UTF-8.
  const auto valid = nlohmann::json::parse(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (back != valid) finding("the JSON does not read back", line);
}

// The shell words of a command line, or a finding when one is not of the
// forms the writer uses.
void check_command_line(const std::string& l, const std::string& script) {
  for (size_t i = 0; i < l.size();) {
    const char c = l[i];
    if (c == ' ') {
      ++i;
    } else if (c == '\'') {
      const size_t end = l.find('\'', i + 1);
      if (end == std::string::npos) finding("unterminated single quote", script);
      i = end + 1;
      // '\'' inside a quoted word: the writer's way to put a quote in it.
      if (l.compare(i, 3, "\\''") == 0) i += 2;
    } else if (c == '"') {
      const size_t end = l.find('"', i + 1);
      if (end == std::string::npos) finding("unterminated double quote", script);
      const std::string inner = l.substr(i + 1, end - i - 1);
      // Only the writer's own expansions: "$SLURM_ARRAY_TASK_ID/N", "$SLURM_CPUS_PER_TASK".
      if (inner.rfind("$SLURM_", 0) != 0 || inner.find_first_of("`\\\"'(") != std::string::npos)
        finding("a double-quoted word that is not the writer's", script);
      i = end + 1;
    } else if (std::string_view("$`;|&<>()\\\n\r").find(c) != std::string_view::npos) {
      finding(std::string("an unquoted '") + c + "' on a command line", script);
    } else {
      ++i;  // a plain word: sweep, run, -q, --db, /shard-, .sqlite, numbers
    }
  }
}

void check_script(const std::string& script, const std::vector<std::string>& setup) {
  size_t start = 0;
  bool body = false;
  while (start < script.size()) {
    const size_t end = script.find('\n', start);
    if (end == std::string::npos) finding("a script that does not end in a newline", script);
    const std::string l = script.substr(start, end - start);
    start = end + 1;
    if (l == "#!/bin/bash" && !body) continue;
    if (l.rfind("#SBATCH --", 0) == 0 && !body) {
      static const char* kKnown[] = {
          "job-name=", "array=", "cpus-per-task=", "time=", "mem=", "partition=", "account=", "output="};
      bool known = false;
      for (const char* k : kKnown) known |= l.compare(10, std::string(k).size(), k) == 0;
      if (!known) finding("an #SBATCH line the writer did not intend", script);
      for (const char ch : l)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
          finding("a control character on an #SBATCH line", script);
      continue;
    }
    if (l == "set -euo pipefail" && !body) {
      body = true;
      continue;
    }
    if (!body) finding("a line before the body that the writer did not intend", script);
    bool is_setup = false;
    for (const auto& s : setup) is_setup |= l == s;
    // The writer's own lines of job C: a comment, and the exit status of stage 3 kept across the report.
    if (is_setup || l.rfind("# ", 0) == 0 || l == "checks=0" || l == "exit \"$checks\"") continue;
    const std::string keep = " || checks=$?";
    check_command_line(l.size() > keep.size() && l.compare(l.size() - keep.size(), keep.size(), keep) == 0
                           ? l.substr(0, l.size() - keep.size())
                           : l,
                       script);
  }
}

void check_scripts(const std::vector<std::string>& f) {
  static const vta::sweeps::SweepSpec base = vta::sweeps::load_spec_text(
      "base: vta-1x16x16\nnetworks: [lenet5]\naxes:\n  - knob: clock.mhz\n    values: [100]\n", "fuzz.yaml", ".");
  vta::sweeps::SweepSpec spec = base;
  spec.name = f[0];
  vta::sweeps::SlurmOptions o;
  o.tasks = 2;
  o.partition = f[1];
  o.account = f[2];
  o.time = f[3].empty() ? "01:00:00" : f[3];
  o.mem = f[4].empty() ? "4G" : f[4];
  // The folder and the vta path: anything (nothing is written or created).
  o.dir = f[5].empty() ? "d" : f[5];
  o.vta = f[6];
  vta::sweeps::SlurmScripts scripts;
  try {
    scripts = vta::sweeps::slurm_scripts(spec, "fuzz.yaml", o);
  } catch (const vta::Error& e) {
    if (std::string(e.what()).empty()) finding("an empty message", "");
    return;
  }
  std::vector<std::string> setup = o.setup;
  setup.emplace_back(vta::sweeps::vta_on_path_line());
  for (const std::string* script : {&scripts.a, &scripts.b, &scripts.c}) check_script(*script, setup);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto f = fields(data, size, 7);
  vta::fuzz::expect_clean([&] { check_page(f); });
  vta::fuzz::expect_clean([&] { check_scripts(f); });
  return 0;
}
