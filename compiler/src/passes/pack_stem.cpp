// The "pack_stem" pass (pack_stem.h), stem packing: a k x k convolution (k > 1) of the network input
// whose few channels would be zero-padded to whole channel blocks (the RGB
// stem: 3 channels in a 16-channel block, 16 % of the MAC array) reads an
// im2col of the input instead, made on the host while the input is sent, so
// that its C k k window values fill the blocks and it becomes a 1x1
// convolution with the same weights (O x I x K x K is O x (I K K) x 1 x 1).
// Packed only where it needs fewer GEMM uops: ceil(C k k / block) <
// ceil(C / block) k k, and within a bounded host tensor.
#include "vta/compiler/passes/pack_stem.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/compiler/schedule/placement.h"

namespace vta::compiler {

namespace {

bool worth_packing(const Graph& g, const Node& n, const Config& c) {
  if (n.op != Op::Conv2d || n.groups != 1 || n.kernel == 1) return false;
  const Node& src = g.at(n.inputs[0]);
  if (src.op != Op::Input || placement(g, n, c) != Device::Vta) return false;
  const int64_t block = act_block(c), kk = n.kernel * n.kernel, ch = src.out.c;
  const int64_t im2col_elems = n.out.n * ch * kk * n.out.h * n.out.w;
  return (ch * kk + block - 1) / block < (ch + block - 1) / block * kk && im2col_elems <= (int64_t{1} << 26);
}

}  // namespace

Graph pack_stem(const Graph& g, const Config& c) {
  bool any = false;
  for (const auto& n : g.nodes) any = any || worth_packing(g, n, c);
  if (!any) return g;
  Graph out;
  out.name = g.name;
  std::vector<int> id(g.nodes.size(), -1);  // old node -> new node
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node n = g.nodes[i];
    for (int& k : n.inputs) k = id[static_cast<size_t>(k)];
    if (worth_packing(g, g.nodes[i], c)) {
      const Node& src = g.at(g.nodes[i].inputs[0]);
      Node cols;
      cols.name = n.name + ".im2col";
      cols.op = Op::Im2col;
      cols.inputs = n.inputs;
      cols.out = Shape{n.out.n, src.out.c * n.kernel * n.kernel, n.out.h, n.out.w};
      cols.exp = src.exp;
      cols.uint8 = src.uint8;
      cols.kernel = n.kernel, cols.stride = n.stride, cols.pad = n.pad;
      n.inputs = {out.add(std::move(cols))};
      n.kernel = 1, n.stride = 1, n.pad = 0;
    }
    id[i] = out.add(std::move(n));
  }
  out.output = id[static_cast<size_t>(g.output)];
  return out;
}

CompiledNetwork pack_stem_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  net.graph = pack_stem(net.graph, c);
  return net;
}

std::string pack_stem_dump(const CompiledNetwork& net) { return net.graph.dump(); }

}  // namespace vta::compiler
