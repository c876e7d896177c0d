#pragma once
// NumPy .npy files (format 1.0/2.0, C order) of int8, uint8, int32 and int64
// tensors: how tensors travel between vta and outside runtimes (the ONNX
// Runtime oracle of tests/onnx_oracle). Bad files fail with one line naming
// the file.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

enum class NpyType { Int8, Uint8, Int32, Int64 };

struct NpyArray {
  NpyType type = NpyType::Int8;
  std::vector<int64_t> dims;
  std::vector<int64_t> values;  // row-major, one per element
};

NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const NpyArray& a);

/// An int8 tensor (or an int32 one: Tensor::wide) as .npy with the given dims
/// (their product must be the element count).
NpyArray npy_of(const Tensor& t, const std::vector<int64_t>& dims);

}  // namespace vta::compiler
