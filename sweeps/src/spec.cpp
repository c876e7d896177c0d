// The strict sweep-spec loader. Every mapping is checked against the keys it
// may hold (unknown keys are errors with a did-you-mean), every scalar
// against its type, every axis value against its knob's type and range, and
// every constraint is compiled by muParser with the variables it may use.
#include "vta/sweeps/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "vta/estimate/estimate.h"
#include "vta/isa/error.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/yaml_documents.h"
#include "vta/sweeps/constraints.h"
#include "vta/sweeps/metrics.h"
#include "vta/sweeps/stage_pnr.h"

namespace vta::sweeps {

namespace {

// The spec file and a node's line, for messages.
struct Ctx {
  std::string source;
  std::string at(const YAML::Node& n) const { return fmt::format("{}:{}", source, n.Mark().line + 1); }
};

std::string scalar(const Ctx& x, const YAML::Node& n, const std::string& what);

// Checks that mapping `m` (named `what`) holds only `allowed` keys, each once.
void check_keys(const Ctx& x, const YAML::Node& m, const std::string& what, const std::vector<std::string>& allowed) {
  if (!m.IsMap()) fail("{}: {} must be a mapping", x.at(m), what);
  std::set<std::string> seen;
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string k = scalar(x, it->first, "a key of " + what);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      fail("{}: unknown key '{}' in {}{}", x.at(it->first), k, what, did_you_mean(k, allowed));
    if (!seen.insert(k).second) fail("{}: key '{}' is given twice in {}", x.at(it->first), k, what);
  }
}

std::string scalar(const Ctx& x, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar())
    fail("{}: {} must be a single value, not a {}", x.at(n), what,
         n.IsMap()        ? "mapping"
         : n.IsSequence() ? "list"
                          : "null");
  return n.as<std::string>();
}

int64_t integer(const Ctx& x, const YAML::Node& n, const std::string& what, int64_t lo, int64_t hi) {
  const std::string t = scalar(x, n, what);
  int64_t v = 0;
  if (!parse_size(t, v) && t != "0") {
    char* end = nullptr;
    errno = 0;
    const long long r = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || errno != 0 || end != t.c_str() + t.size())
      fail("{}: {} = '{}' is not an integer", x.at(n), what, t);
    v = r;
  }
  if (v < lo || v > hi) fail("{}: {} = {} is out of range [{}, {}]", x.at(n), what, t, lo, hi);
  return v;
}

double number(const Ctx& x, const YAML::Node& n, const std::string& what, double lo, double hi) {
  const std::string t = scalar(x, n, what);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v))
    fail("{}: {} = '{}' is not a number", x.at(n), what, t);
  if (v < lo || v > hi) fail("{}: {} = {} is out of range [{}, {}]", x.at(n), what, t, lo, hi);
  return v;
}

// "300", "300s", "5m", "1h" -> seconds.
double duration(const Ctx& x, const YAML::Node& n, const std::string& what) {
  std::string t = scalar(x, n, what);
  double mult = 1;
  if (!t.empty() && (t.back() == 's' || t.back() == 'm' || t.back() == 'h')) {
    mult = t.back() == 'm' ? 60 : t.back() == 'h' ? 3600 : 1;
    t.pop_back();
  }
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0)
    fail("{}: {} = '{}' is not a positive duration (e.g. 300, 90s, 5m)", x.at(n), what, scalar(x, n, what));
  return v * mult;
}

const KnobInfo& knob(const Ctx& x, const YAML::Node& key_node) {
  const std::string key = scalar(x, key_node, "a knob");
  const KnobInfo* k = find_knob(key);
  if (!k) {
    std::vector<std::string> all;
    for (const auto& kk : knobs()) all.push_back(kk.key());
    fail("{}: unknown knob '{}'{}", x.at(key_node), key, did_you_mean(key, all));
  }
  return *k;
}

// A knob value checked as the config loader checks it.
std::string knob_value(const Ctx& x, const KnobInfo& k, const YAML::Node& v) {
  const std::string t = scalar(x, v, k.key());
  check_knob_value(k, t, x.at(v));
  return t;
}

bool is_int_kind(const KnobInfo& k) {
  return k.kind == KnobKind::INT || k.kind == KnobKind::POW2 || k.kind == KnobKind::SIZE;
}

