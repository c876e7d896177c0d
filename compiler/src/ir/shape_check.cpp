#include "vta/compiler/ir/shape_check.h"

#include <fmt/format.h>

#include <algorithm>

namespace vta::compiler {

std::string dims_problem(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) return fmt::format("dimension {} is {} (each must be at least 1)", i, dims[i]);
    // count * dims[i] > limit, asked without overflowing
    if (dims[i] > kMaxTensorElements / count)
      return fmt::format("has more than {} elements (dimension {} is {}), the limit of one tensor", kMaxTensorElements,
                         i, dims[i]);
    count *= dims[i];
  }
  return "";
}

std::string window_problem(int64_t k, int64_t s, int64_t p, int64_t h, int64_t w) {
  if (k < 1) return fmt::format("attribute kernel_shape is {} (it must be at least 1)", k);
  if (s < 1) return fmt::format("attribute strides is {} (it must be at least 1)", s);
  if (p < 0) return fmt::format("attribute pads is {} (it must be 0 or more)", p);
  if (k > kMaxTensorElements)
    return fmt::format("attribute kernel_shape is {} (the limit is {})", k, kMaxTensorElements);
  // A stride past the input leaves one window, as ONNX says; past the limit
  // of a tensor it would overflow the code generator's address arithmetic.
  if (s > kMaxTensorElements) return fmt::format("attribute strides is {} (the limit is {})", s, kMaxTensorElements);
  if (p >= k) return fmt::format("attribute pads is {}; it must be smaller than the kernel ({})", p, k);
  if (k > h + 2 * p || k > w + 2 * p)
    return fmt::format("attribute kernel_shape is {}, larger than the padded input ({}x{})", k, h + 2 * p, w + 2 * p);
  return "";
}

}  // namespace vta::compiler
