#include "vta/compiler/ops/reference.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ops/int_gemm.h"
#include "vta/compiler/ops/ort_ops.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Arithmetic shift by a signed amount as the VTA ALU does (negative: left).
int32_t shift_left(int32_t a, int s) { return static_cast<int32_t>(static_cast<uint32_t>(a) << s); }

int64_t padded(int64_t r) { return (r + kGemmRowAlign - 1) / kGemmRowAlign * kGemmRowAlign; }

// Output positions per im2col chunk: the chunk (positions x padded rows of
// int16) stays in the L2 cache while every output channel reads it.
int64_t chunk_positions(int64_t rp) { return std::clamp<int64_t>((int64_t{1} << 17) / rp, 8, 256); }

// Whether the product of `n`'s weights and input needs the GEMM's exact
// wide path (operands beyond [-255, 255]: 16-bit weights or activations).
bool wide_operands(const Node& n, const Tensor& in) {
  const auto out_of_range = [](int v) { return v < -255 || v > 255; };
  return std::any_of(n.weight.begin(), n.weight.end(), [&](int16_t w) { return out_of_range(w - n.w_zp); }) ||
         std::any_of(in.data.begin(), in.data.end(), [&](int16_t x) { return out_of_range(x - n.x_zp); });
}

// Conv2d accumulators (bias included), NCHW: per group, the weights as int16
// rows (w - w_zp) times chunks of the im2col (x - x_zp, one row per output
// position; padding stands for x_zp and adds 0).
template <class A>  // int32_t (the VTA's wrap-around) or int64_t (exact)
std::vector<A> conv2d_acc(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  const Shape& os = n.out;
  const int64_t k = n.kernel, s = n.stride, p = n.pad, g = n.groups;
  const int64_t icg = is.c / g, ocg = os.c / g;
  const int64_t cols = os.h * os.w, rows = icg * k * k, rp = padded(rows);
  std::vector<A> out(static_cast<size_t>(os.size()));
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t oc = 0; oc < os.c; ++oc)
      std::fill_n(out.begin() + (b * os.c + oc) * cols, cols, n.bias.empty() ? 0 : n.bias[static_cast<size_t>(oc)]);
  const bool wide = wide_operands(n, in);
  std::vector<int16_t> w(static_cast<size_t>(os.c * rp), 0);
  for (int64_t o = 0; o < os.c; ++o)
    for (int64_t r = 0; r < rows; ++r)
      w[static_cast<size_t>(o * rp + r)] = static_cast<int16_t>(n.weight[static_cast<size_t>(o * rows + r)] - n.w_zp);
  const int64_t chunk = chunk_positions(rp);
  std::vector<int16_t> col(static_cast<size_t>(chunk * rp), 0);
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t grp = 0; grp < g; ++grp) {
      const int16_t* x = in.data.data() + (b * is.c + grp * icg) * is.h * is.w;
      for (int64_t q0 = 0; q0 < cols; q0 += chunk) {
        const int64_t nq = std::min(chunk, cols - q0);
        for (int64_t q = 0; q < nq; ++q) {
          const int64_t oh = (q0 + q) / os.w, ow = (q0 + q) % os.w;
          int16_t* dst = col.data() + q * rp;
          for (int64_t c = 0; c < icg; ++c)
            for (int64_t kh = 0; kh < k; ++kh) {
              const int64_t ih = oh * s + kh - p;
              for (int64_t kw = 0; kw < k; ++kw, ++dst) {
                const int64_t iw = ow * s + kw - p;
                *dst = ih >= 0 && ih < is.h && iw >= 0 && iw < is.w
                           ? static_cast<int16_t>(x[(c * is.h + ih) * is.w + iw] - n.x_zp)
                           : int16_t{0};
              }
            }
        }
        gemm_abt_add(w.data() + grp * ocg * rp, ocg, col.data(), nq, rp, rp,
                     out.data() + (b * os.c + grp * ocg) * cols + q0, cols, 1, wide);
      }
    }
  return out;
}

