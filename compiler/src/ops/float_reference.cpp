#include "vta/compiler/ops/float_reference.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

double pow2(int e) { return std::ldexp(1.0, e); }

// Why node `n` (of graph `g`) has no float form here, or "".
std::string node_problem(const Graph& g, const Node& n) {
  switch (n.op) {
    case Op::Input:
    case Op::Flatten:
    case Op::Reshape:
    case Op::Softmax:
    case Op::MaxPool:
      break;
    case Op::Conv2d:
    case Op::Dense:
    case Op::Add:
    case Op::AvgPool:
    case Op::GlobalAvgPool:
      if (n.asymmetric() || n.vta_rq.m != 0 || n.frq.on || !n.frqs.empty() || n.int32_out)
        return "its scales are not powers of two or it has zero points";
      if (!n.lshift.empty()) return "it has per-channel weight scales";
      if (n.weight_sets != 1) return "it is a batched MatMul";
      break;
    default:
      return "the float network has no such operator (it is made by the compiler's passes, not by a model)";
  }
  if (n.scale != 0 || n.zp != 0 || n.uint8) return "its output scale is not a power of two or it has a zero point";
  for (int i : n.inputs)
    if (g.at(i).op == Op::Softmax) return "it reads a Softmax's output";
  return "";
}

// The weight scale exponent of a Conv2d / Dense: out.exp = in.exp + w_exp + shift.
int weight_exp(const Node& n, const Node& in) { return n.exp - n.shift - in.exp; }

// The real weights and biases of a Conv2d / Dense: Node::real_weight and
// real_bias where the node has them (the zoo's), else its quantized ones.
class RealWeights {
 public:
  RealWeights(const Node& n, const Node& in) : n_(n) {
    const bool real = !n.real_weight.empty();
    const int w_exp = weight_exp(n, in);
    ws_ = pow2(real ? n.real_w_exp : w_exp);
    bs_ = pow2(in.exp + w_exp);
  }
  double weight(size_t i) const { return (n_.real_weight.empty() ? n_.weight[i] : n_.real_weight[i]) * ws_; }
  double bias(size_t o) const {
    if (!n_.real_bias.empty()) return n_.real_bias[o];
    return n_.bias.empty() ? 0.0 : n_.bias[o] * bs_;
  }

 private:
  const Node& n_;
  double ws_ = 1, bs_ = 1;
};

RealTensor conv(const Node& n, const Node& in_node, const RealTensor& in) {
  const Shape &is = in.shape, &os = n.out;
  const int64_t k = n.kernel, s = n.stride, p = n.pad, g = n.groups, icg = is.c / g, ocg = os.c / g;
  const int64_t rows = icg * k * k, cols = os.h * os.w;
  const RealWeights rw(n, in_node);
  RealTensor out{os, std::vector<double>(static_cast<size_t>(os.size()))};
  // Per group: the weights (ocg x rows) times the im2col of the input (rows x cols), in double.
  Eigen::MatrixXd w(ocg, rows), col(rows, cols);
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t grp = 0; grp < g; ++grp) {
      for (int64_t o = 0; o < ocg; ++o)
        for (int64_t r = 0; r < rows; ++r) w(o, r) = rw.weight(static_cast<size_t>((grp * ocg + o) * rows + r));
      for (int64_t c = 0; c < icg; ++c)
        for (int64_t kh = 0; kh < k; ++kh)
          for (int64_t kw = 0; kw < k; ++kw) {
            const int64_t r = (c * k + kh) * k + kw;
            const double* x = in.data.data() + (b * is.c + grp * icg + c) * is.h * is.w;
            for (int64_t oh = 0; oh < os.h; ++oh) {
              const int64_t ih = oh * s + kh - p;
              for (int64_t ow = 0; ow < os.w; ++ow) {
                const int64_t iw = ow * s + kw - p;
                col(r, oh * os.w + ow) = ih >= 0 && ih < is.h && iw >= 0 && iw < is.w ? x[ih * is.w + iw] : 0.0;
              }
            }
          }
      const Eigen::MatrixXd y = w * col;
      for (int64_t o = 0; o < ocg; ++o) {
        const int64_t oc = grp * ocg + o;
        const double bias = rw.bias(static_cast<size_t>(oc));
        double* dst = out.data.data() + (b * os.c + oc) * cols;
        for (int64_t q = 0; q < cols; ++q) {
          const double v = y(o, q) + bias;
          dst[q] = n.relu ? std::max(v, 0.0) : v;
        }
      }
    }
  return out;
}

RealTensor dense(const Node& n, const Node& in_node, const RealTensor& in) {
  const int64_t inner = in.shape.c * in.shape.h * in.shape.w;
  const RealWeights rw(n, in_node);
  RealTensor out{n.out, std::vector<double>(static_cast<size_t>(n.out.size()))};
  for (int64_t b = 0; b < n.out.n; ++b)
    for (int64_t o = 0; o < n.out.c; ++o) {
      double acc = 0;
      for (int64_t i = 0; i < inner; ++i)
        acc += in.data[static_cast<size_t>(b * inner + i)] * rw.weight(static_cast<size_t>(o * inner + i));
      const double v = acc + rw.bias(static_cast<size_t>(o));
      out.data[static_cast<size_t>(b * n.out.c + o)] = n.relu ? std::max(v, 0.0) : v;
    }
  return out;
}

