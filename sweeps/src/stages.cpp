// Stages 1-3 (stages.h). Each catches nothing: the runner turns an exception
// into a failed row, so a stage body reads like the work it does.
#include "vta/sweeps/stages.h"

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "vta/compiler/analytic.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/ir/node_facts.h"
#include "vta/compiler/ops/float_reference.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/accuracy.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/estimate/energy.h"
#include "vta/isa/error.h"
#include "vta/isa/read_file.h"
#include "vta/model/backend.h"
#include "vta/sweeps/layer_energy.h"
#include "vta/sweeps/tune.h"

namespace vta::sweeps {

using namespace vta::compiler;

const char* stage_name(int stage) {
  switch (stage) {
    case kStageConfig:
      return "config";
    case kStageAnalytic:
      return "analytic";
    case kStageSystemC:
      return "systemc";
    case kStageVerify:
      return "verify";
    case kStagePnr:
      return "pnr";
  }
  return "?";
}

nlohmann::ordered_json StageResult::to_json() const {
  nlohmann::ordered_json j;
  j["stage"] = stage;
  j["status"] = status;
  if (!error.empty()) j["error"] = error;
  if (!check.empty()) j["check"] = check;
  j["wall_s"] = wall_s;
  nlohmann::ordered_json m = nlohmann::ordered_json::object();
  for (const auto& [k, v] : metrics.values) m[k] = v;
  j["metrics"] = m;
  j["layers"] = nlohmann::ordered_json::array();
  for (const auto& l : layers)
    j["layers"].push_back(
        {l.name, l.op, l.device, l.macs, l.cycles, l.load, l.gemm, l.alu, l.store, l.stall, l.dram_bytes, l.energy_uj});
  return j;
}

StageResult StageResult::from_json(const nlohmann::json& j) {
  StageResult r;
  r.stage = j.at("stage").get<int>();
  r.status = j.at("status").get<std::string>();
  r.error = j.value("error", "");
  r.check = j.value("check", "");
  r.wall_s = j.value("wall_s", 0.0);
  for (auto it = j.at("metrics").begin(); it != j.at("metrics").end(); ++it)
    r.metrics.values.emplace_back(it.key(), it.value().get<double>());
  for (const auto& l : j.at("layers"))
    r.layers.push_back(LayerRow{l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8], l[9], l[10],
                                l.size() > 11 ? l[11].get<double>() : -1.0});
  return r;
}

