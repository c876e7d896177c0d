// The compile pipeline: one flat list of passes, each a free function in its
// own file; `--dump-after NAME` prints the network after pass NAME.
#include <chrono>
#include <iostream>

#include "vta/compiler/compile.h"
#include "vta/compiler/passes.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

std::string dump_graph(const CompiledNetwork& net) { return net.graph.dump(); }

struct Pass {
  const char* name;
  CompiledNetwork (*run)(CompiledNetwork, const Config&);
  std::string (*dump)(const CompiledNetwork&);
};

// In order. A new pass is one line here.
const Pass kPasses[] = {
    {"pack_stem", [](CompiledNetwork n, const Config& c) { n.graph = pack_stem(n.graph, c); return n; }, dump_graph},
    {"band_rows", [](CompiledNetwork n, const Config& c) { n.graph = band_rows(n.graph, c); return n; }, dump_graph},
    {"partition", [](CompiledNetwork n, const Config& c) { n.graph = partition(n.graph, c); return n; }, dump_graph},
    {"copies", [](CompiledNetwork n, const Config& c) { n.graph = insert_copies(n.graph, c); return n; }, dump_graph},
    {"layout", plan_layout, dump_layout},
    {"segments", form_segments, dump_segments},
    {"tiling", choose_tiles, dump_tiles},
    {"codegen", codegen, dump_code},
};

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
  const std::string& dump_after = o.dump_after;
  const auto t0 = std::chrono::steady_clock::now();
  check_pass_name(dump_after);
  check_compilable(c);
  CompiledNetwork net;
  net.config_hash = c.hash();
  net.graph = g;
  net.forced_tiles = o.tiles;
  for (const Pass& p : kPasses) {
    net = p.run(std::move(net), c);
    if (dump_after == p.name) std::cerr << p.dump(net);
  }
  net.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return net;
}

}  // namespace vta::compiler
