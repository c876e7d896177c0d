#pragma once
// ONNX import and export of quantized networks in the QDQ form (opset 13):
// int8 tensors between QuantizeLinear / DequantizeLinear pairs around float
// Conv, Gemm, Add, Relu, AveragePool and GlobalAveragePool; int8 MaxPool and
// Flatten directly. Every scale must be a power of two (requantization is a
// shift); zero points must be 0. Export then import gives back the same graph.
//
// The integer operators QLinearConv, ConvInteger, QLinearMatMul and
// MatMulInteger take int8 or uint8 tensors with any scales and per-tensor
// zero points (uint8 is held as int8 value - 128: Node::uint8), and give int8
// / uint8 or int32 outputs (Node::int32_out). Their nodes run on VTA when
// they reduce to the symmetric shift form, on the host otherwise
// (onnx_integer.h). 3-D inputs (batched MatMul rows) fold their batch into N.
#include <string>

#include "vta/compiler/graph.h"

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

/// Writes `g` as an ONNX model file (int8 input named "input").
void export_onnx(const Graph& g, const std::string& path);
std::string export_onnx_bytes(const Graph& g);

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
