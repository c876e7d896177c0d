#pragma once
// ONNX import and export of quantized networks in the QDQ form (opset 13):
// int8 tensors between QuantizeLinear / DequantizeLinear pairs around float
// Conv, Gemm, Add, Relu, AveragePool and GlobalAveragePool; int8 MaxPool and
// Flatten directly. Every scale must be a power of two (requantization is a
// shift); zero points must be 0. Export then import gives back the same graph.
#include <string>

#include "vta/compiler/graph.h"

namespace vta::compiler {

/// Reads an ONNX model. Throws vta::Error naming the file and, where there is
/// one, the node, op and attribute: malformed or truncated protobuf, missing
/// initializers, wrong element types, cycles, unsupported operators.
Graph import_onnx(const std::string& path);
Graph import_onnx_bytes(const std::string& bytes, const std::string& source);

/// Writes `g` as an ONNX model file (int8 input named "input").
void export_onnx(const Graph& g, const std::string& path);
std::string export_onnx_bytes(const Graph& g);

}  // namespace vta::compiler