// Numeric bound of a range/pow2 axis, in the knob's units (sizes accept KiB...).
double bound(const Ctx& x, const KnobInfo& k, const YAML::Node& v) {
  const std::string t = scalar(x, v, k.key());
  int64_t i = 0;
  if (is_int_kind(k) && parse_size(t, i)) return static_cast<double>(i);
  return number(x, v, k.key(), -1e300, 1e300);
}

std::string value_text(const KnobInfo& k, double v) {
  if (k.kind == KnobKind::SIZE) return format_size(static_cast<int64_t>(v));
  if (is_int_kind(k)) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

constexpr int64_t kMaxAxisValues = 1 << 20;

// The values of one knob's axis: `values: [...]`, `range: {from, to, step}`
// or `pow2: {from, to}`.
std::vector<std::string> axis_values(const Ctx& x, const KnobInfo& k, const YAML::Node& a) {
  std::vector<std::string> out;
  if (a["values"]) {
    const YAML::Node& vs = a["values"];
    if (!vs.IsSequence() || vs.size() == 0) fail("{}: values of {} must be a non-empty list", x.at(vs), k.key());
    for (const auto& v : vs) out.push_back(knob_value(x, k, v));
  } else if (a["range"]) {
    const YAML::Node& r = a["range"];
    check_keys(x, r, "range", {"from", "to", "step"});
    if (!r["from"] || !r["to"]) fail("{}: a range of {} needs from and to", x.at(r), k.key());
    if (k.kind != KnobKind::INT && k.kind != KnobKind::REAL)
      fail("{}: a range needs an integer or real knob; {} takes {} values (use values or pow2)", x.at(r), k.key(),
           k.kind == KnobKind::POW2 || k.kind == KnobKind::SIZE ? "power-of-two" : "non-numeric");
    const double from = bound(x, k, r["from"]), to = bound(x, k, r["to"]);
    const double step = r["step"] ? bound(x, k, r["step"]) : 1;
    if (!(step > 0)) fail("{}: range step of {} must be positive", x.at(r["step"]), k.key());
    if (from > to) fail("{}: range of {} is empty: from {} > to {}", x.at(r), k.key(), from, to);
    if ((to - from) / step >= kMaxAxisValues)
      fail("{}: range of {} has more than {} values", x.at(r), k.key(), kMaxAxisValues);
    for (int64_t i = 0;; ++i) {
      const double v = from + static_cast<double>(i) * step;
      if (v > to + 1e-9 * std::abs(step)) break;
      const std::string t = value_text(k, k.kind == KnobKind::INT ? std::round(v) : v);
      check_knob_value(k, t, x.at(r));
      out.push_back(t);
    }
  } else if (a["pow2"]) {
    const YAML::Node& r = a["pow2"];
    check_keys(x, r, "pow2", {"from", "to"});
    if (!r["from"] || !r["to"]) fail("{}: a pow2 range of {} needs from and to", x.at(r), k.key());
    if (!is_int_kind(k)) fail("{}: pow2 needs an integer knob; {} is not one", x.at(r), k.key());
    const double from = bound(x, k, r["from"]), to = bound(x, k, r["to"]);
    for (const auto& [v, node] : {std::pair{from, r["from"]}, std::pair{to, r["to"]}})
      if (v < 1 || v > 9.2e18 || !std::has_single_bit(static_cast<uint64_t>(v)))
        fail("{}: pow2 bound {} of {} is not a power of two", x.at(node), v, k.key());
    if (from > to) fail("{}: pow2 range of {} is empty: from {} > to {}", x.at(r), k.key(), from, to);
    for (double v = from; v <= to; v *= 2) {
      const std::string t = value_text(k, v);
      check_knob_value(k, t, x.at(r));
      out.push_back(t);
    }
  } else {
    fail("{}: axis {} needs values, range or pow2", x.at(a), k.key());
  }
  return out;
}

Axis parse_axis(const Ctx& x, const YAML::Node& a) {
  Axis axis;
  axis.line = a.Mark().line + 1;
  if (!a.IsMap()) fail("{}: an axis must be a mapping (knob: KEY with values, range or pow2; or zip: ...)", x.at(a));
  check_keys(x, a, "an axis", {"knob", "values", "range", "pow2"});
  if (!a["knob"]) fail("{}: an axis needs knob: KEY (or zip:)", x.at(a));
  const int kinds = (a["values"] ? 1 : 0) + (a["range"] ? 1 : 0) + (a["pow2"] ? 1 : 0);
  if (kinds > 1) fail("{}: an axis takes one of values, range or pow2", x.at(a));
  const KnobInfo& k = knob(x, a["knob"]);
  axis.keys = {k.key()};
  for (auto& v : axis_values(x, k, a)) axis.values.push_back({v});
  return axis;
}

Axis parse_zip(const Ctx& x, const YAML::Node& a) {
  Axis axis;
  axis.line = a.Mark().line + 1;
  const YAML::Node& z = a["zip"];
  if (!z.IsMap() || z.size() == 0) fail("{}: zip must be a mapping of knobs to equal-length lists", x.at(z));
  size_t n = 0;
  std::vector<std::vector<std::string>> cols;
  for (auto it = z.begin(); it != z.end(); ++it) {
    const KnobInfo& k = knob(x, it->first);
    if (std::find(axis.keys.begin(), axis.keys.end(), k.key()) != axis.keys.end())
      fail("{}: knob {} is given twice in zip", x.at(it->first), k.key());
    const YAML::Node vs = it->second;  // a handle: a reference into it->second would dangle (the proxy is a temporary)
    if (!vs.IsSequence() || vs.size() == 0) fail("{}: zip values of {} must be a non-empty list", x.at(vs), k.key());
    if (n != 0 && vs.size() != n)
      fail("{}: zip lists must have equal lengths: {} has {} values, the first has {}", x.at(vs), k.key(), vs.size(),
           n);
    n = vs.size();
    axis.keys.push_back(k.key());
    std::vector<std::string> col;
    for (const auto& v : vs) col.push_back(knob_value(x, k, v));
    cols.push_back(std::move(col));
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> row;
    for (auto& col : cols) row.push_back(col[i]);
    axis.values.push_back(std::move(row));
  }
  return axis;
}

NetworkSpec parse_network(const Ctx& x, const YAML::Node& n, const std::string& dir) {
  NetworkSpec net;
  net.line = n.Mark().line + 1;
  if (n.IsScalar()) {  // shorthand: a zoo name
    net.zoo = n.as<std::string>();
    return net;
  }
  check_keys(x, n, "a network", {"zoo", "onnx", "batch", "image", "seed", "accuracy"});
  if (static_cast<bool>(n["zoo"]) == static_cast<bool>(n["onnx"]))
    fail("{}: a network needs exactly one of zoo: NAME or onnx: FILE", x.at(n));
  if (n["zoo"]) net.zoo = scalar(x, n["zoo"], "zoo");
  if (n["onnx"]) {
    const std::filesystem::path p = scalar(x, n["onnx"], "onnx");
    net.onnx = (p.is_absolute() ? p : std::filesystem::path(dir) / p).lexically_normal().string();
    if (const std::string kind = special_file_kind(net.onnx); !kind.empty())
      fail("{}: onnx file {} is not a regular file (it is {})", x.at(n["onnx"]), net.onnx, kind);
    if (!path_is_file(net.onnx)) fail("{}: onnx file {} does not exist", x.at(n["onnx"]), net.onnx);
    if (n["batch"] || n["image"])
      fail("{}: batch and image apply to zoo networks (an ONNX file fixes its shape)", x.at(n));
  }
  if (n["batch"] && !n["batch"].IsSequence()) net.batch = integer(x, n["batch"], "batch", 1, 4096);
  if (n["image"]) net.image = integer(x, n["image"], "image", 1, 4096);
  if (n["seed"]) net.seed = static_cast<uint32_t>(integer(x, n["seed"], "seed", 0, 0xffffffffLL));
  if (n["accuracy"]) net.accuracy = integer(x, n["accuracy"], "accuracy", 0, 10000);
  return net;
}

// A network entry; `batch: [1, 4, 16]` is an axis of the network: one
// network per batch size, each ranked on its own (its key carries /bN).
std::vector<NetworkSpec> parse_networks(const Ctx& x, const YAML::Node& n, const std::string& dir) {
  const NetworkSpec net = parse_network(x, n, dir);
  if (!n.IsMap() || !n["batch"] || !n["batch"].IsSequence()) return {net};
  const YAML::Node& b = n["batch"];
  if (b.size() == 0) fail("{}: batch must be a size or a non-empty list of sizes", x.at(b));
  std::vector<NetworkSpec> out;
  for (const auto& v : b) {
    out.push_back(net);
    out.back().batch = integer(x, v, "batch", 1, 4096);
  }
  return out;
}

Objective parse_objective(const Ctx& x, const YAML::Node& n) {
  check_keys(x, n, "an objective", {"minimize", "maximize"});
  if (n.size() != 1) fail("{}: an objective is one of minimize: METRIC or maximize: METRIC", x.at(n));
  Objective o;
  o.maximize = static_cast<bool>(n["maximize"]);
  const YAML::Node& m = o.maximize ? n["maximize"] : n["minimize"];
  o.metric = scalar(x, m, "objective");
  if (!is_metric(o.metric))
    fail("{}: unknown metric '{}' (known: {}){}", x.at(m), o.metric, fmt::join(known_metrics(), ", "),
         did_you_mean(o.metric, known_metrics()));
  return o;
}

void parse_strategy(const Ctx& x, const YAML::Node& n, SweepSpec& s) {
  if (n.IsScalar()) {
    const std::string kind = n.as<std::string>();
    if (kind != "grid") fail("{}: strategy '{}' needs its settings: strategy: {{kind: {}, ...}}", x.at(n), kind, kind);
    s.strategy = Strategy::Grid;
    return;
  }
  check_keys(x, n, "strategy", {"kind", "samples", "seed", "population", "generations"});
  if (!n["kind"]) fail("{}: strategy needs kind: grid, random or evolve", x.at(n));
  const std::string kind = scalar(x, n["kind"], "kind");
  auto only = [&](const std::vector<std::string>& keys) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = scalar(x, it->first, "a key of the strategy");
      if (k != "kind" && std::find(keys.begin(), keys.end(), k) == keys.end())
        fail("{}: strategy {} does not take '{}'", x.at(it->first), kind, k);
    }
  };
  if (n["seed"]) s.seed = static_cast<uint64_t>(integer(x, n["seed"], "seed", 0, INT64_MAX));
  if (kind == "grid") {
    only({});
    s.strategy = Strategy::Grid;
  } else if (kind == "random") {
    only({"samples", "seed"});
    if (!n["samples"]) fail("{}: strategy random needs samples: N", x.at(n));
    s.strategy = Strategy::Random;
    s.samples = integer(x, n["samples"], "samples", 1, int64_t{1} << 40);
  } else if (kind == "evolve") {
    only({"population", "generations", "seed"});
    s.strategy = Strategy::Evolve;
    s.samples = n["population"] ? integer(x, n["population"], "population", 2, 1 << 20) : 32;
    s.generations = n["generations"] ? integer(x, n["generations"], "generations", 1, 10000) : 10;
  } else {
    fail("{}: unknown strategy '{}' (grid, random or evolve){}", x.at(n["kind"]), kind,
         did_you_mean(kind, {"grid", "random", "evolve"}));
  }
}

