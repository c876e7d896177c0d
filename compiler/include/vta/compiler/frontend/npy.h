#pragma once
// NumPy .npy files (format 1.0/2.0, C order) of int8, uint8, int32, int64
// and float32 tensors: how tensors travel between vta and outside runtimes (the ONNX
// Runtime oracle of tests/onnx_oracle). Bad files fail with one line naming
// the file.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

enum class NpyType { Int8, Uint8, Int32, Int64, Float32 };

struct NpyArray {
  NpyType type = NpyType::Int8;
  std::vector<int64_t> dims;
  // Row-major, one per element; Float32: each float's IEEE-754 bits (0 ..
  // 2^32 - 1), so that comparing values compares floats bit for bit.
  std::vector<int64_t> values;
};

/// The tensor a file must hold, when the caller knows it (a model's input or
/// output): its name and element count. The read then stops past the longest
/// file of that many elements could be, so that /dev/zero or a huge file is
/// refused at once with "PATH: longer than tensor 'NAME' can be: its N
/// elements take at most M bytes as .npy", never read up to kDataReadLimit.
struct TensorExpect {
  std::string name;
  int64_t elements = -1;  // unknown: bounded by kDataReadLimit alone
};
/// The byte limit of a file holding `e` (.npy: a 64 KiB header and 8-byte
/// elements, the widest type read; .pb: 64 KiB besides 11 bytes an element,
/// a tag and the longest varint), or kDataReadLimit when `e` is unknown;
/// `over_limit` receives the message's reason.
uint64_t tensor_read_limit(const TensorExpect& e, bool pb, std::string& over_limit);

NpyArray read_npy(const std::string& path, const TensorExpect& expect = {});
void write_npy(const std::string& path, const NpyArray& a);

/// The floats of a Float32 array, and the bits of floats as values.
std::vector<float> npy_floats(const NpyArray& a);
std::vector<int64_t> float_bits(const std::vector<float>& v);

/// An int8 tensor (or an int32 one: Tensor::wide) as .npy with the given dims
/// (their product must be the element count).
NpyArray npy_of(const Tensor& t, const std::vector<int64_t>& dims);

}  // namespace vta::compiler
