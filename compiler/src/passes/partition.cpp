// The "partition" pass: every node's device (Node::device) as placement()
// (schedule/placement.cpp, which has the rules) gives it for the config.
#include "vta/compiler/passes/partition.h"
#include "vta/compiler/passes/pipeline.h"

#include "vta/compiler/schedule/placement.h"

namespace vta::compiler {

Graph partition(const Graph& g, const Config& c) {
  Graph out = g;
  for (auto& n : out.nodes) n.device = placement(g, n, c);
  return out;
}

CompiledNetwork partition_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  net.graph = partition(net.graph, c);
  return net;
}

std::string partition_dump(const CompiledNetwork& net) { return net.graph.dump(); }

}  // namespace vta::compiler