void parse_funnel(const Ctx& x, const YAML::Node& n, Funnel& f) {
  check_keys(x, n, "funnel", {"stage1", "stage2", "stage3", "stage4", "tune"});
  if (n["tune"]) f.tune = integer(x, n["tune"], "tune", 1, 64);
  if (const YAML::Node& s1 = n["stage1"]) {
    check_keys(x, s1, "funnel.stage1", {"layers"});
    if (const YAML::Node& l = s1["layers"]) {
      const std::string v = scalar(x, l, "layers");
      if (v != "all" && v != "selected") fail("{}: layers = '{}' is not all or selected", x.at(l), v);
      f.stage1_layers_all = v == "all";
    }
  }
  if (const YAML::Node& s2 = n["stage2"]) {
    check_keys(x, s2, "funnel.stage2", {"top_k", "within_pct", "all", "max_points"});
    if (s2["top_k"]) f.stage2_top_k = integer(x, s2["top_k"], "top_k", 1, int64_t{1} << 40);
    if (s2["max_points"]) f.stage2_max_points = integer(x, s2["max_points"], "max_points", 1, kMaxListedPoints);
    if (s2["within_pct"]) f.stage2_within_pct = number(x, s2["within_pct"], "within_pct", 0, 1000);
    if (s2["all"] && (s2["top_k"] || s2["within_pct"]))
      fail("{}: funnel.stage2 takes all: true, or top_k / within_pct", x.at(s2));
  }
  if (const YAML::Node& s3 = n["stage3"]) {
    check_keys(x, s3, "funnel.stage3", {"top_k", "verilator"});
    if (!s3["top_k"]) fail("{}: funnel.stage3 needs top_k: N", x.at(s3));
    f.stage3_top_k = integer(x, s3["top_k"], "top_k", 1, 1000);
    if (s3["verilator"]) {
      const std::string v = scalar(x, s3["verilator"], "verilator");
      if (v != "true" && v != "false" && v != "optional")
        fail("{}: verilator = '{}' is not true, false or optional", x.at(s3["verilator"]), v);
      f.stage3_verilator = v != "false";
      f.stage3_verilator_optional = v == "optional";
    }
  }
  if (const YAML::Node& s4 = n["stage4"]) {
    check_keys(x, s4, "funnel.stage4", {"pnr", "seed", "timeout"});
    if (!s4["pnr"]) fail("{}: funnel.stage4 needs pnr: true (or optional)", x.at(s4));
    const std::string v = scalar(x, s4["pnr"], "pnr");
    if (v != "true" && v != "false" && v != "optional")
      fail("{}: pnr = '{}' is not true, false or optional", x.at(s4["pnr"]), v);
    f.stage4_pnr = v != "false";
    f.stage4_pnr_optional = v == "optional";
    if (s4["seed"]) f.stage4_seed = integer(x, s4["seed"], "seed", 1, 1 << 30);
    if (s4["timeout"]) f.stage4_timeout_s = duration(x, s4["timeout"], "timeout");
    if (f.stage4_pnr && f.stage3_top_k == 0)
      fail(
          "{}: funnel.stage4 places and routes stage 3's verified points, but there is no stage 3 "
          "(funnel.stage3: {{top_k: N}})",
          x.at(s4));
  }
}

