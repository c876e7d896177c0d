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

#include "onnx_read.h"
#include "vta/compiler/graph.h"

namespace vta::compiler {

/// What the importer shares with the integer operators.
struct IntegerImport {
  const OnnxReader& reader;
  Graph& graph;
  std::map<std::string, int>& tensors;       // 8-bit and int32 tensors -> node
  std::map<std::string, int64_t>& batches;   // 3-D tensors (rows of a batched MatMul, batch folded into N) -> batch
};

/// Imports `n` when it is one of the integer operators and returns true;
/// returns false for any other operator. Throws vta::Error naming the node,
/// the op and the input or attribute that is not supported.
bool import_integer_op(const onnx::NodeProto& n, IntegerImport& ctx);

}  // namespace vta::compiler
