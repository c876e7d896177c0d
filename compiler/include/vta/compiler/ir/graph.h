#pragma once
// The compiler's IR: a DAG of quantized integer operators in topological order.
//
// Quantization is integer-only and shift-based: every tensor t stands for the
// real values q * 2^t.exp. Its elements are A-bit integers (Node::bits: 8 by
// default, 4 or 16 at other dtype widths), held as int16; weights are W-bit
// (Graph::wgt_bits), held as int16 too. Operators that produce A bits from an
// int32 accumulator requantize with a rounding right shift and a clip:
//   out = clip((acc + 2^(shift-1)) >> shift, relu ? 0 : -2^(A-1), 2^(A-1) - 1)
// which maps directly onto the VTA ALU (ADD, SHR, MAX, MIN). The integer
// reference executor (reference.h) defines the exact semantics of each op.
//
// Asymmetric models (ONNX QLinear* / *Integer operators) add zero points, a
// requantization multiplier and int32 outputs; such nodes run on the host
// unless they reduce to the symmetric shift form or, without input and
// weight zero points, to the multiplier form of the VTA ALU (requant.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/ir/shared_vector.h"

namespace vta::compiler {

enum class Op {
  Input,          // the network input (int8)
  Conv2d,         // int8 x int8 -> int32 (+ bias) -> requantize; groups 1 or depthwise
  Dense,          // fully connected, as Conv2d on 1x1 (input flattened)
  Add,            // out = clip((a << shift_a) + (b << shift_b) + round >> shift)
  MaxPool,        // k x k window, stride, zero... padding never selected (-128)
  AvgPool,        // k x k window: sum then rounding shift (k*k must be a power of two)
  GlobalAvgPool,  // mean over H x W: sum * mult >> shift
  Flatten,        // NCHW -> N x (C*H*W) x 1 x 1
  Softmax,        // host only, float output (reported, not compared bit-exactly)
  Reshape,        // host only: same NCHW data, another shape
  Im2col,         // host only, made by pack_stem(): the kernel x kernel windows (stride, zero pad) of
                  // each output position as channels c*k*k + kh*k + kw of an N x (C k k) x Ho x Wo tensor
  Pad,            // host only, made at import: H and W padded by `pad` on each side with the value `x_zp`
                  // (the zero point of a convolution's input, which VTA's zero-filling loads cannot give)
  Bands,          // host only, made by band_rows(): the image in out.n bands (a grid of out.n / X rows of
                  // X = band.cols) of R x Q output positions of a k x k, stride s, pad p window: batch image
                  // b = by X + bx, out[b][c][y][x] = image[c][by R s - p + y][bx Q s - p + x], 0 outside,
                  // R = (out.h - k) / s + 1, Q = (out.w - k) / s + 1; k = 1: every s-th row and column,
                  // image[c][(by R + y) s][(bx Q + x) s], R = out.h, Q = out.w
  Quantize,       // host only: ONNX's QuantizeLinear of a float graph input (Node::real input), as ONNX Runtime
                  // computes it: sat(nearbyint(x / scale) + zp) in float32, half to even (scale: Node::scale)
  Dequantize,     // host only: ONNX's DequantizeLinear of the graph output, float32 (x - x_zp) * scale
                  // (Node::real output)
  Concat,         // host only: the inputs one after another along C (same N, H, W); an input at another
                  // scale or zero point than the output is requantized as ONNX Runtime does
                  // (Node::in_scales, in_zps: QuantizeLinear of its DequantizeLinear in float32)
  DeviceCopy,     // made by insert_copies() (copies.cpp) where a value crosses between host and VTA: the
                  // value of its one input, moved to the other device (its input's device -> the other);
                  // identity on the data, run by the host (the link's copy or cache flush/invalidate)
  Lookup,         // host only, made at import: out = table[x + 128], a function of the 256 input codes
                  // (ONNX Runtime's DQ -> Sigmoid / HardSigmoid / HardSwish -> Q, ort_ops.h; Node::lookup)
  Mul,            // host only, made at import: ONNX Runtime's QLinearMul (ort_ops.h) of inputs a and b, b of
                  // the same shape or N x C x 1 x 1 (broadcast over H x W); scales in Node::ort
  Upsample,       // host only, made at import (Resize, nearest, integer factor `pool`):
                  // out[n][c][y][x] = in[n][c][y / pool][x / pool]
};
const char* op_name(Op op);

enum class Device { Host, Vta };
const char* device_name(Device d);

/// The range of a signed `bits`-bit element.
constexpr int32_t elem_min(int bits) { return -(int32_t{1} << (bits - 1)); }
constexpr int32_t elem_max(int bits) { return (int32_t{1} << (bits - 1)) - 1; }

struct Shape {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t size() const { return n * c * h * w; }
  bool operator==(const Shape&) const = default;
};

/// Requantization in the VTA ALU's steps (requant.h): a rounding shift by
/// `pre`, a multiply by `m`, a rounding shift by `s`; m == 0: not used.
struct VtaRequant {
  int pre = 0;    // rounding right shift before the multiply
  int32_t m = 0;  // multiplier, 1 .. 32767 (1: no MUL)
  int s = 0;      // rounding right shift after it, 0 .. 30
  bool operator==(const VtaRequant&) const = default;
};

/// ONNX Runtime's float requantization as exact VTA ALU steps
/// (requant_float.h); on == false: not used.
struct FloatRequantVta {
  bool on = false;
  int32_t t_hi = 0;  // the first accumulator of the largest output (folded into the bias: acc - t_hi)
  int32_t span = 0;  // W + j0: u' = max(min(acc - t_hi, 0) + span, j0), u' = u + j0
  int32_t j0 = 0;    // the intercept's whole multiples of m
  int64_t m = 0;     // the multiplier (two words when above 32767: (m >> 12) 2^12 + (m & 4095))
  int64_t c = 0;     // the intercept less m j0, in [0, m)
  int32_t s = 0;     // the shift: out = zmin + floor((m u' + c) / 2^s)
  int32_t zmin = 0;  // the smallest output
  // The accumulators where ONNX Runtime's double rounding leaves the line
  // (a tie zone of the float product): u of each, moved to u + 1, or to
  // u - 1 where it is stored negated (u >= 1), before the line.
  std::vector<int32_t> fixes;
  // A channel of a per-channel form (Node::frqs): m and c come from ACC rows,
  // one 32-bit word whatever m.
  bool row = false;
  // A channel of the two-line form of a per-channel node (requant_float.h):
  // out = zmin + floor((m u' + c) / 2^s) + floor((m u' + c2) / 2^s), the
  // levels after odd and after even thresholds as two lines of slope S / 2
  // (ONNX Runtime's ties go to the even level, so each class has its own line).
  bool two_lines = false;
  int64_t c2 = 0;
  std::vector<int32_t> segs2;  // the second line's intercept steps (as segs, seg_dc)
  std::vector<int64_t> seg_dc2;
  // A channel of a per-channel form whose line has the float scale's exact
  // slope (m = its 24-bit mantissa) and an intercept that steps where the
  // float product's rounding moves (a binade of fl(acc * S)): for u below
  // segs[i] the intercept is c + seg_dc[i] (summed over every such i).
  std::vector<int32_t> segs;
  std::vector<int64_t> seg_dc;
  bool two_words() const { return !row && m > 32767; }
  bool operator==(const FloatRequantVta&) const = default;
};

struct Node {
  std::string name;
  Op op = Op::Input;
  std::vector<int> inputs;  // indices of earlier nodes
  Shape out;
  int exp = 0;   // output scale: value = q * 2^exp
  int bits = 8;  // output element width A: values in [-2^(A-1), 2^(A-1) - 1] (requantization clips there)
  Device device = Device::Host;
  // The user's device annotation (`--host-ops`, pin_host_ops()): the node
  // stays on the host whatever VTA could run; partition() honours it.
  bool pin_host = false;