std::string read_file(const std::string& path) { return vta::read_file(path, "sweep spec"); }

}  // namespace

std::vector<std::pair<std::string, std::string>> result_basis(const SweepSpec& s) {
  std::string set, axes, constraints, networks;
  for (const auto& o : s.set) set += fmt::format("{}={}\n", o.first, o.second);
  for (const auto& a : s.axes) {
    axes += fmt::format("{}:", fmt::join(a.keys, ","));
    for (const auto& v : a.values) axes += fmt::format(" [{}]", fmt::join(v, ","));
    axes += "\n";
  }
  for (const auto& c : s.constraints) constraints += c.expr + "\n";
  for (const auto& n : s.networks)
    networks += n.key() + (n.accuracy > 0 ? fmt::format(" accuracy {}", n.accuracy) : "") + "\n";
  std::string strategy = fmt::format("{} samples {} generations {} seed {}", static_cast<int>(s.strategy), s.samples,
                                     s.generations, s.seed);
  if (s.strategy == Strategy::Evolve)
    for (const auto& o : s.objectives) strategy += fmt::format(" {}{}", o.maximize ? "+" : "-", o.metric);
  return {{"base", s.base_text},
          {"set", set},
          {"axes", axes},
          {"constraints", constraints},
          {"networks", networks},
          {"strategy", strategy},
          {"device", fmt::format("{} {} {}", s.device, s.family, s.pack_int8)},
          {"timeout_s", fmt::format("{}", s.timeout_s)}};
}

