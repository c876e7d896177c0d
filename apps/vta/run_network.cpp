#include "run_network.h"

#include <fstream>
#include <iostream>

#include "vta/compiler/compile.h"
#include "vta/compiler/onnx.h"
#include "vta/compiler/reference.h"
#include "vta/compiler/report.h"
#include "vta/compiler/runtime.h"
#include "vta/compiler/zoo.h"
#include "vta/isa/error.h"
#include "vta/isa/read_file.h"
#include "vta/isa/write_file.h"
#include "vta/sweeps/html.h"
#include "vta/sweeps/layer_energy.h"

namespace vta::app {

using namespace vta::compiler;

int run_network_command(const NetworkRunOptions& o, const Config& c) {
  ZooOptions zo;
  zo.seed = o.seed;
  zo.batch = o.batch;
  zo.image = o.image;
  Graph g;
  Tensor input;
  if (o.onnx.empty()) {
    g = build_zoo(o.model, zo);
    input = zoo_input(g, o.seed + 1000);
  } else {
    const std::string bytes = read_file(o.onnx, "--onnx");
    if (onnx_is_float_model(bytes)) {  // quantized post-training on a seeded input, which it then runs
      QuantizedModel q = import_onnx_float(bytes, o.onnx, {});
      g = std::move(q.graph);
      input = std::move(q.input);
    } else {
      g = import_onnx_bytes(bytes, o.onnx);
      input = zoo_input(g, o.seed + 1000);
    }
  }
  const CompiledNetwork net = compile(g, c, o.dump_after);
  auto backend = make_backend(o.backend, c, o.backend_options);
  const NetworkResult res = run_network(net, *backend, input);
  const bool timing_only = o.backend_options.timing_only;
  bool passed = true;
  if (!timing_only) {
    const std::vector<Tensor> ref = run_graph(g, input);
    const Tensor& want = ref[static_cast<size_t>(g.output)];
    passed = want.data == res.output.data && want.wide == res.output.wide;  // wide: int32 outputs
  }
  Report r = make_report(net, res, c, backend->name());
  r.tool = o.tool;
  r.check_passed = passed;
  r.check_text = timing_only ? "skipped (timing-only mode computes no tensors)" : passed ? "pass" : "FAIL";
  sweeps::add_energy(r, res, c, estimate::default_tech(), 0.0);
  std::cout << report_table(r);
  if (timing_only) std::cout << "check: skipped (timing-only mode computes no tensors)\n";
  if (!o.report_csv.empty()) write_file(o.report_csv, report_csv(r), "--report-csv");
  if (!o.report_json.empty()) write_file(o.report_json, report_json(r).dump(2) + "\n", "--report-json");
  if (!o.report_html.empty()) write_file(o.report_html, sweeps::run_report_html(r), "--report-html");
  return passed ? 0 : 1;
}

}  // namespace vta::app