// Dense accumulators (bias included), N x O. With weight_sets > 1 the rows
// are that many equal groups, each with its own weights (a batched MatMul).
template <class A>
std::vector<A> dense_acc(const Node& n, const Tensor& in) {
  const int64_t inner = in.shape.c * in.shape.h * in.shape.w, rp = padded(inner);
  const int64_t sets = n.weight_sets, rows = n.out.n / sets, oc = n.out.c;
  if (rows * sets != n.out.n) fail("{}: {} rows do not split into {} weight sets", n.name, n.out.n, sets);
  std::vector<A> out(static_cast<size_t>(n.out.size()));
  for (int64_t b = 0; b < n.out.n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      out[static_cast<size_t>(b * oc + o)] = n.bias.empty() ? 0 : n.bias[static_cast<size_t>(o)];
  const bool wide = wide_operands(n, in);
  std::vector<int16_t> x(static_cast<size_t>(n.out.n * rp), 0);
  for (int64_t b = 0; b < n.out.n; ++b)
    for (int64_t i = 0; i < inner; ++i)
      x[static_cast<size_t>(b * rp + i)] = static_cast<int16_t>(in.data[static_cast<size_t>(b * inner + i)] - n.x_zp);
  // The weights as int16 a block of output channels at a time (VGG's fc6 alone has 10^8).
  const int64_t block = 64;
  std::vector<int16_t> w(static_cast<size_t>(block * rp), 0);
  for (int64_t set = 0; set < sets; ++set)
    for (int64_t o0 = 0; o0 < oc; o0 += block) {
      const int64_t no = std::min(block, oc - o0);
      const int16_t* src = n.weight.data() + (set * oc + o0) * inner;
      for (int64_t o = 0; o < no; ++o)
        for (int64_t i = 0; i < inner; ++i)
          w[static_cast<size_t>(o * rp + i)] = static_cast<int16_t>(src[o * inner + i] - n.w_zp);
      gemm_abt_add(w.data(), no, x.data() + set * rows * rp, rows, rp, rp, out.data() + set * rows * oc + o0, 1, oc,
                   wide);
    }
  return out;
}

// v / 2^shift rounded half up or (round_even) half to even, in 64 bits.
int64_t round_shift(int64_t v, int shift, bool round_even) {
  if (shift <= 0) return v;
  const int64_t half = int64_t{1} << (shift - 1), q = (v + half) >> shift;
  // A tie that went up to an odd result goes back down to the even one.
  const bool tie = (v & ((int64_t{1} << shift) - 1)) == half;
  return round_even && tie && (q & 1) ? q - 1 : q;
}

// Clipped to the node's output width (relu: from its zero point).
int16_t clip8(int64_t v, const Node& n) {
  const int32_t lo = elem_min(n.bits);
  return static_cast<int16_t>(std::clamp<int64_t>(v, n.relu ? std::max(n.zp, lo) : lo, elem_max(n.bits)));
}

// The multiplier form of requantization (asymmetric nodes), in 64 bits.
int16_t requantize_mult(int32_t acc, const Node& n) {
  return clip8(round_shift(static_cast<int64_t>(acc) * n.mult, n.shift, n.round_even) + n.zp, n);
}

int16_t requantize_one(int32_t acc, const Node& n) {
  if (n.fmult != 0) return requantize_ort(acc, n.fmult, n.zp, n.relu);  // ONNX Runtime's float requantization
  if (n.round_even) {  // the shift form or the VTA form with m 1 (import makes no other)
    const int s = n.vta_rq.m != 0 ? n.vta_rq.pre + n.vta_rq.s : n.shift;
    if (n.vta_rq.m > 1 || n.asymmetric()) return requantize_mult(acc, n);
    return clip8(round_shift(acc, s, true) + (n.vta_rq.m != 0 ? n.zp : 0), n);
  }
  if (n.vta_rq.m != 0) return requantize_vta(acc, n.vta_rq, n.zp, n.relu);
  if (n.asymmetric()) return requantize_mult(acc, n);
  return requantize(acc, n.shift, n.relu, n.bits);
}

}  // namespace

