#include "vta/compiler/reference.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "vta/compiler/requant.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

using MatI = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Arithmetic shift by a signed amount as the VTA ALU does (negative: left).
int32_t shift_left(int32_t a, int s) { return static_cast<int32_t>(static_cast<uint32_t>(a) << s); }

// Conv2d accumulators (bias included), NCHW.
std::vector<int32_t> conv2d_acc(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  const Shape& os = n.out;
  const int64_t k = n.kernel, s = n.stride, p = n.pad, g = n.groups;
  const int64_t icg = is.c / g, ocg = os.c / g;
  const int64_t cols = os.h * os.w, rows = icg * k * k;
  std::vector<int32_t> out(static_cast<size_t>(os.size()));
  MatI col(rows, cols);
  for (int64_t b = 0; b < os.n; ++b) {
    for (int64_t grp = 0; grp < g; ++grp) {
      // im2col of this group's input channels.
      for (int64_t c = 0; c < icg; ++c)
        for (int64_t kh = 0; kh < k; ++kh)
          for (int64_t kw = 0; kw < k; ++kw) {
            const int64_t r = (c * k + kh) * k + kw;
            for (int64_t oh = 0; oh < os.h; ++oh)
              for (int64_t ow = 0; ow < os.w; ++ow) {
                const int64_t ih = oh * s + kh - p, iw = ow * s + kw - p;
                int32_t v = 0;  // padding stands for x_zp: it adds 0
                if (ih >= 0 && ih < is.h && iw >= 0 && iw < is.w)
                  v = in.data[static_cast<size_t>(((b * is.c + grp * icg + c) * is.h + ih) * is.w + iw)] - n.x_zp;
                col(r, oh * os.w + ow) = v;
              }
          }
      MatI w(ocg, rows);
      for (int64_t o = 0; o < ocg; ++o)
        for (int64_t r = 0; r < rows; ++r) w(o, r) = n.weight[static_cast<size_t>((grp * ocg + o) * rows + r)] - n.w_zp;
      MatI acc = w * col;  // |products| < 2^14 * rows: no overflow for any layer here
      for (int64_t o = 0; o < ocg; ++o) {
        const int64_t oc = grp * ocg + o;
        const int32_t bias = n.bias.empty() ? 0 : n.bias[static_cast<size_t>(oc)];
        for (int64_t q = 0; q < cols; ++q)
          out[static_cast<size_t>((b * os.c + oc) * cols + q)] = wrap_add(acc(o, q), bias);
      }
    }
  }
  return out;
}

// Dense accumulators (bias included), N x O. With weight_sets > 1 the rows
// are that many equal groups, each with its own weights (a batched MatMul).
std::vector<int32_t> dense_acc(const Node& n, const Tensor& in) {
  const int64_t inner = in.shape.c * in.shape.h * in.shape.w;
  const int64_t sets = n.weight_sets, rows = n.out.n / sets;
  if (rows * sets != n.out.n) fail("{}: {} rows do not split into {} weight sets", n.name, n.out.n, sets);
  std::vector<int32_t> out(static_cast<size_t>(n.out.size()));
  for (int64_t set = 0; set < sets; ++set) {
    Eigen::Map<const Eigen::Matrix<int8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> w(
        n.weight.data() + set * n.out.c * inner, n.out.c, inner);
    const MatI wi = (w.cast<int32_t>().array() - n.w_zp).matrix();
    for (int64_t b = set * rows; b < (set + 1) * rows; ++b) {
      Eigen::Map<const Eigen::Matrix<int8_t, Eigen::Dynamic, 1>> x(in.data.data() + b * inner, inner);
      const Eigen::Matrix<int32_t, Eigen::Dynamic, 1> acc = wi * (x.cast<int32_t>().array() - n.x_zp).matrix();
      for (int64_t o = 0; o < n.out.c; ++o)
        out[static_cast<size_t>(b * n.out.c + o)] =
            wrap_add(acc(o), n.bias.empty() ? 0 : n.bias[static_cast<size_t>(o)]);
    }
  }
  return out;
}

// The multiplier form of requantization (asymmetric nodes), in 64 bits.
int8_t requantize_mult(int32_t acc, const Node& n) {
  const int64_t round = n.shift > 0 ? (int64_t{1} << (n.shift - 1)) : 0;
  const int64_t v = ((static_cast<int64_t>(acc) * n.mult + round) >> n.shift) + n.zp;
  return static_cast<int8_t>(std::clamp<int64_t>(v, n.relu ? std::max(n.zp, -128) : -128, 127));
}

