// The "tiling" pass: the tile of every VTA conv/dense layer, chosen by
// choose_tile() (tiling.cpp) with the residual Add fused into its epilogue.
#include "vta/compiler/passes.h"
#include "vta/isa/error.h"

namespace vta::compiler {

CompiledNetwork choose_tiles(CompiledNetwork net, const Config& c) {
  const Graph& g = net.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.device != Device::Vta || (n.op != Op::Conv2d && n.op != Op::Dense)) continue;
    const int id = static_cast<int>(i), add = fused_add(g, id, c);
    LayerInfo info;
    info.node = id;
    info.tile = choose_tile(n, g.at(n.inputs[0]).out, c, add >= 0 ? &g.at(add) : nullptr);
    net.layers[id] = info;
  }
  return net;
}

std::string dump_tiles(const CompiledNetwork& net) {
  std::string s;
  for (const auto& [id, info] : net.layers) {
    const Tile& t = info.tile;
    s += fmt::format("{}: {}x{} positions, {} output and {} input channel blocks per step, est {:.0f} cycles\n",
                     net.graph.at(id).name, t.th, t.tw, t.toc, t.tic, t.est_cycles);
  }
  return s;
}

}  // namespace vta::compiler