Tensor requantize_all(const Node& n, std::vector<int32_t> acc) {
  if (!n.lshift.empty()) {  // per-channel weight scales: to the finest channel's scale
    const int64_t area = n.out.h * n.out.w;
    for (size_t i = 0; i < acc.size(); ++i)
      acc[i] = shift_left(acc[i], n.lshift[static_cast<size_t>((static_cast<int64_t>(i) / area) % n.out.c)]);
  }
  if (n.int32_out) return Tensor{n.out, {}, std::move(acc)};
  Tensor out{n.out, std::vector<int16_t>(acc.size()), {}};
  if (!n.fmults.empty()) {  // ONNX Runtime's float requantization, one multiplier per output channel
    const int64_t area = n.out.h * n.out.w;
    for (size_t i = 0; i < acc.size(); ++i)
      out.data[i] = requantize_ort(acc[i], n.fmults[static_cast<size_t>((static_cast<int64_t>(i) / area) % n.out.c)],
                                   n.zp, n.relu);
    return out;
  }
  for (size_t i = 0; i < acc.size(); ++i) out.data[i] = requantize_one(acc[i], n);
  return out;
}

namespace {

Tensor add(const Node& n, const Tensor& a, const Tensor& b) {
  if (!(a.shape == b.shape)) fail("{}: add of different shapes", n.name);
  Tensor out{n.out, std::vector<int16_t>(a.data.size())};
  if (n.ort.a != 0) {  // ONNX Runtime's QLinearAdd
    const AddOrt p{n.x_zp, n.w_zp, n.zp, n.ort.a, n.ort.b, n.ort.out, n.uint8, n.relu};
    for (size_t i = 0; i < a.data.size(); ++i)
      out.data[i] = add_ort(static_cast<int8_t>(a.data[i]), static_cast<int8_t>(b.data[i]), p);
    return out;
  }
  for (size_t i = 0; i < a.data.size(); ++i) {
    const int32_t sum = wrap_add(shift_left(a.data[i] - n.x_zp, n.shift_a), shift_left(b.data[i] - n.w_zp, n.shift_b));
    out.data[i] = n.round_even || n.zp != 0 ? clip8(round_shift(sum, n.shift, n.round_even) + n.zp, n)
                                            : requantize(sum, n.shift, n.relu, n.bits);
  }
  return out;
}

Tensor pool(const Node& n, const Tensor& in, bool max) {
  const Shape& is = in.shape;
  const Shape& os = n.out;
  Tensor out{os, std::vector<int16_t>(static_cast<size_t>(os.size()))};
  for (int64_t b = 0; b < os.n; ++b)
    for (int64_t c = 0; c < os.c; ++c)
      for (int64_t oh = 0; oh < os.h; ++oh)
        for (int64_t ow = 0; ow < os.w; ++ow) {
          int32_t acc = max ? elem_min(n.bits) : 0;
          float fsum = 0;  // ONNX Runtime's float sum (Node::ort), in the same row order
          for (int64_t kh = 0; kh < n.pool; ++kh)
            for (int64_t kw = 0; kw < n.pool; ++kw) {
              const int64_t ih = oh * n.pool_stride + kh - n.pool_pad, iw = ow * n.pool_stride + kw - n.pool_pad;
              if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;  // padding never wins, adds 0
              const int32_t v = in.data[static_cast<size_t>(((b * is.c + c) * is.h + ih) * is.w + iw)];
              acc = max ? std::max(acc, v) : acc + v - n.x_zp;
              if (n.ort.a != 0) fsum += pool_term_ort(v - n.x_zp, n.ort.a);
            }
          out.data[static_cast<size_t>(((b * os.c + c) * os.h + oh) * os.w + ow)] =
              max                         ? static_cast<int16_t>(acc)
              : n.ort.a != 0              ? avg_pool_ort(fsum, n.pool * n.pool, n.ort.out, n.zp, n.uint8, n.relu)
              : n.round_even || n.zp != 0 ? clip8(round_shift(acc, n.shift, n.round_even) + n.zp, n)
                                          : requantize(acc, n.shift, n.relu, n.bits);
        }
  return out;
}

Tensor global_avg_pool(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()))};
  for (int64_t b = 0; b < is.n; ++b)
    for (int64_t c = 0; c < is.c; ++c) {
      int32_t sum = 0;
      for (int64_t q = 0; q < is.h * is.w; ++q)
        sum += in.data[static_cast<size_t>((b * is.c + c) * is.h * is.w + q)] - n.x_zp;
      out.data[static_cast<size_t>(b * is.c + c)] =
          n.fmult != 0                ? requantize_ort(sum, n.fmult, n.zp, n.relu)  // QLinearGlobalAveragePool
          : n.round_even || n.zp != 0 ? clip8(round_shift(int64_t{sum} * n.mult, n.shift, n.round_even) + n.zp, n)
                                      : requantize(sum * n.mult, n.shift, n.relu, n.bits);
    }
  return out;
}

