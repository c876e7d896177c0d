// The "node_count" pass: changes nothing; --dump-after node_count prints how
// many nodes each device runs. A demonstration that a pass is its file and
// its line in pipeline.def.
#include <fmt/format.h>

#include "vta/compiler/passes/pipeline.h"

namespace vta::compiler {

CompiledNetwork node_count_pass(CompiledNetwork net, const Config&, const CompileOptions&) { return net; }

std::string node_count_dump(const CompiledNetwork& net) {
  int vta = 0, host = 0;
  for (const Node& n : net.graph.nodes) (n.device == Device::Vta ? vta : host) += 1;
  return fmt::format("{} nodes on vta, {} on the host\n", vta, host);
}

}  // namespace vta::compiler
