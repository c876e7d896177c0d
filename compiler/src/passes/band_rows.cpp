// The "band_rows" pass (band_rows.h), batch rows for batch-1 networks. A GEMM multiplies the batch
// rows of an INP element by the same weights, and no VTA instruction moves
// data between batch rows: a LOAD or STORE moves whole elements, GEMM and ALU
// keep each row in its row. So pixels of one image can share the weights
// only if each batch row holds its own part of the image with every input
// position its windows read. Here the output positions are cut into a grid
// of batch bands, Y rows of X = batch / Y columns of R x Q positions each
// (R = ceil(Ho / Y), Q = ceil(Wo / X); of the grids, the one that computes
// the fewest positions past the image, rows first: 56 rows on 4 batch rows
// are 4 x 1 bands of 14 rows, 14 x 14 are 2 x 2 bands of 7 x 7), batch row
// b = by X + bx holding band (by, bx), and a host Op::Bands node cuts each
// conv's or pool's input into the bands of input positions those windows
// read (overlapping by k - s, zero padding included; for a 1x1 window of
// stride s only every s-th row and column), so the VTA node is an ordinary
// batch x ... conv or pool without padding (and of stride 1 for 1x1). Its
// output stays banded (Node::band) for consumers that read it as it is:
// residual adds, 1x1 convs of the same positions, the next Bands node; host
// consumers and the graph output read it through a Bands node of one band
// (the image again).
// The Bands nodes are the host re-layout this mapping costs: each is a host
// row of the report (host time, bytes copied).
#include "vta/compiler/passes/band_rows.h"
#include "vta/compiler/passes/pipeline.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/compiler/schedule/placement.h"

namespace vta::compiler {

namespace {

// A VTA conv, pool or add of a batch-1 image with at least two output rows.
bool banded(const Graph& g, const Node& n, const Config& c) {
  if (n.out.n != 1 || n.out.h < 2 || placement(g, n, c) != Device::Vta) return false;
  return n.op == Op::Conv2d || n.op == Op::MaxPool || n.op == Op::AvgPool || n.op == Op::Add;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The band grid of an h x w output on B batch rows: its column count, the
// one computing the fewest positions (the fewest columns of those).
int64_t grid_cols(int64_t h, int64_t w, int64_t B) {
  auto positions = [&](int64_t x) { return B / x * ceil_div(h, B / x) * x * ceil_div(w, x); };
  int64_t best = 1;
  for (int64_t x = 2; x <= B; ++x)
    if (B % x == 0 && positions(x) < positions(best)) best = x;
  return best;
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
  // Bands nodes made so far, by (source, bands, band columns, kernel, stride, pad, R, Q).
  std::map<std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>, int> made;
  // The new node that holds `src` (a new id) cut into `bands` bands, `cols`
  // per row of bands, of R x Q output positions of a k x k window of stride
  // s and padding p.
  auto cut = [&](int src, int64_t bands, int64_t cols, int64_t k, int64_t s, int64_t p, int64_t R, int64_t Q) {
    const Node& from = out.at(src);
    const bool is_banded = from.band.h > 0;
    const bool as_is =
        k == 1 && s == 1 &&
        (is_banded ? bands == from.out.n && cols == from.band.cols && from.out.h == R && from.out.w == Q : bands == 1);
    if (as_is) return src;
    const auto key = std::make_tuple(src, bands, cols, k, s, p, R, Q);
    if (auto it = made.find(key); it != made.end()) return it->second;
    Node b;
    b.name = fmt::format("{}.bands{}", from.name, made.size());
    b.op = Op::Bands;
    b.inputs = {src};
    // A 1x1 window of stride s reads every s-th row and column: the bands hold only those.
    b.out = k == 1 ? Shape{bands, from.out.c, R, Q} : Shape{bands, from.out.c, (R - 1) * s + k, (Q - 1) * s + k};
    b.exp = from.exp;
    b.uint8 = from.uint8;
    b.kernel = k, b.stride = s, b.pad = p;
    b.band = Node::Banding{0, 0, cols};
    b.band_src = from.band;
    return made[key] = out.add(std::move(b));
  };
  // The image again, for a consumer that is not banded.
  auto whole = [&](int src) {
    const Node& from = out.at(src);
    return from.band.h > 0 ? cut(src, 1, 1, 1, 1, 0, from.band.h, from.band.w) : src;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& old = g.nodes[i];
    Node n = old;
    for (int& k : n.inputs) k = id[static_cast<size_t>(k)];
    if (B > 1 && banded(g, old, c)) {
      const int64_t X = grid_cols(old.out.h, old.out.w, B);
      const int64_t R = ceil_div(old.out.h, B / X), Q = ceil_div(old.out.w, X);
      if (n.op == Op::Add) {
        for (int& k : n.inputs) k = cut(k, B, X, 1, 1, 0, R, Q);
      } else if (n.op == Op::Conv2d) {
        n.inputs[0] = cut(n.inputs[0], B, X, n.kernel, n.stride, n.pad, R, Q);
        n.pad = 0;
        if (n.kernel == 1) n.stride = 1;
      } else {
        n.inputs[0] = cut(n.inputs[0], B, X, n.pool, n.pool_stride, n.pool_pad, R, Q);
        n.pool_pad = 0;
        if (n.pool == 1) n.pool_stride = 1;
      }
      n.out.n = B, n.out.h = R, n.out.w = Q;
      n.band = Node::Banding{old.out.h, old.out.w, X};
    } else {
      for (int& k : n.inputs) k = whole(k);
    }
    id[i] = out.add(std::move(n));
  }
  out.output = whole(id[static_cast<size_t>(g.output)]);
  return out;
}

CompiledNetwork band_rows_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  net.graph = band_rows(net.graph, c);
  return net;
}

std::string band_rows_dump(const CompiledNetwork& net) { return net.graph.dump(); }

}  // namespace vta::compiler