// Op::Im2col: out[b][(c k + kh) k + kw][oh][ow] = in[b][c][oh s - p + kh][ow s - p + kw], 0 outside.
Tensor im2col(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  const int64_t k = n.kernel;
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()), 0)};
  for (int64_t b = 0; b < is.n; ++b)
    for (int64_t c = 0; c < is.c; ++c)
      for (int64_t kh = 0; kh < k; ++kh)
        for (int64_t kw = 0; kw < k; ++kw) {
          int16_t* dst = out.data.data() + (((b * is.c + c) * k + kh) * k + kw) * n.out.h * n.out.w;
          for (int64_t oh = 0; oh < n.out.h; ++oh) {
            const int64_t y = oh * n.stride - n.pad + kh;
            if (y < 0 || y >= is.h) continue;
            const int16_t* row = in.data.data() + ((b * is.c + c) * is.h + y) * is.w;
            for (int64_t ow = 0; ow < n.out.w; ++ow) {
              const int64_t x = ow * n.stride - n.pad + kw;
              if (x >= 0 && x < is.w) dst[oh * n.out.w + ow] = row[x];
            }
          }
        }
  return out;
}

// Op::Pad: H and W padded by n.pad on each side with x_zp.
Tensor pad(const Node& n, const Tensor& in) {
  const Shape& is = in.shape;
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()), static_cast<int16_t>(n.x_zp))};
  for (int64_t bc = 0; bc < is.n * is.c; ++bc)
    for (int64_t y = 0; y < is.h; ++y)
      std::copy_n(in.data.data() + (bc * is.h + y) * is.w, is.w,
                  out.data.data() + (bc * n.out.h + y + n.pad) * n.out.w + n.pad);
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
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()), 0)};
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
        int16_t* dst = out.data.data() + ((b * n.out.c + c) * n.out.h + y) * n.out.w;
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

// ONNX Runtime's QuantizeLinear (MLAS, float32 to int8 / uint8): the
// quotient in float32, rounded half to even, plus the zero point, saturated.
Tensor quantize_linear(const Node& n, const Tensor& x) {
  if (x.real.size() != static_cast<size_t>(n.out.size())) fail("{}: the input is not a float tensor", n.name);
  const float scale = static_cast<float>(n.scale);
  const float zp = static_cast<float>(n.zp + (n.uint8 ? 128 : 0));
  const float lo = n.uint8 ? 0.0f : -128.0f, hi = n.uint8 ? 255.0f : 127.0f;
  Tensor out{n.out, std::vector<int16_t>(x.real.size())};
  for (size_t i = 0; i < x.real.size(); ++i) {
    const float q = std::clamp(std::nearbyint(x.real[i] / scale) + zp, lo, hi);
    out.data[i] = static_cast<int16_t>(static_cast<int32_t>(q) - (n.uint8 ? 128 : 0));
  }
  return out;
}