Tensor requantize_all(const Node& n, const std::vector<int32_t>& acc) {
  if (n.int32_out) return Tensor{n.out, {}, acc};
  Tensor out{n.out, std::vector<int8_t>(acc.size()), {}};
  const bool wide = n.asymmetric(), vta_mult = n.vta_rq.m != 0;
  for (size_t i = 0; i < acc.size(); ++i)
    out.data[i] = vta_mult ? requantize_vta(acc[i], n.vta_rq, n.zp, n.relu)
                  : wide   ? requantize_mult(acc[i], n)
                           : requantize(acc[i], n.shift, n.relu);
  return out;
}

Tensor add(const Node& n, const Tensor& a, const Tensor& b) {
  if (!(a.shape == b.shape)) fail("{}: add of different shapes", n.name);
  Tensor out{n.out, std::vector<int8_t>(a.data.size())};
  for (size_t i = 0; i < a.data.size(); ++i)
    out.data[i] =
        requantize(wrap_add(shift_left(a.data[i], n.shift_a), shift_left(b.data[i], n.shift_b)), n.shift, n.relu);
  return out;
}

Tensor pool(const Node& n, const Tensor& in, bool max) {
  const Shape& is = in.shape;
  const Shape& os = n.out;
  Tensor out{os, std::vector<int8_t>(static_cast<size_t>(os.size()))};
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t c = 0; c < os.c; ++c)
      for (int64_t oh = 0; oh < os.h; ++oh)
        for (int64_t ow = 0; ow < os.w; ++ow) {
          int32_t acc = max ? -128 : 0;
          for (int64_t kh = 0; kh < n.pool; ++kh)
            for (int64_t kw = 0; kw < n.pool; ++kw) {
              const int64_t ih = oh * n.pool_stride + kh - n.pool_pad, iw = ow * n.pool_stride + kw - n.pool_pad;
              if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;  // padding never wins, adds 0
              const int32_t v = in.data[static_cast<size_t>(((b * is.c + c) * is.h + ih) * is.w + iw)];
              acc = max ? std::max(acc, v) : acc + v;
            }
          out.data[static_cast<size_t>(((b * os.c + c) * os.h + oh) * os.w + ow)] =
              max ? static_cast<int8_t>(acc) : requantize(acc, n.shift, n.relu);
        }
  return out;
}

Tensor global_avg_pool(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  Tensor out{n.out, std::vector<int8_t>(static_cast<size_t>(n.out.size()))};
  for (int64_t b = 0; b < is.n; ++b)
    for (int64_t c = 0; c < is.c; ++c) {
      int32_t sum = 0;
      for (int64_t q = 0; q < is.h * is.w; ++q) sum += in.data[static_cast<size_t>((b * is.c + c) * is.h * is.w + q)];
      out.data[static_cast<size_t>(b * is.c + c)] = requantize(sum * n.mult, n.shift, n.relu);
    }
  return out;
}

// Op::Im2col: out[b][(c k + kh) k + kw][oh][ow] = in[b][c][oh s - p + kh][ow s - p + kw], 0 outside.
Tensor im2col(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  const int64_t k = n.kernel;
  Tensor out{n.out, std::vector<int8_t>(static_cast<size_t>(n.out.size()), 0)};
  for (int64_t b = 0; b < is.n; ++b)
    for (int64_t c = 0; c < is.c; ++c)
      for (int64_t kh = 0; kh < k; ++kh)
        for (int64_t kw = 0; kw < k; ++kw) {
          int8_t* dst = out.data.data() + (((b * is.c + c) * k + kh) * k + kw) * n.out.h * n.out.w;
          for (int64_t oh = 0; oh < n.out.h; ++oh) {
            const int64_t y = oh * n.stride - n.pad + kh;
            if (y < 0 || y >= is.h) continue;
            const int8_t* row = in.data.data() + ((b * is.c + c) * is.h + y) * is.w;
            for (int64_t ow = 0; ow < n.out.w; ++ow) {
              const int64_t x = ow * n.stride - n.pad + kw;
              if (x >= 0 && x < is.w) dst[oh * n.out.w + ow] = row[x];
            }
          }
        }
  return out;
}