std::string NetworkSpec::key() const {
  std::string k = zoo.empty() ? "onnx:" + onnx : zoo;
  if (batch != 1) k += fmt::format("/b{}", batch);
  if (image != 0) k += fmt::format("/i{}", image);
  if (seed != 1) k += fmt::format("/s{}", seed);
  return k;
}

SweepSpec load_spec(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return load_spec_text(read_file(path), path, dir.empty() ? "." : dir);
}

SweepSpec load_spec_text(const std::string& text, const std::string& source, const std::string& dir) {
  const Ctx x{source};
  SweepSpec s;
  s.source = source;
  s.text = text;
  s.name = std::filesystem::path(source).stem().string();
  YamlDocuments docs;
  try {
    docs = load_yaml_documents(text);
  } catch (const YAML::Exception& e) {
    fail("{}:{}: YAML syntax error: {}", source, e.mark.line + 1, e.msg);
  }
  if (docs.count == 0) fail("{}: a sweep spec is one YAML document, not an empty file", source);
  if (docs.count > 1)
    fail("{}:{}: a second YAML document ('---'); a sweep spec is one document", source, docs.second_start.line + 1);
  const YAML::Node& root = docs.first;
  if (!root.IsMap()) fail("{}: a sweep spec must be a YAML mapping", source);
  check_keys(x, root, "the sweep spec",
             {"name", "base", "set", "axes", "constraints", "networks", "objectives", "strategy", "funnel", "timeout",
              "device", "family", "pack_int8"});
  if (root["name"]) s.name = scalar(x, root["name"], "name");

  // The base config: a preset or a YAML file next to the spec.
  if (!root["base"]) fail("{}: the sweep spec needs base: PRESET (e.g. vta-1x16x16) or a config file", source);
  const std::string base = scalar(x, root["base"], "base");
  const std::filesystem::path local = std::filesystem::path(dir) / base;
  try {
    s.base = (base.ends_with(".yaml") || base.ends_with(".yml")) && path_exists(local) ? local.string()
                                                                                       : resolve_config_path(base);
  } catch (const Error& e) {
    fail("{}: base: {}", x.at(root["base"]), e.what());
  }
  s.base_text = read_file(s.base);
  try {
    load_config_text(s.base_text, s.base);
  } catch (const Error& e) {
    fail("{}: base {}: {}", x.at(root["base"]), base, e.what());
  }

  std::set<std::string> used;  // knobs set or swept, each at most once
  auto claim = [&](const std::string& key, const YAML::Node& at) {
    if (!used.insert(key).second) fail("{}: knob {} is already set or swept", x.at(at), key);
  };
  if (const YAML::Node& set = root["set"]) {
    if (!set.IsMap()) fail("{}: set must be a mapping of knob: value", x.at(set));
    for (auto it = set.begin(); it != set.end(); ++it) {
      const KnobInfo& k = knob(x, it->first);
      claim(k.key(), it->first);
      s.set.emplace_back(k.key(), knob_value(x, k, it->second));
      s.set_lines.push_back(it->first.Mark().line + 1);
    }
  }
  if (const YAML::Node& axes = root["axes"]) {
    if (!axes.IsSequence()) fail("{}: axes must be a list of axes", x.at(axes));
    double size = 1;
    for (const auto& a : axes) {
      Axis axis =
          a.IsMap() && a["zip"] ? (check_keys(x, a, "a zipped axis", {"zip"}), parse_zip(x, a)) : parse_axis(x, a);
      for (const auto& k : axis.keys) claim(k, a);
      size *= static_cast<double>(axis.values.size());
      if (size > 1e15) fail("{}: the design space has more than 10^15 points", x.at(a));
      s.axes.push_back(std::move(axis));
    }
  }
  if (const YAML::Node& cs = root["constraints"]) {
    if (!cs.IsSequence()) fail("{}: constraints must be a list of expressions", x.at(cs));
    for (const auto& c : cs) {
      Constraint con{scalar(x, c, "constraint"), c.Mark().line + 1};
      check_constraint(con, source);
      s.constraints.push_back(std::move(con));
    }
  }
  if (!root["networks"]) fail("{}: the sweep spec needs networks: (zoo names or onnx files)", source);
  const YAML::Node& nets = root["networks"];
  if (!nets.IsSequence() || nets.size() == 0) fail("{}: networks must be a non-empty list", x.at(nets));
  std::set<std::string> net_keys;
  for (const auto& n : nets)
    for (auto& net : parse_networks(x, n, dir)) {
      s.networks.push_back(std::move(net));
      if (!net_keys.insert(s.networks.back().key()).second)
        fail("{}: network {} is listed twice", x.at(n), s.networks.back().key());
    }
  if (const YAML::Node& objs = root["objectives"]) {
    if (!objs.IsSequence() || objs.size() == 0) fail("{}: objectives must be a non-empty list", x.at(objs));
    for (const auto& o : objs) s.objectives.push_back(parse_objective(x, o));
  } else {
    s.objectives = {{"cycles", false}};
  }
  if (const YAML::Node& st = root["strategy"]) parse_strategy(x, st, s);
  if (const YAML::Node& f = root["funnel"]) parse_funnel(x, f, s.funnel);
  if (const YAML::Node& t = root["timeout"]) s.timeout_s = duration(x, t, "timeout");
  if (const YAML::Node& d = root["device"]) s.device = scalar(x, d, "device");
  if (const YAML::Node& f = root["family"]) s.family = scalar(x, f, "family");
  if (const YAML::Node& pk = root["pack_int8"]) {
    const std::string v = scalar(x, pk, "pack_int8");
    if (v != "true" && v != "false") fail("{}: pack_int8 = '{}' is not a boolean (true or false)", x.at(pk), v);
    s.pack_int8 = v == "true";
  }
  if (!s.device.empty() || !s.family.empty()) {
    try {
      estimate_options(s);
      estimate::estimate(load_config_text(s.base_text, s.base), estimate_options(s));
    } catch (const Error& e) {
      fail("{}: {}", x.at(root[s.device.empty() ? "family" : "device"]), e.what());
    }
  }
  if (s.funnel.stage4_pnr && pnr_part(s.device).empty())
    fail(
        "{}: funnel.stage4 places and routes with nextpnr-ecp5, which needs an ECP5 device; {} (ECP5 devices: "
        "{})",
        x.at(root["funnel"]["stage4"]),
        s.device.empty() ? "the spec names none (device: lfe5u-85f)" : fmt::format("'{}' is not one", s.device),
        fmt::join(pnr_devices(), ", "));
  // Energy and the other cycle-model metrics exist from stage 2 on: stage 1
  // (which ranks the points for the funnel's stage-2 selection, and for
  // evolve) has no activity counts to rank on.
  if (const YAML::Node& objs = root["objectives"])
    for (size_t i = 0; i < s.objectives.size(); ++i) {
      const std::string& m = s.objectives[i].metric;
      if (is_place_route_metric(m))
        fail(
            "{}: objective {} is measured by stage 4's place and route, after the funnel's last selection, so no "
            "stage can rank on it; it is reported per point (vta sweep show, export)",
            x.at(objs[i]), m);
      if (!is_cycle_model_metric(m)) continue;
      const bool evolve = s.strategy == Strategy::Evolve;
      if (evolve || s.funnel.stage2_top_k > 0 || s.funnel.stage2_within_pct >= 0)
        fail(
            "{}: objective {} is measured from stage 2 (systemc) on, but {} on the stage-1 (analytic) objectives, "
            "which have no activity counts; {}",
            x.at(objs[i]), m, evolve ? "strategy evolve ranks designs" : "funnel.stage2 (top_k / within_pct) selects",
            evolve ? "use strategy grid or random"
                   : "drop funnel.stage2's top_k / within_pct (every valid point then runs stage 2)");
    }
  // The accuracy metrics cost a float and an integer run of the network per
  // input (once per network and element widths): measured when a network
  // asks (accuracy: N) or an objective names one.
  const bool ranks_accuracy = std::any_of(s.objectives.begin(), s.objectives.end(), [](const Objective& o) {
    const MetricInfo* m = find_metric(o.metric);
    return m && m->from == MetricFrom::ACCURACY;
  });
  for (auto& n : s.networks)
    if (n.accuracy < 0) n.accuracy = ranks_accuracy ? NetworkSpec::kAccuracyInputs : 0;
  if (s.strategy == Strategy::Evolve && s.axes.empty())
    fail("{}: strategy evolve needs at least one axis to mutate", source);
  // The points a run enumerates are held in memory (8 bytes each, and their
  // results after): a grid of 6*10^14 points ended in std::bad_alloc. Checked
  // here, before a store is created.
  double points = 1;
  for (const auto& a : s.axes) points *= static_cast<double>(a.values.size());
  const double listed = s.strategy == Strategy::Grid ? points : std::min(points, static_cast<double>(s.samples));
  if (s.strategy != Strategy::Evolve && listed > static_cast<double>(kMaxListedPoints))
    fail("{}: {} {:.3g} points, more than the {} one run lists; {}", source,
         s.strategy == Strategy::Grid ? "the grid has" : "strategy random samples", listed, kMaxListedPoints,
         s.strategy == Strategy::Grid ? "sample it (strategy: {kind: random, samples: N}) or search it (kind: evolve)"
                                      : "sample fewer");
  return s;
}

}  // namespace vta::sweeps