// Op::Concat along C: each input copied, or requantized as ONNX Runtime's
// QLinearConcat does where its scale or zero point is not the output's:
// sat(nearbyint(fl(fl((x - zx) * sx) / sy)) + zy) in float32 (a table per input).
Tensor concat(const Node& n, const std::vector<const Tensor*>& in) {
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()))};
  const int64_t area = n.out.h * n.out.w;
  const float lo = n.uint8 ? 0.0f : -128.0f, hi = n.uint8 ? 255.0f : 127.0f, off = n.uint8 ? 128.0f : 0.0f;
  int64_t c0 = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const Tensor& x = *in[k];
    std::array<int8_t, 256> table{};
    for (int v = -128; v < 128; ++v) {
      const float d = static_cast<float>(v - n.in_zps.at(k)) * n.in_scales.at(k);
      const float q =
          std::clamp(std::nearbyint(d / static_cast<float>(n.scale)) + (static_cast<float>(n.zp) + off), lo, hi);
      table[static_cast<size_t>(v + 128)] = static_cast<int8_t>(static_cast<int32_t>(q) - static_cast<int32_t>(off));
    }
    const bool copy = n.in_scales[k] == static_cast<float>(n.scale) && n.in_zps[k] == n.zp;
    const int64_t block = x.shape.c * area;
    for (int64_t b = 0; b < n.out.n; ++b) {
      const int16_t* src = x.data.data() + b * block;
      int16_t* dst = out.data.data() + (b * n.out.c + c0) * area;
      for (int64_t i = 0; i < block; ++i) dst[i] = copy ? src[i] : table[static_cast<size_t>(src[i] + 128)];
    }
    c0 += x.shape.c;
  }
  return out;
}

// Op::Mul: ONNX Runtime's QLinearMul of a and b, b broadcast over H x W
// when it is N x C x 1 x 1.
Tensor mul(const Node& n, const Tensor& a, const Tensor& b) {
  const MulOrt p{n.x_zp, n.w_zp, n.zp, n.ort.a, n.ort.b, n.ort.out, n.uint8};
  const int64_t area = b.shape == a.shape ? 1 : a.shape.h * a.shape.w;
  Tensor out{n.out, std::vector<int16_t>(a.data.size())};
  for (size_t i = 0; i < a.data.size(); ++i) out.data[i] = mul_ort(a.data[i], b.data[i / static_cast<size_t>(area)], p);
  return out;
}

// Op::Softmax of an imported QDQ graph (Node::ort set): ONNX Runtime's
// QLinearSoftmax over C x H x W of each image.
Tensor qlinear_softmax(const Node& n, const Tensor& x) {
  const SoftmaxOrt p{n.ort.a, n.ort.out, n.zp, n.uint8};
  const int64_t d = n.out.c * n.out.h * n.out.w;
  Tensor out{n.out, std::vector<int16_t>(x.data.size())};
  for (int64_t b = 0; b < n.out.n; ++b) softmax_ort(x.data.data() + b * d, out.data.data() + b * d, d, p);
  return out;
}

// Op::Upsample: each value repeated pool x pool times (nearest).
Tensor upsample(const Node& n, const Tensor& x) {
  Tensor out{n.out, std::vector<int16_t>(static_cast<size_t>(n.out.size()))};
  size_t i = 0;
  for (int64_t p = 0; p < n.out.n * n.out.c; ++p)
    for (int64_t y = 0; y < n.out.h; ++y)
      for (int64_t xx = 0; xx < n.out.w; ++xx)
        out.data[i++] = x.data[static_cast<size_t>((p * x.shape.h + y / n.pool) * x.shape.w + xx / n.pool)];
  return out;
}

