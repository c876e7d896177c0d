#pragma once
// ONNX import and export of quantized networks in the QDQ form (opset 13):
// 8-bit tensors between QuantizeLinear / DequantizeLinear pairs around float
// Conv, Gemm, Add, Relu, AveragePool and GlobalAveragePool; MaxPool and
// Flatten directly on the 8-bit tensor. Every scale must be a power of two
// (requantization is a shift). Export then import gives back the same graph.
//
// Import computes what ONNX defines, bit for bit with ONNX Runtime:
// - Rounding: QuantizeLinear rounds half to even (Node::round_even), except
//   after the export's own tie offset (an Add of a quarter of the unit just
//   before it, onnx_export.cpp), which the import recognises as the
//   project's half-up shift. VTA rounds half to even exactly in conv / dense
//   epilogues for shifts up to 15 (requant_steps(): a scratch ACC tile);
//   Add and the pools that round half to even run on the host.
// - Activations may be uint8 (as ONNX Runtime's static quantizer emits)
//   with any zero point. Representation: every 8-bit tensor is held as int8,
//   a uint8 value u as u - 128 and its zero point z as z - 128 (Node::uint8,
//   Node::zp), on VTA and on the host alike; (u - z) is unchanged, and the
//   graph's input and output convert at the boundary (input_tensor(),
//   output_values()). A conv / dense input zero point is folded into the
//   bias (sum (x - z) w + b = sum x w + (b - z sum w)); where the conv pads,
//   a host Pad node pads with z first (VTA's loads pad with 0). The output
//   zero point is an ALU ADD after the shift, and the clip is [-128, 127]
//   (ReLU: [z, 127]).
// - Weights are int8 or uint8 with a per-tensor or a per-axis (axis 0)
//   scale and zero point (per-axis zero points equal); the zero point is
//   subtracted into int8 weights where every w - z fits, else kept as
//   Node::w_zp (host: ONNX Runtime's QLinearConv with a weight zero point).
//   Per-channel power-of-two scales become a per-channel left shift of the
//   accumulator to the finest channel's scale (Node::lshift, an SHR by a row
//   of ACC on VTA), refused where it could overflow 32 bits.
//   Biases are int32 at input scale x weight scale (per channel).
// - Residual Add, AveragePool and GlobalAveragePool with zero points run on
//   the host with the same rounding.
//
// - ONNX Runtime's static quantizer (QDQ format, tests/data/onnx-qdq): a
//   float graph input read by QuantizeLinear at any scale and zero point is
//   a float Input node (Node::real) and a host Op::Quantize node (ONNX
//   Runtime's float32 division, half to even, saturation); a float graph
//   output that is the DequantizeLinear of an 8-bit tensor is a host
//   Op::Dequantize node. DQ -> MaxPool / Flatten / Reshape (to [N, C*H*W])
//   -> Q at the same scale and zero point (as the quantizer writes them) is
//   the op on the 8-bit tensor, as ONNX Runtime runs it; another scale is
//   refused naming both. DQ -> Pad (constant 0, H and W alike) -> Q is a
//   host Op::Pad with the zero point; DQ, DQ -> Concat (channels, uint8) ->
//   Q a host Op::Concat requantizing each input as ONNX Runtime does.
//   DQ -> Sigmoid / HardSigmoid / HardSwish -> Q is a host Op::Lookup of the
//   256 input codes (ONNX Runtime's float function, ort_ops.h); DQ, DQ ->
//   Mul -> Q (same shapes, or the second N x C x 1 x 1) a host Op::Mul
//   (QLinearMul); uint8 DQ -> Softmax -> Q over Gemm's / Flatten's logits
//   a host Op::Softmax with Node::ort set (QLinearSoftmax); DQ -> Resize
//   (nearest, a whole factor) -> Q at one scale a host Op::Upsample.
//
// The integer operators QLinearConv, ConvInteger, QLinearMatMul and
// MatMulInteger take int8 or uint8 tensors with any scales and per-tensor
// zero points, and give int8 / uint8 or int32 outputs (Node::int32_out).
// A power-of-two multiplier is a half-to-even shift (VTA when the weights
// have no zero point and nothing pads with a non-zero input zero point);
// any other is ONNX Runtime's float requantization (Node::fmult), which
// gives its results bit for bit (onnx_integer.h): on VTA through its exact
// ALU form (Node::frq) without input and weight zero points, else the host.
// 3-D inputs (batched MatMul rows) fold their batch into N.
//
// The export's integer form (integer_requant() below: a uint8 view of an
// int8 tensor, ConvInteger / MatMulInteger, then int32 Add, Clip, Div, Sub,
// DequantizeLinear, QuantizeLinear) is read back into the plain shift form
// (onnx_integer_requant.cpp), every constant checked against the form.
#include <optional>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// Reads an ONNX model. Throws vta::Error naming the file and, where there is
/// one, the node, op and attribute: malformed or truncated protobuf, missing
/// initializers, wrong element types, cycles, unsupported operators, output
/// names used twice, and shapes and windows outside the limits of
/// shape_check.h (every dimension at least 1, at most 2^28 elements per
/// tensor, stride and kernel at least 1, 0 <= pad < kernel, a kernel no
/// larger than its padded input). Nothing is allocated or divided by before
/// it is checked, so no input ends in a signal.
Graph import_onnx(const std::string& path);
Graph import_onnx_bytes(const std::string& bytes, const std::string& source);

