#pragma once
// The integer ONNX operators: QLinearConv, ConvInteger, QLinearMatMul and
// MatMulInteger, imported into Conv2d / Dense nodes with zero points, a
// requantization multiplier or an int32 output (graph.h). A node whose
// zero points are 0, whose tensors are int8 and whose requantization is a
// power of two becomes the plain shift form, which VTA runs; the rest runs
// on the host. Tested by tests/test_onnx_integer.cpp and the libonnx-testdata
// cases in tests/test_onnx_testdata.cpp.
#include <map>
#include <string>
#include <vector>

#include "frontend/onnx_read.h"
#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// A ConvInteger / MatMulInteger sum on its way through the export's integer
/// requantization (integer_requant() in onnx.h): the constants seen so far.
struct Int32Chain {
  int node = -1;              // the ConvInteger / MatMulInteger node (int32_out until the chain ends)
  int step = 0;               // the ops seen: 1 Add, 2 Clip, 3 Div, 4 Sub, 5 DequantizeLinear
  std::vector<int64_t> bias;  // bias + offset
  int64_t hi = 0, div = 0, k = 0;
  int exp = 0;
};

/// What the importer shares with the integer operators.
struct IntegerImport {
  const OnnxReader& reader;
  Graph& graph;
  std::map<std::string, int>& tensors;      // 8-bit and int32 tensors -> node
  std::map<std::string, int64_t>& batches;  // 3-D tensors (rows of a batched MatMul, batch folded into N) -> batch
  // uint8 views of int8 tensors (QuantizeLinear of a DequantizeLinear at the
  // same scale, zero point 128: the same values held as int8) -> node;
  // inputs of ConvInteger / MatMulInteger only.
  std::map<std::string, int>& views;
  std::map<std::string, Int32Chain>& chains;  // int32 tensors of an integer requantization
  const std::map<std::string, int>& uses;     // tensor -> nodes that read it, plus 1 for a graph output
};

/// Imports `n` when it is one of the integer operators and returns true;
/// returns false for any other operator. Throws vta::Error naming the node,
/// the op and the input or attribute that is not supported.
bool import_integer_op(const onnx::NodeProto& n, IntegerImport& ctx);

/// Imports `n` when it is a step of the export's integer requantization of a
/// ConvInteger / MatMulInteger sum (Add of an int32 initializer, Clip, Div,
/// Sub, DequantizeLinear, QuantizeLinear; integer_requant() in onnx.h) and
/// returns true; at QuantizeLinear the sum's node becomes the plain shift
/// form (bias, shift, ReLU, exp), which VTA runs. Throws vta::Error naming
/// the node where a constant, a type or the order is not that form's, or
/// where the sum has another use.
bool import_integer_requant(const onnx::NodeProto& n, IntegerImport& ctx);

}  // namespace vta::compiler
