#include "run_network.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/onnx_inputs.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/ops/float_reference.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/passes/pin_host_ops.h"
#include "vta/compiler/run/accuracy.h"
#include "vta/compiler/run/memory_split.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/layer_energy.h"
#include "vta/sweeps/tune.h"

namespace vta::app {

using namespace vta::compiler;

namespace {

const Node& input_node(const Graph& g) {
  for (const auto& n : g.nodes)
    if (n.op == Op::Input) return n;
  fail("graph {}: no input node", g.name);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One run of an ONNX model on given tensors: compiled, run on the backend,
// checked against the integer reference; returns the output's ONNX values.
struct OnnxRun {
  Report report;  // the per-layer report of the run
  std::vector<int64_t> output;
  NpyArray array;  // the output in its ONNX type and dims
  bool matches_reference = false;
  std::string output_name;
};

OnnxRun run_onnx_with(const std::string& model_path, const std::map<std::string, std::string>& files,
                      const NetworkRunOptions& o, const Config& c) {
  std::string activation;
  const std::string bytes =
      bind_operands(read_file(model_path, "--onnx", kModelReadLimit), files, model_path, activation);
  if (onnx_is_float_model(bytes))
    fail("{}: given inputs are supported for integer (QDQ, QLinear, *Integer) models, this one takes a float input",
         model_path);
  const Graph g = import_onnx_bytes(bytes, model_path);
  auto it = files.find(activation);
  if (it == files.end()) fail("{}: no --input for the model's input '{}'", model_path, activation);
  const Node& in = input_node(g);
  const Tensor input = input_tensor(read_tensor_file(it->second, {activation, in.out.size()}), in, it->second);
  CompileOptions co;
  co.dump_after = o.dump_after;
  co.host_ops = o.host_ops;
  const CompiledNetwork net = compile(g, c, co);
  auto backend = make_backend(o.backend, c, o.backend_options);
  const NetworkResult res = run_network(net, *backend, input);
  const Tensor want = run_graph(g, input)[static_cast<size_t>(g.output)];
  OnnxRun r;
  // --timing-only computes no tensors: nothing to compare, and nothing said to match.
  const bool timing_only = o.backend_options.timing_only;
  r.matches_reference = timing_only || (want.data == res.output.data && want.wide == res.output.wide &&
                                        float_bits(want.real) == float_bits(res.output.real));
  r.report = make_report(net, res, c, backend->name());
  r.report.tool = o.tool;
  r.report.check_passed = r.matches_reference;
  r.report.check_text = timing_only           ? "skipped (timing-only mode computes no tensors)"
                        : r.matches_reference ? "pass"
                                              : "FAIL";
  r.output = output_values(res.output, g.at(g.output));
  r.array = output_array(res.output, g.at(g.output), bytes);
  r.output_name = g.at(g.output).name;
  return r;
}

// `--why-host`: one line per host node, with its reason.
std::string why_host_text(const Report& r) {
  std::string out;
  int host = 0;
  for (const auto& w : r.rows)
    if (!w.host_reason.empty()) out += fmt::format("  {} ({}): {}\n", w.layer, w.op, w.host_reason), ++host;
  return fmt::format("{} node{} on the host:\n", host, host == 1 ? "" : "s") + out;
}

// --report-csv / --report-json / --report-html of a run on given inputs.
void write_reports(const NetworkRunOptions& o, const Report& r) {
  if (!o.report_csv.empty()) write_file(o.report_csv, report_csv(r), "--report-csv");
  if (!o.report_json.empty()) write_file(o.report_json, report_json(r).dump(2) + "\n", "--report-json");
  if (!o.report_html.empty()) write_file(o.report_html, sweeps::run_report_html(r), "--report-html");
}

std::string describe(const Mismatch& m) {
  if (m.differing == 0) return fmt::format("bit-exact ({} elements)", m.elements);
  return fmt::format("{} of {} elements differ, largest difference {}, first at index {}", m.differing, m.elements,
                     m.largest, m.first);
}

// `vta run --onnx-test DIR`: every test_data_set_N of an ONNX test folder.
int run_onnx_test(const NetworkRunOptions& o, const Config& c) {
  namespace fs = std::filesystem;
  const fs::path dir = o.onnx_test, model = dir / "model.onnx";
  require_regular_file(model.string(), "--onnx-test");
  if (!path_is_file(model))
    fail("{}: no model.onnx (an ONNX test folder holds model.onnx and test_data_set_N/)", dir.string());
  const std::vector<std::string> names = onnx_graph_inputs(read_file(model.string(), "--onnx-test", kModelReadLimit));
  std::vector<fs::path> sets;
  for (const auto& e : list_dir(dir))
    if (path_is_dir(e.path()) && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) fail("{}: no test_data_set_N folder", dir.string());
  bool all = true;
  for (const auto& set : sets) {
    std::map<std::string, std::string> files;
    for (size_t k = 0; k < names.size(); ++k) {
      const fs::path f = set / fmt::format("input_{}.pb", k);
      if (!path_exists(f)) fail("{}: missing (the model has {} inputs)", f.string(), names.size());
      files[names[k]] = f.string();
    }
    const fs::path want_file = set / "output_0.pb";
    const OnnxRun r = run_onnx_with(model.string(), files, o, c);
    const Mismatch m = compare_values(
        r.output, read_tensor_file(want_file.string(), {r.output_name, static_cast<int64_t>(r.output.size())}).values,
        want_file.string());
    const bool ok = m.differing == 0 && r.matches_reference;
    all = all && ok;
    std::cout << fmt::format("{}: {}{}\n", set.filename().string(), describe(m),
                             r.matches_reference ? "" : "; the backend differs from the integer reference");
  }
  return all ? 0 : 1;
}

// `vta run --onnx M --input NAME=FILE ... [--expect F] [--output-dir D]`.
int run_onnx_inputs(const NetworkRunOptions& o, const Config& c) {
  std::map<std::string, std::string> files;
  for (const auto& spec : o.inputs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) fail("--input '{}': give NAME=FILE", spec);
    if (!files.emplace(spec.substr(0, eq), spec.substr(eq + 1)).second)
      fail("--input {}: given twice", spec.substr(0, eq));
  }
  const OnnxRun r = run_onnx_with(o.onnx, files, o, c);
  bool ok = r.matches_reference;
  if (o.backend_options.timing_only)
    std::cout << "check: skipped (timing-only mode computes no tensors)\n";
  else
    std::cout << fmt::format("{}: backend {} {} the integer reference\n", r.output_name, o.backend,
                             r.matches_reference ? "matches" : "DIFFERS FROM");
  if (!o.expect.empty()) {
    const Mismatch m = compare_values(
        r.output, read_tensor_file(o.expect, {r.output_name, static_cast<int64_t>(r.output.size())}).values, o.expect);
    std::cout << fmt::format("{}: against {}: {}\n", r.output_name, o.expect, describe(m));
    ok = ok && m.differing == 0;
  }
  if (o.why_host) std::cout << why_host_text(r.report);
  write_reports(o, r.report);
  if (!o.output_dir.empty()) {
    // The name comes from the model file: a path ("../x", "/etc/x") would
    // put the output outside the folder.
    if (!is_plain_file_name(r.output_name))
      fail("--output-dir {}: the model's output '{}' is not a plain file name, so it cannot name the output file",
           o.output_dir, r.output_name);
    make_dirs(o.output_dir, "--output-dir");
    const std::string path = (std::filesystem::path(o.output_dir) / (r.output_name + ".npy")).string();
    write_npy(path, r.array);
    std::cout << fmt::format("wrote {}\n", path);
  }
  return ok ? 0 : 1;
}

}  // namespace

int run_network_command(const NetworkRunOptions& o, const Config& c) {
  if (!o.onnx_test.empty() && (!o.report_csv.empty() || !o.report_json.empty() || !o.report_html.empty() ||
                               !o.dump_after.empty() || o.why_host))
    fail(
        "run: --report-csv, --report-json, --report-html, --dump-after and --why-host apply to --model and --onnx "
        "runs (with or without --input), not to --onnx-test (one run per test set)");
  if ((!o.onnx_test.empty() || !o.inputs.empty()) && o.accuracy)
    fail(
        "run: --accuracy compares with the float network on inputs drawn like the calibration input; it applies to "
        "--model and --onnx runs on the built-in input, not with --input or --onnx-test");
  if (o.accuracy && (*o.accuracy < 1 || *o.accuracy > 10000))
    fail("run: --accuracy {}: give the number of inputs to compare on, 1 to 10000", *o.accuracy);
  check_pass_name(o.dump_after);  // before the network is built
  // No report may replace the model or an input file: checked before anything runs.
  if (!o.onnx.empty()) {
    require_regular_file(o.onnx, "--onnx");  // a folder or a fifo says so (a fifo would read as an empty model)
    note_input(o.onnx, "--onnx");
  }
  for (const auto& kv : o.inputs)
    if (const size_t eq = kv.find('='); eq != std::string::npos) note_input(kv.substr(eq + 1), "--input");
  if (!o.expect.empty()) note_input(o.expect, "--expect");
  for (const auto& [opt, path] : {std::pair{"--report-csv", o.report_csv}, std::pair{"--report-json", o.report_json},
                                  std::pair{"--report-html", o.report_html}})
    if (!path.empty()) check_output(path, opt);
  if (o.tune || !o.tune_cache.empty()) {
    if (!o.onnx_test.empty() || !o.inputs.empty())
      fail("run: --tune applies to --model and --onnx runs, not with --input or --onnx-test");
    if (!o.tune) fail("run: --tune-cache {} needs --tune N", o.tune_cache);
    sweeps::check_tune_count(*o.tune, "--tune");
  }
  pin_host_ops(Graph{}, o.host_ops);  // names checked before the network is built
  check_compilable(c);                // the widths' rules, before a network is built for them
  if (!o.onnx.empty() || !o.onnx_test.empty())
    for (const auto& [knob, bits] :
         {std::pair{"dtype.inp_bits", c.dtype.inp_bits}, std::pair{"dtype.wgt_bits", c.dtype.wgt_bits},
          std::pair{"dtype.out_bits", c.dtype.out_bits}})
      if (bits != 8)
        fail("{}: {} is {}: ONNX models import as int8 (their QDQ tensors), so they run at 8 bits only",
             o.onnx.empty() ? o.onnx_test : o.onnx, knob, bits);
  if (o.backend_options.timing_only && (!o.onnx_test.empty() || !o.expect.empty() || !o.output_dir.empty()))
    fail("run: --timing-only computes no output tensors, so {} cannot go with it",
         !o.onnx_test.empty() ? "--onnx-test (it compares each test set's output)"
         : !o.expect.empty()  ? "--expect"
                              : "--output-dir");
  if (!o.onnx_test.empty()) return run_onnx_test(o, c);
  if (!o.inputs.empty()) return run_onnx_inputs(o, c);
  if (!o.expect.empty() || !o.output_dir.empty()) fail("run: --expect and --output-dir need --onnx with --input");
  ZooOptions zo;
  zo.seed = o.seed;
  zo.batch = o.batch;
  zo.image = o.image;
  zo.act_bits = c.dtype.inp_bits;  // the zoo quantizes to the config's widths
  zo.wgt_bits = c.dtype.wgt_bits;
  const bool timing_only = o.backend_options.timing_only;
  Graph g;
  Tensor input;
  std::optional<Tensor> want;  // the integer reference's output, when the zoo cache gave it
  std::string network_line;    // where the network came from and how long it took
  if (o.onnx.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    ZooRun z = zoo_run(o.model, zo, c.hash(), !timing_only, !o.no_cache);
    // A cache folder that cannot be written (read-only, full) is no error,
    // but the line says so instead of claiming the entry was written.
    const std::string entry = zoo_cache_path(o.model, zo, c.hash());
    const std::string unwritten =
        z.cache_not_written.empty() ? "" : "; not written to the zoo cache: " + z.cache_not_written;
    network_line = fmt::format("network {:.2f} s ({}{}){}\n", seconds_since(t0),
                               o.no_cache                    ? "built and calibrated, --no-cache"
                               : z.from_cache                ? "read from the zoo cache " + entry
                               : z.cache_not_written.empty() ? "built and calibrated, written to the zoo cache " + entry
                                                             : "built and calibrated",
                               unwritten, z.reference_from_cache ? ", with the integer reference's output" : "");
    g = std::move(z.graph);
    input = std::move(z.input);
    want = std::move(z.reference);
  } else {
    const std::string bytes = read_file(o.onnx, "--onnx", kModelReadLimit);
    if (const auto names = onnx_graph_inputs(bytes); names.size() > 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      fail(
          "{}: the model has {} graph inputs ({}); give their values with --input NAME=FILE, or run its test "
          "folder with --onnx-test DIR",
          o.onnx, names.size(), list);
    }
    if (onnx_is_float_model(bytes)) {  // quantized post-training on a seeded input, which it then runs
      QuantizedModel q = import_onnx_float(bytes, o.onnx, {});
      g = std::move(q.graph);
      input = std::move(q.input);
    } else {
      g = import_onnx_bytes(bytes, o.onnx);
      input = zoo_input(g, o.seed + 1000);
    }
  }
  if (o.accuracy)  // before anything runs
    if (const std::string why = float_form_problem(g); !why.empty())
      fail("run: --accuracy: {} has no float network to compare with: {}", o.onnx.empty() ? o.model : o.onnx, why);
  CompileOptions co;
  co.host_ops = o.host_ops;
  std::optional<sweeps::TuneResult> tuned;
  if (o.tune) {
    tuned = sweeps::tune_network(g, c, static_cast<int>(*o.tune), input, sweeps::tune_cache_path(o.tune_cache), co);
    co.tiles = tuned->tiles;
  }
  co.dump_after = o.dump_after;
  const CompiledNetwork net = compile(g, c, co);
  auto backend = make_backend(o.backend, c, o.backend_options);
  const NetworkResult res = run_network(net, *backend, input);
  bool passed = true;
  if (!timing_only) {
    if (!want) want = std::move(run_graph(g, input)[static_cast<size_t>(g.output)]);
    passed = want->data == res.output.data && want->wide == res.output.wide;  // wide: int32 outputs
  }
  Report r = make_report(net, res, c, backend->name());
  r.tool = o.tool;
  r.check_passed = passed;
  r.check_text = timing_only ? "skipped (timing-only mode computes no tensors)" : passed ? "pass" : "FAIL";
  sweeps::add_energy(r, res, c, estimate::default_tech(), 0.0);
  // With a DRAM preset and a cycle model: where the memory's cycles go.
  if (memory_split_applies(c) && r.total.timed) add_memory_split(r, net, c, res, input);
  std::cout << report_table(r) << network_line;
  if (o.why_host) std::cout << why_host_text(r);
  if (tuned) std::cout << sweeps::tune_table(*tuned);
  std::optional<Accuracy> accuracy;
  if (o.accuracy) {
    accuracy = measure_accuracy(g, static_cast<int>(*o.accuracy), o.seed + 1000);
    std::cout << accuracy_text(*accuracy);
  }
  if (timing_only) std::cout << "check: skipped (timing-only mode computes no tensors)\n";
  if (!o.report_csv.empty()) write_file(o.report_csv, report_csv(r), "--report-csv");
  if (!o.report_json.empty()) {
    nlohmann::ordered_json j = report_json(r);
    if (tuned) j["tuning"] = sweeps::tune_json(*tuned);
    if (accuracy) j["accuracy"] = accuracy_json(*accuracy);
    write_file(o.report_json, j.dump(2) + "\n", "--report-json");
  }
  if (!o.report_html.empty()) write_file(o.report_html, sweeps::run_report_html(r), "--report-html");
  return passed ? 0 : 1;
}

}  // namespace vta::app