// Op::Lookup: the output code of each input code.
Tensor lookup(const Node& n, const Tensor& x) {
  Tensor out{n.out, std::vector<int16_t>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = n.lookup.table.at(static_cast<size_t>(x.data[i] + 128));
  return out;
}

// ONNX Runtime's DequantizeLinear: float(int32(x) - zp) * scale in float32
// (the held int8 value and zero point differ from uint8 ones by the same 128).
Tensor dequantize_linear(const Node& n, const Tensor& x) {
  const float scale = static_cast<float>(n.scale);
  Tensor out{n.out, {}, {}, std::vector<float>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) out.real[i] = static_cast<float>(int32_t{x.data[i]} - n.x_zp) * scale;
  return out;
}

}  // namespace

int16_t requantize(int32_t acc, int shift, bool relu, int bits) {
  const int32_t v = rounding_shift(acc, shift);
  return static_cast<int16_t>(std::clamp(v, relu ? 0 : elem_min(bits), elem_max(bits)));
}

Tensor run_node(const Node& n, const std::vector<const Tensor*>& in) {
  switch (n.op) {
    case Op::Input:
      fail("{}: the input node has no computation", n.name);
    case Op::Conv2d:
      return requantize_all(n, conv2d_acc<int32_t>(n, *in.at(0)));
    case Op::Dense:
      return requantize_all(n, dense_acc<int32_t>(n, *in.at(0)));
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
      if (n.ort.a != 0) return qlinear_softmax(n, *in.at(0));
      return Tensor{n.out, in.at(0)->data, {}};  // int8 pass-through; softmax() gives the probabilities
    case Op::Reshape:
      return Tensor{n.out, in.at(0)->data, in.at(0)->wide};
    case Op::Im2col:
      return im2col(n, *in.at(0));
    case Op::Pad:
      return pad(n, *in.at(0));
    case Op::Bands:
      return bands(n, *in.at(0));
    case Op::Concat:
      return concat(n, in);
    case Op::DeviceCopy:
      return *in.at(0);
    case Op::Quantize:
      return quantize_linear(n, *in.at(0));
    case Op::Dequantize:
      return dequantize_linear(n, *in.at(0));
    case Op::Lookup:
      return lookup(n, *in.at(0));
    case Op::Mul:
      return mul(n, *in.at(0), *in.at(1));
    case Op::Upsample:
      return upsample(n, *in.at(0));
  }
  fail("{}: unknown op", n.name);
}

std::vector<int32_t> accumulators(const Node& n, const Tensor& in) {
  if (n.op == Op::Conv2d) return conv2d_acc<int32_t>(n, in);
  if (n.op == Op::Dense) return dense_acc<int32_t>(n, in);
  fail("{}: {} has no accumulators", n.name, op_name(n.op));
}

std::vector<int64_t> accumulators64(const Node& n, const Tensor& in) {
  if (n.op == Op::Conv2d) return conv2d_acc<int64_t>(n, in);
  if (n.op == Op::Dense) return dense_acc<int64_t>(n, in);
  fail("{}: {} has no accumulators", n.name, op_name(n.op));
}

std::vector<float> softmax(const Tensor& logits, const Node& producer) {
  const Shape& s = logits.shape;
  const int64_t inner = s.c * s.h * s.w;
  const double scale = producer.scale != 0 ? producer.scale : std::ldexp(1.0, producer.exp);
  std::vector<float> out(logits.data.size());
  for (int64_t b = 0; b < s.n; ++b) {
    const int16_t* x = logits.data.data() + b * inner;
    const int16_t top = *std::max_element(x, x + inner);  // subtracted first: exp cannot overflow
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
