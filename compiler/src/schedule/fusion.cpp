// Residual adds fused into a convolution's epilogue (fusion.h). An Add on
// VTA is fused into the Conv2d/Dense that produces one operand when that
// conv runs on VTA, is read by nothing else and is not the graph output, the
// other operand is computed before it, and every node from the conv to the
// Add runs on VTA (one segment, so the other operand is in DRAM when the
// conv's epilogue loads it). Of two such operands the later one is fused.
//   A max pool on VTA is fused into the Conv2d on VTA that is its only input
// when nothing else reads the conv, the conv is not the graph output, the
// pool runs separably with a stride of at least 2 and padding k - s (ResNet's
// 3x3 stride 2 pad 1, and 2x2 stride 2: each tile of whole rows then reads
// only its own rows and the k - s rows above it, emit_conv()), and a tile of
// whole rows fits the buffers, and the cost model says the fused layer is
// faster than the conv and the pool's own pass (pool_pass_cycles()): a tile
// of whole rows can be much smaller than the conv's best tile.
#include "vta/compiler/schedule/fusion.h"

#include <algorithm>

#include "vta/compiler/ops/requant.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/layer_cost.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/compiler/schedule/tile_search.h"

namespace vta::compiler {

namespace {

int readers(const Graph& g, int x) {
  int r = 0;
  for (const auto& m : g.nodes)
    for (int i : m.inputs) r += i == x;
  return r;
}

}  // namespace

int fused_into(const Graph& g, int add, const Config& c) {
  const Node& a = g.at(add);
  if (a.op != Op::Add || a.inputs.size() != 2 || a.inputs[0] == a.inputs[1]) return -1;
  if (placement(g, a, c) != Device::Vta) return -1;
  int best = -1;
  for (int k = 0; k < 2; ++k) {
    const int x = a.inputs[static_cast<size_t>(k)], other = a.inputs[static_cast<size_t>(1 - k)];
    const Node& n = g.at(x);
    if ((n.op != Op::Conv2d && n.op != Op::Dense) || x == g.output || other > x) continue;
    if (readers(g, x) != 1) continue;
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

int pool_fused_into(const Graph& g, int pool, const Config& c) {
  const Node& p = g.at(pool);
  if (p.op != Op::MaxPool || p.inputs.size() != 1 || placement(g, p, c) != Device::Vta) return -1;
  if (!separable_pool(p) || p.pool_stride < 2 || p.pool_pad != p.pool - p.pool_stride) return -1;
  const int x = p.inputs[0];
  const Node& n = g.at(x);
  if (n.op != Op::Conv2d || x == g.output || readers(g, x) != 1) return -1;
  for (int i = x; i <= pool; ++i)
    if (placement(g, g.at(i), c) != Device::Vta) return -1;
  // The pool compares the requantized values in ACC: they must be the A-bit outputs, clipped there.
  const std::vector<AluStep> steps = requant_steps(n);
  if (steps.size() < 2) return -1;
  const AluStep &lo = steps[steps.size() - 2], &hi = steps.back();
  if (lo.on != AluStep::On::A || lo.op != isa::AluOp::MAX || lo.imm < elem_min(n.bits) || hi.on != AluStep::On::A ||
      hi.op != isa::AluOp::MIN || hi.imm > elem_max(n.bits))
    return -1;
  // The smallest tile of whole rows: one stride of rows, one channel block each way.
  const Shape in = g.at(n.inputs[0]).out;
  const ConvGeom geo = conv_geom(n, in, c, &p);
  const Tile t{std::min(geo.ps, geo.ho), geo.wo, 1, 1, 0};
  if (!tile_fits(geo, t, c)) return -1;
  const double fused = choose_tile(n, in, c, &p).est_cycles;
  return fused < choose_tile(n, in, c).est_cycles + pool_pass_cycles(p, n.out, c) ? x : -1;
}

int fused_pool(const Graph& g, int conv, const Config& c) {
  for (size_t i = static_cast<size_t>(conv) + 1; i < g.nodes.size(); ++i)
    for (int k : g.nodes[i].inputs)
      if (k == conv) return pool_fused_into(g, static_cast<int>(i), c) == conv ? static_cast<int>(i) : -1;
  return -1;
}

int fused_epilogue(const Graph& g, int conv, const Config& c) {
  const int add = fused_add(g, conv, c);
  return add >= 0 ? add : fused_pool(g, conv, c);
}

}  // namespace vta::compiler
