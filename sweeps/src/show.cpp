#include "vta/sweeps/show.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "vta/isa/control_chars.h"
#include "vta/isa/error.h"
#include "vta/isa/shell_quote.h"
#include "vta/sweeps/space.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"

namespace vta::sweeps {

namespace {

// A word of the `vta run` line, quoted only where the shell needs it.
std::string word(const std::string& w) {
  const bool plain = !w.empty() && w.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                       "_-.,:/=+@%") == std::string::npos;
  return plain ? w : shell_quote(w);
}

// Text from the store inside a YAML comment: a newline would end the
// comment and make the rest of the message YAML.
std::string one_line(const std::string& text) {
  std::string o;
  for (const char ch : text) o += is_control_char(ch) ? ' ' : ch;
  return o;
}

const StoredPoint& find_point(const std::vector<StoredPoint>& points, const std::string& point,
                              const std::string& network, const std::string& db) {
  const bool is_index = !point.empty() && point.find_first_not_of("0123456789") == std::string::npos;
  for (const auto& p : points) {
    if (is_index ? std::to_string(p.info.index) == point && (network.empty() || p.info.network == network)
                 : p.info.key == point)
      return p;
  }
  fail(
      "{}: no point {}{} in this store (an index in the design space, or a key CONFIG_HASH/NETWORK, as `vta sweep "
      "export --csv` lists them)",
      db, point, network.empty() ? "" : " on network " + network);
}

// The network options of `vta run` that build the network the sweep ran.
std::string network_words(const NetworkSpec& n) {
  std::string w = n.zoo.empty() ? "--onnx " + word(n.onnx) : "--model " + word(n.zoo);
  if (n.batch != 1) w += fmt::format(" --batch {}", n.batch);
  if (n.image != 0) w += fmt::format(" --image {}", n.image);
  if (n.seed != 1) w += fmt::format(" --seed {}", n.seed);
  return w;
}

const NetworkSpec* find_network(const SweepSpec& spec, const std::string& key) {
  for (const auto& n : spec.networks)
    if (n.key() == key) return &n;
  return nullptr;
}

}  // namespace

std::string reproduce_line(const SweepSpec& spec, int64_t index, const std::string& network) {
  const NetworkSpec* net = find_network(spec, network);
  if (!net) return "";
  std::string run = "vta run " + network_words(*net) + " -c " + word(spec.base);
  for (const auto& [k, v] : Space(spec).overrides(index)) run += " --set " + word(k + "=" + v);
  if (spec.funnel.tune > 0) run += fmt::format(" --tune {}", spec.funnel.tune);
  return run + " -b systemc --timing-only";
}

std::string point_name(const std::string& base_name, const std::vector<std::pair<std::string, std::string>>& knobs) {
  std::string n = base_name;
  for (const auto& [k, v] : knobs) n += " " + k + "=" + v;
  // A text knob's value may hold a newline (a YAML escape): the name is one
  // line, as the loader requires (it is a comment line in generated sources).
  std::replace_if(n.begin(), n.end(), is_control_char, '?');
  return n;
}

std::string show_point(const Store& store, const std::string& point, const std::string& network) {
  const auto info = store.info();
  if (!info) fail("{}: the store holds no sweep yet", store.path());
  const auto points = store.load(false);
  const StoredPoint& p = find_point(points, point, network, store.path());
  // The spec as it was swept, its base resolved against the spec's folder.
  const std::string dir = std::filesystem::path(info->spec_source).parent_path().string();
  SweepSpec spec;
  try {
    spec = load_spec_text(info->spec_text, info->spec_source, dir.empty() ? "." : dir);
  } catch (const Error& e) {
    fail("{}: the spec this store was swept with ({}) no longer loads: {}", store.path(), info->spec_source, e.what());
  }
  const Space space(spec);
  if (p.info.index < 0 || p.info.index >= space.size())
    fail("{}: point {} lies outside the spec's design space ({} points)", store.path(), p.info.index, space.size());
  const std::vector<Override> overrides = space.overrides(p.info.index);
  std::vector<std::pair<std::string, std::string>> set;
  for (const auto& [k, v] : overrides) set.emplace_back(k, v);
  Config c;
  try {
    c = space.config(p.info.index);
  } catch (const Error& e) {
    fail("{}: point {} is not a valid design ({})", store.path(), p.info.index, e.what());
  }
  const std::string base_name = c.name;
  c.name = point_name(base_name, set);

  std::string out = fmt::format("# Point {} of sweep '{}' ({}), network {}.\n", p.info.index, one_line(info->name),
                                one_line(store.path()), one_line(p.info.network));
  out += fmt::format("# The design {} : the base {} with the sweep's knobs set.\n", c.name, one_line(spec.base));
  for (const auto& [stage, r] : p.stages) {
    out += fmt::format("# stage {} {}: {}", stage, stage_name(stage), r.status);
    if (!r.error.empty()) out += " (" + one_line(r.error) + ")";
    for (const char* m : {"cycles", "time_ms", "gops", "util", "dsp", "fmax_mhz", "energy_uj"})
      if (r.metrics.has(m)) out += fmt::format(", {} {:.6g}", m, r.metrics.get(m));
    if (!r.check.empty()) out += ", check: " + one_line(r.check);
    out += "\n";
  }
  if (const std::string run = reproduce_line(spec, p.info.index, p.info.network); !run.empty()) {
    const NetworkSpec* net = find_network(spec, p.info.network);
    out += "# Stage 2's cycles: " + one_line(run) + "\n";
    out += "# With this file as the config: vta run " + one_line(network_words(*net)) + " -c FILE.yaml -b systemc\n";
  }
  return out + to_yaml(c);
}

}  // namespace vta::sweeps