// Op::Bands (graph.h). The image is `in` itself (band_src.h == 0) or the
// bands of a banded input, of which the first band_src.h x band_src.w
// positions are real.
Tensor bands(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  const int64_t k = n.kernel, s = n.stride, d = k == 1 ? s : 1;  // d: the step between rows and columns read
  const int64_t R = k == 1 ? n.out.h : (n.out.h - k) / s + 1, Q = k == 1 ? n.out.w : (n.out.w - k) / s + 1;
  const bool plain = n.band_src.h == 0;
  const int64_t H = plain ? is.h : n.band_src.h, W = plain ? is.w : n.band_src.w, X = n.band.cols;
  const int64_t src_cols = plain ? 1 : n.band_src.cols;
  Tensor out{n.out, std::vector<int8_t>(static_cast<size_t>(n.out.size()), 0)};
  // Per output column: its source band column and column within the band, or -1 outside the image.
  std::vector<int64_t> band_col(static_cast<size_t>(n.out.w)), in_col(static_cast<size_t>(n.out.w));
  for (int64_t b = 0; b < n.out.n; ++b) {
    for (int64_t x = 0; x < n.out.w; ++x) {
      const int64_t v = b % X * Q * s - n.pad + x * d;
      band_col[static_cast<size_t>(x)] = v < 0 || v >= W ? -1 : v / is.w;
      in_col[static_cast<size_t>(x)] = v % is.w;
    }
    for (int64_t c = 0; c < n.out.c; ++c)
      for (int64_t y = 0; y < n.out.h; ++y) {
        const int64_t r = b / X * R * s - n.pad + y * d;
        if (r < 0 || r >= H) continue;
        int8_t* dst = out.data.data() + ((b * n.out.c + c) * n.out.h + y) * n.out.w;
        const int64_t first = r / is.h * src_cols;  // the source band of column band 0
        for (int64_t x = 0; x < n.out.w; ++x) {
          const int64_t bc = band_col[static_cast<size_t>(x)];
          if (bc < 0) continue;
          dst[x] = in.data[static_cast<size_t>((((first + bc) * is.c + c) * is.h + r % is.h) * is.w +
                                               in_col[static_cast<size_t>(x)])];
        }
      }
  }
  return out;
}

}  // namespace

int8_t requantize(int32_t acc, int shift, bool relu) {
  const int32_t round = shift > 0 ? (int32_t{1} << (shift - 1)) : 0;
  const int32_t v = wrap_add(acc, round) >> shift;
  return static_cast<int8_t>(std::clamp(v, relu ? 0 : -128, 127));
}

Tensor run_node(const Node& n, const std::vector<const Tensor*>& in) {
  switch (n.op) {
    case Op::Input:
      fail("{}: the input node has no computation", n.name);
    case Op::Conv2d:
      return requantize_all(n, conv2d_acc(n, *in.at(0)));
    case Op::Dense:
      return requantize_all(n, dense_acc(n, *in.at(0)));
    case Op::Add:
      return add(n, *in.at(0), *in.at(1));
    case Op::MaxPool:
      return pool(n, *in.at(0), true);
    case Op::AvgPool:
      return pool(n, *in.at(0), false);
    case Op::GlobalAvgPool:
      return global_avg_pool(n, *in.at(0));
    case Op::Flatten:
      return Tensor{n.out, in.at(0)->data, {}};
    case Op::Softmax:
      return Tensor{n.out, in.at(0)->data, {}};  // int8 pass-through; softmax() gives the probabilities
    case Op::Reshape:
      return Tensor{n.out, in.at(0)->data, in.at(0)->wide};
    case Op::Im2col:
      return im2col(n, *in.at(0));
    case Op::Bands:
      return bands(n, *in.at(0));
  }
  fail("{}: unknown op", n.name);
}

std::vector<int32_t> accumulators(const Node& n, const Tensor& in) {
  if (n.op == Op::Conv2d) return conv2d_acc(n, in);
  if (n.op == Op::Dense) return dense_acc(n, in);
  fail("{}: {} has no accumulators", n.name, op_name(n.op));
}

std::vector<float> softmax(const Tensor& logits, const Node& producer) {
  const Shape& s = logits.shape;
  const int64_t inner = s.c * s.h * s.w;
  const double scale = producer.scale != 0 ? producer.scale : std::ldexp(1.0, producer.exp);
  std::vector<float> out(logits.data.size());
  for (int64_t b = 0; b < s.n; ++b) {
    const int8_t* x = logits.data.data() + b * inner;
    const int8_t top = *std::max_element(x, x + inner);  // subtracted first: exp cannot overflow
    double sum = 0;
    for (int64_t i = 0; i < inner; ++i) sum += std::exp((x[i] - top) * scale);
    for (int64_t i = 0; i < inner; ++i)
      out[static_cast<size_t>(b * inner + i)] = static_cast<float>(std::exp((x[i] - top) * scale) / sum);
  }
  return out;
}

std::vector<Tensor> run_graph(const Graph& g, const Tensor& input) {
  std::vector<Tensor> values(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::Input) {
      if (!(input.shape == n.out)) fail("graph {}: input shape does not match node {}", g.name, n.name);
      values[i] = input;
      continue;
    }
    std::vector<const Tensor*> ins;
    for (int k : n.inputs) ins.push_back(&values[static_cast<size_t>(k)]);
    values[i] = run_node(n, ins);
  }
  return values;
}

}  // namespace vta::compiler