PreparedNetwork prepare_network(const NetworkSpec& n, const std::string& spec_source, bool use_cache) {
  PreparedNetwork p;
  p.spec = n;
  try {
    if (!n.zoo.empty()) {
      ZooOptions zo;
      zo.seed = n.seed;
      zo.batch = n.batch;
      zo.image = n.image;
      ZooRun z = zoo_run(n.zoo, zo, kAnyConfig, /*want_reference=*/false, use_cache);
      p.graph = std::move(z.graph);
      p.input = std::move(z.input);
    } else {
      const std::string bytes = read_file(n.onnx, "onnx", kModelReadLimit);
      if (onnx_is_float_model(bytes)) {
        QuantizedModel q = import_onnx_float(bytes, n.onnx, {});
        p.graph = std::move(q.graph);
        p.input = std::move(q.input);
      } else {
        p.graph = import_onnx_bytes(bytes, n.onnx);
        p.input = zoo_input(p.graph, n.seed + 1000);
      }
    }
  } catch (const Error& e) {
    fail("{}:{}: network {}: {}", spec_source, n.line, n.key(), e.what());
  }
  return p;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// The network at element widths (a, w): a zoo network built at them (once
// per process and widths: the zoo quantizes to them, frontend/zoo.h), any
// other as prepared (ONNX models import as int8, and the compiler names the
// knob at other widths).
const PreparedNetwork& network_at_widths(const PreparedNetwork& n, int a, int w) {
  if (n.spec.zoo.empty() || (n.graph.at(0).bits == a && n.graph.wgt_bits == w)) return n;
  static std::mutex mu;
  static std::map<std::string, PreparedNetwork> cache;
  const std::string key = fmt::format("{}|a{}|w{}", n.spec.key(), a, w);
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  ZooOptions zo;
  zo.seed = n.spec.seed;
  zo.batch = n.spec.batch;
  zo.image = n.spec.image;
  zo.act_bits = a;
  zo.wgt_bits = w;
  ZooRun z = zoo_run(n.spec.zoo, zo, kAnyConfig, /*want_reference=*/false);
  const std::lock_guard<std::mutex> lock(mu);
  return cache.emplace(key, PreparedNetwork{n.spec, std::move(z.graph), std::move(z.input)}).first->second;
}

namespace {

// The network at the config's element widths (network_at_widths()).
const PreparedNetwork& at_widths(const PreparedNetwork& n, const Config& c) {
  return network_at_widths(n, static_cast<int>(c.dtype.inp_bits), static_cast<int>(c.dtype.wgt_bits));
}

// The ACCURACY metrics of metrics.def (top1_agree, sqnr_db): the integer
// network against the float network on the network's `accuracy:` inputs,
// drawn from seed + 1000 on as `vta run --model M --accuracy N` draws them.
// They depend on the network and the element widths only, so each worker
// computes them once per (network, widths) and keeps them; none when the
// network has no float form (an imported integer model) or accuracy: 0.
void add_accuracy(Metrics& m, const Config& c, const PreparedNetwork& prepared) {
  if (prepared.spec.accuracy <= 0) return;
  const PreparedNetwork& n = at_widths(prepared, c);
  static std::map<std::string, std::optional<Accuracy>> cache;
  const std::string key = fmt::format("{}|{}|{}", n.spec.key(), n.spec.accuracy, nondefault_widths(c));
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::optional<Accuracy> a;
    if (float_form_problem(n.graph).empty())
      a = measure_accuracy(n.graph, static_cast<int>(n.spec.accuracy), n.spec.seed + 1000);
    it = cache.emplace(key, std::move(a)).first;
  }
  if (!it->second) return;
  m.set("top1_agree", it->second->top1_agree());
  m.set("sqnr_db", it->second->output_sqnr_db);
}

// Rows and metrics of a run's per-layer report (energy when the report has it).
void fill_from_report(StageResult& r, const Report& rep, const Config& c, const PreparedNetwork& n) {
  int64_t vta_macs = 0;
  double bytes = 0;
  for (const auto& w : rep.rows) {
    const double b = static_cast<double>(w.bytes_inp + w.bytes_wgt + w.bytes_acc + w.bytes_uop + w.bytes_out);
    r.layers.push_back(LayerRow{w.layer, w.op, w.device, w.macs, static_cast<double>(w.cycles),
                                static_cast<double>(w.load), static_cast<double>(w.gemm), static_cast<double>(w.alu),
                                static_cast<double>(w.store), static_cast<double>(w.stall), b, w.energy_uj});
    if (w.device == "vta") vta_macs += w.macs;
    bytes += b;
  }
  r.metrics = network_metrics(c, {static_cast<double>(rep.total.cycles), bytes, rep.total.macs, vta_macs,
                                  n.graph.at(0).out.n, rep.total.host_model_ms});
  if (rep.total.energy_uj >= 0) r.metrics.set("energy_uj", rep.total.energy_uj);
  add_accuracy(r.metrics, c, n);
}

// The per-layer report of a cycle-model run, with its energy.
Report energy_report(const CompiledNetwork& net, const NetworkResult& res, const Config& c, const std::string& backend,
                     double static_w) {
  Report rep = make_report(net, res, c, backend);
  add_energy(rep, res, c, estimate::default_tech(), static_w);
  return rep;
}

}  // namespace

