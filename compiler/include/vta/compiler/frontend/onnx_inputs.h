#pragma once
// User-given tensors for an ONNX model (`vta run --onnx M --input NAME=FILE`,
// `vta run --onnx-test DIR`): .npy or .pb (TensorProto) files, operands given
// as graph inputs with values (as ONNX's node tests do) folded into the model,
// the activation turned into the graph's input tensor, and the output
// compared with an expected file. Bad files fail with one line naming them.
#include <map>
#include <string>
#include <vector>

#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// The model with every graph input named in `files` (NAME -> .npy/.pb path)
/// except `activation` made an initializer holding the file's values.
/// `activation` is set to the first graph input that is not an initializer.
/// Each file is read no further than the graph input's shape allows, when
/// the model gives it.
std::string bind_operands(const std::string& model, const std::map<std::string, std::string>& files,
                          const std::string& source, std::string& activation);

/// The non-initializer graph inputs, in order.
std::vector<std::string> onnx_graph_inputs(const std::string& model);

/// A .npy file or a .pb TensorProto of int8, uint8, int32, int64 or float32 values;
/// read no further than a file holding `expect` can be (npy.h).
NpyArray read_tensor_file(const std::string& path, const TensorExpect& expect = {});

/// `a` as the value of the graph's Input node `in` (uint8 held as value - 128;
/// a float32 array for a float input, Node::real, which may not hold NaN).
Tensor input_tensor(const NpyArray& a, const Node& in, const std::string& path);

/// The output tensor's ONNX values (uint8 outputs: held value + 128; int32;
/// float32 outputs: each float's bits, NpyArray::values).
std::vector<int64_t> output_values(const Tensor& t, const Node& producer);

/// The output as an array of its ONNX element type (int8, uint8 or int32)
/// and the dims of the model's graph output (the node's NCHW shape when the
/// model does not give them or they do not hold its elements).
NpyArray output_array(const Tensor& t, const Node& producer, const std::string& model);

struct Mismatch {
  size_t elements = 0, differing = 0, first = 0;
  int64_t largest = 0;
};
/// Element-wise comparison; a different element count fails naming `path`.
Mismatch compare_values(const std::vector<int64_t>& got, const std::vector<int64_t>& want, const std::string& path);

}  // namespace vta::compiler