// Max or mean over each k x k window (padding never wins a max, adds 0 to a
// sum, and the mean divides by k * k as the integer pool does).
RealTensor pool(const Node& n, const RealTensor& in) {
  const Shape &is = in.shape, &os = n.out;
  const bool max = n.op == Op::MaxPool;
  RealTensor out{os, std::vector<double>(static_cast<size_t>(os.size()))};
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t c = 0; c < os.c; ++c)
      for (int64_t oh = 0; oh < os.h; ++oh)
        for (int64_t ow = 0; ow < os.w; ++ow) {
          double acc = max ? -HUGE_VAL : 0.0;
          for (int64_t kh = 0; kh < n.pool; ++kh)
            for (int64_t kw = 0; kw < n.pool; ++kw) {
              const int64_t ih = oh * n.pool_stride + kh - n.pool_pad, iw = ow * n.pool_stride + kw - n.pool_pad;
              if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;
              const double v = in.data[static_cast<size_t>(((b * is.c + c) * is.h + ih) * is.w + iw)];
              acc = max ? std::max(acc, v) : acc + v;
            }
          const double v = max ? acc : acc / static_cast<double>(n.pool * n.pool);
          out.data[static_cast<size_t>(((b * os.c + c) * os.h + oh) * os.w + ow)] = n.relu ? std::max(v, 0.0) : v;
        }
  return out;
}

RealTensor global_avg_pool(const Node& n, const RealTensor& in) {
  const int64_t hw = in.shape.h * in.shape.w;
  RealTensor out{n.out, std::vector<double>(static_cast<size_t>(n.out.size()))};
  for (int64_t bc = 0; bc < in.shape.n * in.shape.c; ++bc) {
    double sum = 0;
    for (int64_t q = 0; q < hw; ++q) sum += in.data[static_cast<size_t>(bc * hw + q)];
    const double v = sum / static_cast<double>(hw);
    out.data[static_cast<size_t>(bc)] = n.relu ? std::max(v, 0.0) : v;
  }
  return out;
}

// Softmax over the channels, per (n, h, w) position.
RealTensor softmax_real(const Node& n, const RealTensor& in) {
  const Shape& s = in.shape;
  RealTensor out{n.out, in.data};
  const int64_t hw = s.h * s.w;
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t q = 0; q < hw; ++q) {
      auto at = [&](int64_t c) -> double& { return out.data[static_cast<size_t>((b * s.c + c) * hw + q)]; };
      double top = -HUGE_VAL, sum = 0;
      for (int64_t c = 0; c < s.c; ++c) top = std::max(top, at(c));
      for (int64_t c = 0; c < s.c; ++c) sum += (at(c) = std::exp(at(c) - top));
      for (int64_t c = 0; c < s.c; ++c) at(c) /= sum;
    }
  return out;
}

}  // namespace

std::string float_form_problem(const Graph& g) {
  for (const Node& n : g.nodes)
    if (const std::string why = node_problem(g, n); !why.empty())
      return fmt::format("node {} ({}): {}", n.name, op_name(n.op), why);
  return "";
}

RealTensor dequantize(const Node& n, const Tensor& t, const Node& producer) {
  RealTensor r{t.shape, std::vector<double>(t.data.size())};
  if (n.op == Op::Softmax) {
    const std::vector<float> p = softmax(t, producer);
    std::copy(p.begin(), p.end(), r.data.begin());
    return r;
  }
  const double scale = n.scale != 0 ? n.scale : pow2(n.exp);
  for (size_t i = 0; i < t.data.size(); ++i) r.data[i] = (t.data[i] - n.zp) * scale;
  return r;
}

std::vector<RealTensor> run_float(const Graph& g, const RealTensor& x) {
  if (const std::string why = float_form_problem(g); !why.empty())
    fail("graph {}: no float network to compare with: {}", g.name, why);
  std::vector<RealTensor> v(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const RealTensor* a = n.inputs.empty() ? nullptr : &v[static_cast<size_t>(n.inputs[0])];
    const Node* an = n.inputs.empty() ? nullptr : &g.at(n.inputs[0]);
    switch (n.op) {
      case Op::Input:
        if (x.shape != n.out) fail("graph {}: the float input has the wrong shape", g.name);
        v[i] = x;
        break;
      case Op::Conv2d:
        v[i] = conv(n, *an, *a);
        break;
      case Op::Dense:
        v[i] = dense(n, *an, *a);
        break;
      case Op::Add: {
        const RealTensor& b = v[static_cast<size_t>(n.inputs[1])];
        v[i] = RealTensor{n.out, a->data};
        for (size_t k = 0; k < v[i].data.size(); ++k) {
          const double s = a->data[k] + b.data[k];
          v[i].data[k] = n.relu ? std::max(s, 0.0) : s;
        }
        break;
      }
      case Op::MaxPool:
      case Op::AvgPool:
        v[i] = pool(n, *a);
        break;
      case Op::GlobalAvgPool:
        v[i] = global_avg_pool(n, *a);
        break;
      case Op::Flatten:
      case Op::Reshape:
        v[i] = RealTensor{n.out, a->data};
        break;
      case Op::Softmax:
        v[i] = softmax_real(n, *a);
        break;
      default:
        break;  // float_form_problem() refused it above
    }
  }
  return v;
}

}  // namespace vta::compiler