StageResult stage_analytic(const Config& c, const PreparedNetwork& prepared, bool layers) {
  const PreparedNetwork& n = at_widths(prepared, c);
  const auto t0 = std::chrono::steady_clock::now();
  StageResult r;
  r.stage = kStageAnalytic;
  // The graph passes' result, kept while the worker's designs share the
  // network and the knobs the passes read (graph_pass_knobs()): a sweep's
  // neighbours differ in the clock, memory and pipeline knobs.
  thread_local std::string passed_key;
  thread_local Graph passed;
  thread_local std::optional<KeepNodeFacts> facts;  // the passed graph's, computed once (node_facts.h)
  const std::string key =
      fmt::format("{}|a{}|w{}|n{}|", n.spec.key(), n.graph.at(0).bits, n.graph.wgt_bits, n.graph.nodes.size()) +
      graph_pass_knobs(c);
  if (key != passed_key) {
    passed_key.clear();  // the passes may throw: no stale graph under the new key
    facts.reset();
    check_compilable(c);  // as estimate_network(): its message first
    passed = run_graph_passes(n.graph, c);
    facts.emplace(passed);
    passed_key = key;
  }
  const NetworkEstimate e = estimate_passed(passed, c);
  if (layers) {
    r.layers.reserve(e.layers.size());
    for (const auto& l : e.layers)
      r.layers.push_back(LayerRow{l.name, l.op, device_name(l.device), l.macs, l.cycles, l.load, l.gemm, l.alu, l.store,
                                  0, l.bytes()});
  }
  r.metrics = network_metrics(c, {e.cycles, e.bytes, e.macs, e.vta_macs, n.graph.at(0).out.n, e.host_us / 1e3});
  add_accuracy(r.metrics, c, n);
  r.wall_s = seconds_since(t0);
  return r;
}

namespace {

// compile() with the tuned tiles when `tune` > 0; `runs`: the SystemC runs tuning made.
CompiledNetwork compile_tuned(const Config& c, const PreparedNetwork& n, int tune, int& runs) {
  if (tune <= 0) return compile(n.graph, c);
  const TuneResult t = tune_network(n.graph, c, tune, n.input, tune_cache_path());
  runs = t.systemc_runs;
  CompileOptions o;
  o.tiles = t.tiles;
  return compile(n.graph, c, o);
}

}  // namespace

StageResult stage_systemc(const Config& c, const PreparedNetwork& prepared, double static_w, int tune) {
  const PreparedNetwork& n = at_widths(prepared, c);
  const auto t0 = std::chrono::steady_clock::now();
  StageResult r;
  r.stage = kStageSystemC;
  int tune_runs = 0;
  const CompiledNetwork net = compile_tuned(c, n, tune, tune_runs);
  BackendOptions bo;
  bo.timing_only = true;
  auto backend = make_backend("systemc", c, bo);
  const NetworkResult res = run_network(net, *backend, n.input);
  fill_from_report(r, energy_report(net, res, c, backend->name(), static_w), c, n);
  if (tune > 0) r.metrics.set("tune_systemc_runs", static_cast<double>(tune_runs));
  r.wall_s = seconds_since(t0);
  return r;
}