  // Conv2d / Dense
  int64_t kernel = 1, stride = 1, pad = 0, groups = 1;
  SharedVector<int16_t> weight;  // O x (I/groups) x K x K, W-bit values (shared between copies until written)
  std::vector<int32_t> bias;     // O
  // The float network's weights and biases (float_reference.h) when they
  // are finer than the quantized ones above (the zoo's: real weight
  // real_weight * 2^real_w_exp, real bias real_bias); empty: weight * 2^w_exp
  // and bias at the accumulator's scale.
  SharedVector<int16_t> real_weight;
  int real_w_exp = 0;
  std::vector<double> real_bias;
  // Requantization (Conv2d, Dense, Add, AvgPool, GlobalAvgPool)
  int shift = 0;
  bool relu = false;
  // Add: left shifts that bring both inputs to a common scale
  int shift_a = 0, shift_b = 0;
  // GlobalAvgPool: multiplier applied to the sum before the shift
  int32_t mult = 1;
  // Pools
  int64_t pool = 2, pool_stride = 2, pool_pad = 0;
  // Batch rows for batch-1 networks (band_rows.cpp): a banded output holds one
  // image of h x w in out.n bands of out.h x out.w, a grid of cols bands
  // per row of bands (batch image b = by cols + bx: image rows by out.h ..,
  // columns bx out.w ..); positions past the image are computed, never read.
  // h == 0: not banded. Op::Bands: band describes its own output, band_src
  // its input (h == 0 there: a plain image).
  struct Banding {
    int64_t h = 0, w = 0, cols = 1;
    bool operator==(const Banding&) const = default;
  };
  Banding band, band_src;

