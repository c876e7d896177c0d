// Batch rows for batch-1 networks (compile.h). A GEMM multiplies the batch
// rows of an INP element by the same weights, and no VTA instruction moves
// data between batch rows: a LOAD or STORE moves whole elements, GEMM and ALU
// keep each row in its row. So pixels of one image can share the weights
// only if each batch row holds its own part of the image with every input
// row its windows read. Here batch row b holds the band of R output rows
// from b R (R = ceil(Ho / batch)), and a host Op::Bands node cuts each
// conv's or pool's input into the bands of input rows those windows read
// (overlapping by k - s rows, zero padding included; for a 1x1 window of
// stride s only every s-th row and column), so the VTA node is an ordinary
// batch x ... conv or pool without padding (and of stride 1 for 1x1). Its output stays banded
// (Node::image_h) for consumers that read it as it is: residual adds, 1x1
// convs of the same rows, the next Bands node; host consumers and the graph
// output read it through a Bands node of one band (the image again).
// The Bands nodes are the host re-layout this mapping costs: each is a host
// row of the report (host time, bytes copied).
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "vta/compiler/compile.h"

namespace vta::compiler {

namespace {

// A VTA conv, pool or add of a batch-1 image with at least two output rows.
bool banded(const Graph& g, const Node& n, const Config& c) {
  if (n.out.n != 1 || n.out.h < 2 || placement(g, n, c) != Device::Vta) return false;
  return n.op == Op::Conv2d || n.op == Op::MaxPool || n.op == Op::AvgPool || n.op == Op::Add;
}

}  // namespace

Graph band_rows(const Graph& g, const Config& c) {
  const int64_t B = c.gemm.batch;
  bool any = false;
  for (const auto& n : g.nodes) any = any || (B > 1 && banded(g, n, c));
  if (!any) return g;
  Graph out;
  out.name = g.name;
  std::vector<int> id(g.nodes.size(), -1);  // old node -> new node
  // Bands nodes made so far, by (source, bands, kernel, stride, pad, rows per band).
  std::map<std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t>, int> made;
  // The new node that holds `src` (a new id) cut into `bands` bands of R
  // output rows of a k x k window of stride s and padding p.
  auto cut = [&](int src, int64_t bands, int64_t k, int64_t s, int64_t p, int64_t R) {
    const Node& from = out.at(src);
    const int64_t H = from.image_h > 0 ? from.image_h : from.out.h;
    const bool as_is = k == 1 && s == 1 && (from.image_h > 0 ? bands == from.out.n && from.out.h == R : bands == 1);
    if (as_is) return src;
    const auto key = std::make_tuple(src, bands, k, s, p, R);
    if (auto it = made.find(key); it != made.end()) return it->second;
    Node b;
    b.name = fmt::format("{}.bands{}", from.name, made.size());
    b.op = Op::Bands;
    b.inputs = {src};
    // A 1x1 window of stride s reads every s-th row and column: the bands hold only those.
    b.out = k == 1 ? Shape{bands, from.out.c, R, (from.out.w + s - 1) / s}
                   : Shape{bands, from.out.c, (R - 1) * s + k, from.out.w + 2 * p};
    b.exp = from.exp;
    b.uint8 = from.uint8;
    b.kernel = k, b.stride = s, b.pad = p, b.src_h = H;
    return made[key] = out.add(std::move(b));
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& old = g.nodes[i];
    Node n = old;
    for (int& k : n.inputs) k = id[static_cast<size_t>(k)];
    if (B > 1 && banded(g, old, c)) {
      const int64_t R = (old.out.h + B - 1) / B;
      if (n.op == Op::Add) {
        for (int& k : n.inputs) k = cut(k, B, 1, 1, 0, R);
      } else if (n.op == Op::Conv2d) {
        n.inputs[0] = cut(n.inputs[0], B, n.kernel, n.stride, n.pad, R);
        n.pad = 0;
        if (n.kernel == 1) n.stride = 1;
      } else {
        n.inputs[0] = cut(n.inputs[0], B, n.pool, n.pool_stride, n.pool_pad, R);
        n.pool_pad = 0;
        if (n.pool == 1) n.pool_stride = 1;
      }
      n.out.n = B, n.out.h = R, n.image_h = old.out.h;
    } else {
      for (int& k : n.inputs)
        if (out.at(k).image_h > 0) k = cut(k, 1, 1, 1, 0, out.at(k).image_h);
    }
    id[i] = out.add(std::move(n));
  }
  out.output = id[static_cast<size_t>(g.output)];
  if (out.at(out.output).image_h > 0) out.output = cut(out.output, 1, 1, 1, 0, out.at(out.output).image_h);
  return out;
}

}  // namespace vta::compiler