/// A requantized value of a node that may leave the range where the float
/// form of the export is exact: float32 holds z + 1/4 (the tie offset) exactly
/// only for |z| < 2^22, so that form means what the project computes only
/// while every accumulator (Conv/Dense, bias included), shifted sum (Add) and
/// window sum (pools) stays below 2^22. A Conv2d / Dense whose bound reaches
/// 2^22 is written in the integer form below instead, exact for every input,
/// where that form fits int32 (integer_requant_fits()).
struct ExportLimit {
  std::string node;
  int64_t bound;         // the largest |z| over all int8 inputs (in [0, 127] after a ReLU, else [-128, 127])
  bool integer = false;  // written in the exact integer form (exact for every input)
};
/// The nodes of `g` whose bound reaches 2^22, largest first (a Conv2d /
/// Dense bound from its weights, bias and input range); `vta zoo export`
/// names those not in the integer form in a note, and refuses them with
/// --exact-only.
std::vector<ExportLimit> export_limits(const Graph& g);

/// The export's exact integer requantization of a Conv2d / Dense (used where
/// the float form is not exact): ConvInteger / MatMulInteger on uint8 views
/// (x + 128 and w + 128, zero points 128) give the int32 sum exactly, then
///   t = Add(sum, bias + offset); Clip(t, 0, hi); Div(2^shift); Sub(k);
///   DequantizeLinear and QuantizeLinear (both at the output scale 2^exp)
/// with k = relu ? 0 : 128, offset = 2^(shift-1) + k 2^shift and
/// hi = (128 + k) 2^shift - 1. t is non-negative after the clip, so ONNX's
/// truncating Div is a floor, and the result is clip((acc + bias +
/// 2^(shift-1)) >> shift, relu ? 0 : -128, 127) for every accumulator whose
/// t does not overflow int32. The importer reads it back (onnx_integer.h).
struct IntegerRequant {
  int64_t offset = 0, hi = 0, div = 1, k = 0;
  bool operator==(const IntegerRequant&) const = default;
};
/// The form of a shift and ReLU; nullopt where hi leaves int32 (shift > 23).
std::optional<IntegerRequant> integer_requant(int shift, bool relu);
/// True when n (Conv2d / Dense, symmetric) has the form and no int8 input
/// overflows t: acc_bound(n) + offset < 2^31.
bool integer_requant_fits(const Node& n);

/// Writes `g` as an ONNX model file (int8 input named "input"). integer_form
/// false: every Conv2d / Dense in the float form, also where it is not exact
/// (the export before the integer form; tests measure what it changes).
void export_onnx(const Graph& g, const std::string& path);
std::string export_onnx_bytes(const Graph& g, bool integer_form = true);

}  // namespace vta::compiler

namespace vta::compiler {

/// A float ONNX model quantized post-training: the int8 graph, and the
/// quantized form of the calibration input it was calibrated on.
struct QuantizedModel {
  Graph graph;
  Tensor input;  // the calibration input, quantized with the graph's input scale
};

/// Imports a float ONNX model (Conv, Gemm, MatMul with B [K, N] (+ an Add
/// of a bias initializer), BatchNormalization folded into the preceding Conv,
/// Relu, Add, MaxPool, AveragePool with power-of-two windows,
/// GlobalAveragePool, Flatten, Reshape to N x C or NCHW (host), Softmax over
/// N x C as the final op (host; its int8 output is the logits, see
/// softmax() in reference.h)) with an NCHW or N x C input, and quantizes it: power-of-two per-tensor
/// scales for weights and the input, int32 biases, and requantization shifts
/// calibrated on `calibration` (NCHW floats of the model input's shape;
/// empty: a seeded uniform input in [-1, 1]).
QuantizedModel import_onnx_float(const std::string& bytes, const std::string& source,
                                 const std::vector<float>& calibration);
/// True when the model's input is float and is not quantized by a
/// QuantizeLinear inside the model (a float model for import_onnx_float).
bool onnx_is_float_model(const std::string& bytes);

}  // namespace vta::compiler