  // Asymmetric quantization (Conv2d / Dense): real = (q - zero point) * scale.
  // Add: x_zp and w_zp are the zero points of inputs a and b; GlobalAvgPool:
  // x_zp is its input's. Every node's zp is its output's zero point.
  // acc = sum (x - x_zp) * (w - w_zp) + bias (padding adds 0, i.e. pads with
  // x_zp); out = clip(((int64 acc * mult + 2^(shift-1)) >> shift) + zp,
  // relu ? zp : -128, 127). uint8 ONNX tensors are held as int8 (value - 128,
  // zero points likewise), so every 8-bit value in the graph is int8.
  int32_t x_zp = 0, w_zp = 0, zp = 0;
  bool uint8 = false;      // the ONNX tensor of this output is uint8: add 128 to get it
  bool int32_out = false;  // Conv2d / Dense: the output is the int32 accumulator, not requantized
  // The value is float32 (Tensor::real, 4 bytes an element): a float graph
  // input (its Op::Quantize reads it) or an Op::Dequantize output.
  bool real = false;
  double scale = 0;  // the output scale when it is not a power of two (0: it is 2^exp)
  // Conv2d / Dense: the multiplier form and output zero point as VTA ALU
  // steps, which replace the 64-bit form above (set at import by
  // lower_for_vta() when the node has no input or weight zero points):
  //   out = clip((((acc >> pre) * m) >> s) + zp, relu ? zp : -128, 127), shifts rounding.
  VtaRequant vta_rq;
  // Rounding of every requantizing shift of this node: half up (the
  // project's own graphs and exports) or half to even (ONNX's QuantizeLinear
  // and QLinear* semantics, for imported graphs that do not carry the
  // export's tie offset). VTA runs half to even exactly for a final shift of
  // at most 15 with a scratch ACC tile (requant_steps()); otherwise the host.
  bool round_even = false;
  // QLinearConv / QLinearMatMul whose multiplier is not a power of two:
  // ONNX Runtime's float requantization, out = clip(nearbyint(float(acc) *
  // fmult) + zp) with fmult = float(x_scale * w_scale) / y_scale (host only).
  float fmult = 0;
  // The same per output channel (per-channel weight scales), when not empty
  // (fmult is then the first channel's, marking the node as float-requantized).
  std::vector<float> fmults;
  // Add / AvgPool whose scales are not all powers of two: ONNX Runtime's
  // float arithmetic (ort_ops.h) with the scales of input a (the pool's
  // input), input b and the output; a == 0: not used (host only).
  // GlobalAvgPool takes ONNX Runtime's form through fmult instead.
  struct OrtScales {
    float a = 0, b = 0, out = 0;
    bool operator==(const OrtScales&) const = default;
  };
  OrtScales ort;
  // Conv2d / Dense with fmult (one per tensor): its exact VTA form, set at
  // import by lower_float_requant() (requant_float.h) when one exists.
  FloatRequantVta frq;
  // The same per output channel when fmults is not empty: each channel's own
  // line and fixes, run as ALU steps by per-channel ACC rows (requant_float.h
  // float_requant_rows()); set at import when every channel has one and the
  // steps were checked on every accumulator of each channel; empty: host.
  std::vector<FloatRequantVta> frqs;
  // Conv2d / Dense with per-channel power-of-two weight scales: a left shift
  // per output channel applied to the accumulator before the requantizing
  // shift (which is then the one of the finest channel); empty: none.
  std::vector<int8_t> lshift;
  // Concat: each input's scale and zero point (int8 domain), beside the
  // output's (scale, zp); an input with both equal to the output's is copied.
  std::vector<float> in_scales;
  std::vector<int32_t> in_zps;
  // Op::Lookup: the ONNX operator it computes (its host reason names it) and
  // the output code of each input code v at table[v + 128].
  struct LookupTable {
    std::string onnx_op;
    std::vector<int8_t> table;
    bool operator==(const LookupTable&) const = default;
  };
  LookupTable lookup;
  // Dense: the input rows form weight_sets equal groups, each multiplied by
  // its own O x I weights (a batched MatMul); weight holds them one after another.
  int64_t weight_sets = 1;

