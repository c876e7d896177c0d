// Residual adds fused into a convolution's epilogue (compile.h). An Add on
// VTA is fused into the Conv2d/Dense that produces one operand when that
// conv runs on VTA, is read by nothing else and is not the graph output, the
// other operand is computed before it, and every node from the conv to the
// Add runs on VTA (one segment, so the other operand is in DRAM when the
// conv's epilogue loads it). Of two such operands the later one is fused.
#include "vta/compiler/compile.h"

namespace vta::compiler {

int fused_into(const Graph& g, int add, const Config& c) {
  const Node& a = g.at(add);
  if (a.op != Op::Add || a.inputs.size() != 2 || a.inputs[0] == a.inputs[1]) return -1;
  if (placement(g, a, c) != Device::Vta) return -1;
  int best = -1;
  for (int k = 0; k < 2; ++k) {
    const int x = a.inputs[static_cast<size_t>(k)], other = a.inputs[static_cast<size_t>(1 - k)];
    const Node& n = g.at(x);
    if ((n.op != Op::Conv2d && n.op != Op::Dense) || x == g.output || other > x) continue;
    int readers = 0;
    for (const auto& m : g.nodes)
      for (int i : m.inputs) readers += i == x;
    if (readers != 1) continue;
    bool one_segment = true;
    for (int i = x; i <= add && one_segment; ++i) one_segment = placement(g, g.at(i), c) == Device::Vta;
    if (one_segment && x > best) best = x;
  }
  return best;
}

int fused_add(const Graph& g, int conv, const Config& c) {
  for (size_t i = static_cast<size_t>(conv) + 1; i < g.nodes.size(); ++i)
    for (int k : g.nodes[i].inputs)
      if (k == conv) return fused_into(g, static_cast<int>(i), c) == conv ? static_cast<int>(i) : -1;
  return -1;
}

}  // namespace vta::compiler
