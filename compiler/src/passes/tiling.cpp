// The "tiling" pass: the tile of every VTA conv/dense layer, chosen by
// choose_tile() (tile_search.cpp) with the residual Add or max pool fused into its epilogue,
// or the one CompileOptions::tiles forces for the layer's tile_key().
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/tile_search.h"
#include "vta/isa/error.h"

namespace vta::compiler {

CompiledNetwork tiling_pass(CompiledNetwork net, const Config& c, const CompileOptions& o) {
  const Graph& g = net.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.device != Device::Vta || (n.op != Op::Conv2d && n.op != Op::Dense)) continue;
    const int id = static_cast<int>(i), add = fused_epilogue(g, id, c);
    const Node* fused = add >= 0 ? &g.at(add) : nullptr;
    const Shape in = g.at(n.inputs[0]).out;
    LayerInfo info;
    info.node = id;
    info.key = tile_key(n, in, c, fused);
    info.model = info.tile = choose_tile(n, in, c, fused);
    if (auto it = o.tiles.find(info.key); it != o.tiles.end()) {
      const ConvGeom geo = conv_geom(n, in, c, fused);
      Tile t = it->second;
      if (t.th < 1 || t.tw < 1 || t.toc < 1 || t.tic < 1 || t.th > geo.ho || t.tw > geo.wo || t.toc > geo.cob ||
          t.tic > geo.cib || !tile_fits(geo, t, c, fused && fused->op == Op::Add))
        fail("layer {}: the forced tile {}x{} oc{} ic{} does not fit config {}", n.name, t.th, t.tw, t.toc, t.tic,
             c.name);
      t.est_cycles = tile_cost(geo, t, c, requant_imm_ops(n), residual_imm_ops(fused, geo.skip_gemm));
      info.tile = t;
    }
    net.layers[id] = info;
  }
  return net;
}

std::string tiling_dump(const CompiledNetwork& net) {
  std::string s;
  for (const auto& [id, info] : net.layers) {
    const Tile& t = info.tile;
    s += fmt::format("{}: {}x{} positions, {} output and {} input channel blocks per step, est {:.0f} cycles\n",
                     net.graph.at(id).name, t.th, t.tw, t.toc, t.tic, t.est_cycles);
  }
  return s;
}

}  // namespace vta::compiler