  /// True when the node uses any of the asymmetric fields above in the
  /// 64-bit form (host only); false for the shift and VTA multiplier forms.
  bool asymmetric() const {
    if (ort.a != 0) return true;
    if (frq.on || !frqs.empty()) return false;  // the exact VTA form holds the zero point and the multiplier
    return fmult != 0 || (vta_rq.m == 0 && (x_zp != 0 || w_zp != 0 || zp != 0 || int32_out || weight_sets != 1 ||
                                            (mult != 1 && op != Op::GlobalAvgPool)));
  }

  /// Multiply-accumulates of this node (Conv2d/Dense), 0 otherwise.
  int64_t macs(const Shape& in) const;
  bool operator==(const Node&) const = default;
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  int output = -1;
  int wgt_bits = 8;  // the weights' width W (the node widths give the activations')
  /// Adds `n` (inputs must already exist) and returns its index.
  int add(Node n);
  const Node& at(int i) const { return nodes.at(static_cast<size_t>(i)); }
  /// One line per node: "name op device shape <- inputs".
  std::string dump() const;
  bool operator==(const Graph&) const = default;
};

/// The device an Op::DeviceCopy node moves its input's value to: the other
/// device than its input's.
Device copy_target(const Graph& g, const Node& copy);

/// A tensor of a graph value (NCHW, row-major): A-bit integers (Node::bits) held as int16.
struct Tensor {
  Tensor() = default;
  Tensor(Shape s, std::vector<int16_t> d, std::vector<int32_t> w = {}, std::vector<float> r = {})
      : shape(s), data(std::move(d)), wide(std::move(w)), real(std::move(r)) {}
  Shape shape;
  std::vector<int16_t> data;
  std::vector<int32_t> wide;  // the values instead of `data` for an int32 tensor (Node::int32_out)
  std::vector<float> real;    // the values instead of `data` for a float32 tensor (Node::real)
};

/// The steps of node `n` as kMaxNodeSteps (shape_check.h) counts them, as a
/// double (no overflow for any shape).
double node_steps(const Node& n);

/// Throws vta::Error naming the graph and the node when `n`'s output shape
/// has a dimension below 1 or more than kMaxTensorElements elements, or when
/// computing it takes more than kMaxNodeSteps steps (shape_check.h).
void check_output_shape(const std::string& graph, const Node& n);

}  // namespace vta::compiler
