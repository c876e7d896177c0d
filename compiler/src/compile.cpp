// The compile pipeline: the one list of passes of passes/pipeline.def, each a
// free function in its own file (passes/pass.h), run in order by compile()
// and, its graph passes alone, by run_graph_passes() for the analytic
// estimate; `--dump-after NAME` prints the network after pass NAME.
#include "vta/compiler/compile.h"

#include <chrono>
#include <iostream>

#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/isa/config_key.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

enum class Stage { graph, program };

struct Pass {
  const char* name;
  Stage stage;
  CompiledNetwork (*run)(CompiledNetwork, const Config&, const CompileOptions&);
  std::string (*dump)(const CompiledNetwork&);
};

// In order, from the one list.
constexpr Pass kPasses[] = {
#define VTA_PASS(name, stage) {#name, Stage::stage, name##_pass, name##_dump},
#include "vta/compiler/passes/pipeline.def"
#undef VTA_PASS
};

// The estimate runs the graph passes up to the first program pass: none may follow it.
constexpr bool graph_passes_first() {
  bool program = false;
  for (const Pass& p : kPasses) {
    if (program && p.stage == Stage::graph) return false;
    program = program || p.stage == Stage::program;
  }
  return true;
}
static_assert(graph_passes_first(), "pipeline.def: a graph pass after a program pass");

}  // namespace

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const Pass& p : kPasses) names.emplace_back(p.name);
  return names;
}

void check_pass_name(const std::string& name) {
  if (name.empty()) return;
  std::string list;
  for (const Pass& p : kPasses) {
    if (name == p.name) return;
    list += (list.empty() ? "" : ", ") + std::string(p.name);
  }
  fail("--dump-after {}: no such pass (the passes: {})", name, list);
}

CompiledNetwork compile(const Graph& g, const Config& c, const std::string& dump_after) {
  CompileOptions o;
  o.dump_after = dump_after;
  return compile(g, c, o);
}

CompiledNetwork compile(const Graph& g, const Config& c, const CompileOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  check_pass_name(o.dump_after);
  check_compilable(c);
  check_widths(g, c);
  CompiledNetwork net;
  net.config_hash = c.hash();
  net.graph = g;
  for (const Pass& p : kPasses) {
    net = p.run(std::move(net), c, o);
    if (o.dump_after == p.name) std::cerr << p.dump(net);
  }
  net.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return net;
}

Graph run_graph_passes(const Graph& g, const Config& c, const CompileOptions& o) {
  CompiledNetwork net;
  net.config_hash = c.hash();
  net.graph = g;
  for (const Pass& p : kPasses)
    if (p.stage == Stage::graph) net = p.run(std::move(net), c, o);
  return std::move(net.graph);
}

std::string graph_pass_knobs(const Config& c) {
  Config flat = c;
  flat.gemm.pipeline_depth = 0;
  std::string k;
  k.reserve(256);
  append_knobs(k, flat, [](std::string_view s) { return s != "clock" && s != "memory" && s != "opencl"; });
  return k;
}

}  // namespace vta::compiler
