// The "segments" pass: maximal runs of consecutive VTA nodes (in the graph's
// topological order), each compiled into one instruction stream: the VTA
// layers between two host nodes (device copies included: copies.cpp puts
// them next to host nodes, so they split no run) are queued as one device
// run, and the runtime synchronises with the host only where the host needs a
// device result (NetworkResult::syncs).
#include "vta/compiler/passes/pipeline.h"
#include "vta/isa/error.h"

namespace vta::compiler {

CompiledNetwork segments_pass(CompiledNetwork net, const Config&, const CompileOptions&) {
  const Graph& g = net.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].device != Device::Vta) continue;
    if (net.segments.empty() || net.segments.back().nodes.back() != static_cast<int>(i) - 1)
      net.segments.emplace_back();
    net.segments.back().nodes.push_back(static_cast<int>(i));
  }
  return net;
}

std::string segments_dump(const CompiledNetwork& net) {
  std::string s;
  for (size_t k = 0; k < net.segments.size(); ++k) {
    s += fmt::format("segment {}: {} nodes:", k, net.segments[k].nodes.size());
    for (int id : net.segments[k].nodes) s += " " + net.graph.at(id).name;
    s += "\n";
  }
  return s;
}

}  // namespace vta::compiler
