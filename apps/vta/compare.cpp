// `vta compare` (see compare.h).
#include "compare.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "run_and_exit.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/passes/pin_host_ops.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/read_file.h"
#include "vta/model/image.h"
#include "vta/sweeps/tune.h"

namespace vta::app {

namespace {

struct CompareOpts {
  std::string backends = "systemc,verilator";
  std::string program, model, onnx;
  std::string config = "vta-1x16x16";
  std::vector<std::string> sets;
  uint32_t seed = 1;
  int64_t image = 0;
  double max_diff = -1;
  std::vector<std::string> host_ops;  // op kinds forced to the host (compiler::pin_host_ops())
  std::optional<int64_t> tune;        // --tune N: tuned tiles (sweeps/tune.h)
  std::string tune_cache;             // its cache file (empty: the default rule)
};

/// Cycles per region (in first-seen order) of one backend's run.
struct Column {
  std::string backend;
  std::vector<std::pair<std::string, uint64_t>> regions;
  uint64_t total = 0;
  std::vector<uint8_t> result;  // output bytes, for the equality check
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    if (comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

uint64_t cycles_of(const Stats& s, const std::string& backend) {
  if (!s.has("cycles.total"))
    fail("compare: backend '{}' reports no cycles (only cycle models can be compared)", backend);
  return s.get("cycles.total");
}

Column run_program(const CompareOpts& o, const Config& c, const std::string& backend) {
  ProgramImage image = read_program(o.program, c);
  auto be = make_backend(backend, c);
  be->run(install(image, *be));
  const RunStats st = be->stats();
  Column col{backend, {}, cycles_of(st.total, backend), {}};
  for (const auto& [name, s] : st.regions) col.regions.emplace_back(name, cycles_of(s, backend));
  for (const auto& b : image.buffers) {
    auto bytes = be->dram().read(b.addr, b.bytes());
    col.result.insert(col.result.end(), bytes.begin(), bytes.end());
  }
  return col;
}

Column run_net(const compiler::CompiledNetwork& net, const compiler::Tensor& input, const Config& c,
               const std::string& backend) {
  auto be = make_backend(backend, c);
  const compiler::NetworkResult res = compiler::run_network(net, *be, input);
  Column col{backend, {}, 0, {}};
  for (const auto& l : res.layers) {
    if (l.stats.items().empty()) continue;  // host layers
    const uint64_t cyc = cycles_of(l.stats, backend);
    col.regions.emplace_back(net.graph.nodes[static_cast<size_t>(l.node)].name, cyc);
    col.total += cyc;
  }
  col.result.assign(
      reinterpret_cast<const uint8_t*>(res.output.data.data()),
      reinterpret_cast<const uint8_t*>(res.output.data.data()) + res.output.data.size() * sizeof(int16_t));
  const auto* wide = reinterpret_cast<const uint8_t*>(res.output.wide.data());  // int32 outputs
  col.result.insert(col.result.end(), wide, wide + res.output.wide.size() * 4);
  return col;
}

int compare(const CompareOpts& o) {
  const std::vector<std::string> names = split(o.backends);
  if (names.size() < 2) fail("compare: --backends needs at least two backends, got '{}'", o.backends);
  const int inputs = !o.program.empty() + !o.model.empty() + !o.onnx.empty();
  if (inputs != 1) fail("compare: give exactly one of a program, --model or --onnx");
  if (!o.host_ops.empty() && !o.program.empty())
    fail("compare: --host-ops applies to --model or --onnx, not to programs");
  compiler::pin_host_ops(compiler::Graph{}, o.host_ops);  // names checked before anything runs
  if ((o.tune || !o.tune_cache.empty()) && !o.program.empty())
    fail("compare: --tune applies to --model or --onnx, not to programs");
  if (!o.tune_cache.empty() && !o.tune) fail("compare: --tune-cache {} needs --tune N", o.tune_cache);
  if (o.tune) sweeps::check_tune_count(*o.tune, "--tune");
  std::vector<Override> ov;
  for (const auto& s : o.sets) ov.push_back(parse_override(s));
  const Config c = load_config(resolve_config_path(o.config), ov);

  std::vector<Column> cols;
  std::string what;
  if (!o.program.empty()) {
    what = o.program;
    for (const auto& b : names) cols.push_back(run_program(o, c, b));
  } else {
    compiler::Graph g;
    compiler::Tensor input;
    if (!o.model.empty()) {
      compiler::ZooOptions zo;
      zo.seed = o.seed;
      zo.image = o.image;
      zo.act_bits = c.dtype.inp_bits;  // quantized to the config's widths
      zo.wgt_bits = c.dtype.wgt_bits;
      // Through the zoo cache: the network does not depend on the designs compared.
      compiler::ZooRun z = compiler::zoo_run(o.model, zo, compiler::kAnyConfig, /*want_reference=*/false);
      g = std::move(z.graph);
      input = std::move(z.input);
      what = o.model;
    } else {
      require_regular_file(o.onnx, "--onnx");
      const std::string bytes = read_file(o.onnx, "--onnx", kModelReadLimit);
      if (compiler::onnx_is_float_model(bytes)) {
        compiler::QuantizedModel q = compiler::import_onnx_float(bytes, o.onnx, {});
        g = std::move(q.graph);
        input = std::move(q.input);
      } else {
        g = compiler::import_onnx_bytes(bytes, o.onnx);
        input = compiler::zoo_input(g, o.seed + 1000);
      }
      what = o.onnx;
    }
    compiler::CompileOptions co;
    co.host_ops = o.host_ops;
    if (o.tune) {
      const sweeps::TuneResult t =
          sweeps::tune_network(g, c, static_cast<int>(*o.tune), input, sweeps::tune_cache_path(o.tune_cache), co);
      co.tiles = t.tiles;
      std::cout << sweeps::tune_table(t);
    }
    const compiler::CompiledNetwork net = compiler::compile(g, c, co);
    for (const auto& b : names) cols.push_back(run_net(net, input, c, b));
  }

  // The table: one row per region of the first backend, then the total.
  std::cout << fmt::format("{} on {} (config hash {}): cycles per region\n", what, c.name, c.hash());
  std::string head = fmt::format("{:<28}", "region");
  for (const auto& col : cols) head += fmt::format(" {:>14}", col.backend);
  for (size_t k = 1; k < cols.size(); ++k) head += fmt::format(" {:>10}", fmt::format("d{} %", k));
  std::cout << head << "\n";
  double worst = 0;
  auto row = [&](const std::string& name, const std::vector<uint64_t>& v) {
    std::string line = fmt::format("{:<28}", name.size() > 28 ? name.substr(0, 27) + "~" : name);
    for (uint64_t x : v) line += fmt::format(" {:>14}", x);
    for (size_t k = 1; k < v.size(); ++k) {
      const double d =
          v[0] == 0 ? (v[k] == 0 ? 0.0 : 100.0)
                    : 100.0 * (static_cast<double>(v[k]) - static_cast<double>(v[0])) / static_cast<double>(v[0]);
      worst = std::max(worst, std::fabs(d));
      line += fmt::format(" {:>+10.3f}", d);
    }
    std::cout << line << "\n";
  };
  for (size_t r = 0; r < cols[0].regions.size(); ++r) {
    std::vector<uint64_t> v;
    for (const auto& col : cols) {
      if (col.regions.size() != cols[0].regions.size() || col.regions[r].first != cols[0].regions[r].first)
        fail("compare: backends '{}' and '{}' report different regions", cols[0].backend, col.backend);
      v.push_back(col.regions[r].second);
    }
    row(cols[0].regions[r].first, v);
  }
  std::vector<uint64_t> totals;
  for (const auto& col : cols) totals.push_back(col.total);
  row("total", totals);

  int code = kExitOk;
  for (size_t k = 1; k < cols.size(); ++k)
    if (cols[k].result != cols[0].result) {
      std::cout << fmt::format("results: {} and {} DIFFER\n", cols[0].backend, cols[k].backend);
      code = kExitMismatch;
    }
  if (code == kExitOk) std::cout << "results: identical on every backend\n";
  std::cout << fmt::format("largest difference: {:.3f} %\n", worst);
  if (o.max_diff >= 0 && worst > o.max_diff) {
    std::cout << fmt::format("FAIL: above --max-diff {} %\n", o.max_diff);
    code = kExitMismatch;
  }
  return code;
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("compare", "run one program or network on several cycle models and compare cycles per region");
  auto o = std::make_shared<CompareOpts>();
  cmd->add_option("program", o->program, "program (.vasm) or conformance folder");
  cmd->add_option("--backends", o->backends, "comma-separated backends; differences are relative to the first")
      ->capture_default_str();
  cmd->add_option("--model", o->model, "a zoo network (see `vta zoo list`)");
  cmd->add_option("--onnx", o->onnx, "an ONNX model");
  cmd->add_option("--seed", o->seed, "--model: weight and input seed")->capture_default_str();
  cmd->add_option("--image", o->image, "--model: input height/width (0: the network's standard)");
  cmd->add_option("-c,--config", o->config, "preset name or YAML file")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a knob: --set memory.read_latency=32 (repeatable)");
  cmd->add_option("--host-ops", o->host_ops, "--model/--onnx: run these op kinds on the host although VTA could")
      ->delimiter(',');
  cmd->add_option("--tune", o->tune,
                  "--model/--onnx: compile with the tiles tuned on the SystemC model (best of N per layer)");
  cmd->add_option("--tune-cache", o->tune_cache, "--tune: the tuning cache file (default as for `vta run --tune`)");
  cmd->add_option("--max-diff", o->max_diff, "exit 1 when a region differs by more than this many percent")
      ->check(CLI::Validator(
          [](std::string& v) {
            // nan would pass a range check, and no difference exceeds it.
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            return end != v.c_str() && *end == '\0' && std::isfinite(d) && d >= 0 ? std::string()
                                                                                  : "must be a finite number >= 0";
          },
          "PERCENT"));
  cmd->callback([o] { run_and_exit([o] { return compare(*o); }); });
}

}  // namespace vta::app