StageResult stage_verify(const Config& c, const PreparedNetwork& prepared, const RtlCheck& rtl, double static_w,
                         int tune) {
  const PreparedNetwork& n = at_widths(prepared, c);
  const auto t0 = std::chrono::steady_clock::now();
  StageResult r;
  r.stage = kStageVerify;
  int tune_runs = 0;
  const CompiledNetwork net = compile_tuned(c, n, tune, tune_runs);
  auto backend = make_backend("systemc", c);
  const NetworkResult res = run_network(net, *backend, n.input);
  const Report rep = energy_report(net, res, c, backend->name(), static_w);
  fill_from_report(r, rep, c, n);
  if (tune > 0) r.metrics.set("tune_systemc_runs", static_cast<double>(tune_runs));
  const std::vector<Tensor> ref = run_graph(n.graph, n.input);
  const Tensor& want = ref[static_cast<size_t>(n.graph.output)];
  const bool exact = want.data == res.output.data && want.wide == res.output.wide;
  std::vector<Check> checks{{"bit-exact", exact ? "passed" : "failed",
                             exact ? "systemc output bit-exact with the integer reference"
                                   : "systemc OUTPUT MISMATCH with the integer reference"}};
  if (rtl.run) {
    Check k{"rtl", "not run", ""};
    bool have = false;
    for (const auto& [name, d] : backends()) have = have || name == "verilator";
    std::unique_ptr<Backend> b;
    if (!have)
      k.detail = "the verilator backend is not built into this binary";
    else if (!rtl.unavailable.empty())
      k.detail = rtl.unavailable;
    else
      try {
        b = make_backend("verilator", c);
      } catch (const Error& e) {  // a config outside the RTL, or its model does not build
        k.detail = e.what();
      }
    if (b) {
      const NetworkResult rr = run_network(net, *b, n.input);
      const Report rrep = make_report(net, rr, c, b->name());
      const bool same_out = rr.output.data == res.output.data && rr.output.wide == res.output.wide;
      const bool same_cycles = rrep.total.cycles == rep.total.cycles;
      r.metrics.set("rtl_cycles", static_cast<double>(rrep.total.cycles));
      k.outcome = same_cycles && same_out ? "passed" : "failed";
      k.detail = fmt::format("verilator {} cycles, {}; output {}", rrep.total.cycles,
                             same_cycles ? "identical to systemc" : "DIFFERENT from systemc",
                             same_out ? "identical" : "DIFFERENT");
    } else if (rtl.optional) {
      k.outcome = "optional";
    }
    checks.push_back(k);
  }
  r.check = checks_text(checks);
  for (const Check& k : checks)
    if ((k.outcome == "failed" || k.outcome == "not run") && r.status == "ok")
      r.status = "failed", r.error = fmt::format("{} check {}: {}", k.name, k.outcome, k.detail);
  r.wall_s = seconds_since(t0);
  return r;
}

std::string checks_text(const std::vector<Check>& checks) {
  std::string out;
  for (const Check& k : checks)
    out += fmt::format("{}{}: {}{}", out.empty() ? "" : "; ", k.name, k.outcome,
                       k.detail.empty() ? "" : " (" + k.detail + ")");
  return out;
}

std::vector<Check> parse_checks(const std::string& text) {
  static const char* const names[] = {"bit-exact", "rtl", "pnr"};
  static const char* const outcomes[] = {"passed", "failed", "not run", "optional"};
  // Where each "NAME: OUTCOME" starts: the text's start or after "; ".
  auto check_at = [&](size_t at, Check& k) {
    for (const char* name : names)
      for (const char* outcome : outcomes) {
        const std::string head = fmt::format("{}: {}", name, outcome);
        if (text.compare(at, head.size(), head) != 0) continue;
        const size_t end = at + head.size();
        if (end != text.size() && text.compare(end, 2, " (") != 0 && text.compare(end, 2, "; ") != 0) continue;
        k = Check{name, outcome, ""};
        return end;
      }
    return std::string::npos;
  };
  std::vector<Check> out;
  Check k;
  size_t at = check_at(0, k);
  if (text.empty()) return out;
  if (at == std::string::npos) {
    const bool bad = text.find("MISMATCH") != std::string::npos || text.find("DIFFERENT") != std::string::npos;
    return {Check{"check", bad ? "failed" : "passed", text}};
  }
  while (at != std::string::npos) {
    // The detail runs to the next "; NAME: OUTCOME" (details may hold "; ").
    size_t next = std::string::npos, next_end = std::string::npos;
    Check n;
    for (size_t p = text.find("; ", at); p != std::string::npos; p = text.find("; ", p + 1))
      if ((next_end = check_at(p + 2, n)) != std::string::npos) {
        next = p;
        break;
      }
    std::string detail = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
    if (detail.size() >= 3 && detail.compare(0, 2, " (") == 0 && detail.back() == ')')
      k.detail = detail.substr(2, detail.size() - 3);
    out.push_back(k);
    k = n;
    at = next_end;
  }
  return out;
}

}  // namespace vta::sweeps
