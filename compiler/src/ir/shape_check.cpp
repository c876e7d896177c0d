#include "vta/compiler/ir/shape_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "vta/isa/error.h"

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

double node_steps(const Node& n) {
  const double outputs = static_cast<double>(n.out.n) * static_cast<double>(n.out.c) * static_cast<double>(n.out.h) *
                         static_cast<double>(n.out.w);
  double reads = 1;  // inputs read per output element
  if ((n.op == Op::Conv2d || n.op == Op::Dense) && n.out.c > 0 && !n.weight.empty())
    reads = static_cast<double>(n.weight.size()) / static_cast<double>(n.out.c * std::max<int64_t>(1, n.weight_sets));
  else if (n.op == Op::MaxPool || n.op == Op::AvgPool)
    reads = static_cast<double>(n.pool) * static_cast<double>(n.pool);
  return outputs * std::max(1.0, reads);
}

void check_output_shape(const std::string& graph, const Node& n) {
  const std::string e = dims_problem({n.out.n, n.out.c, n.out.h, n.out.w});
  if (!e.empty())
    fail("graph {}: node '{}' ({}): output {}x{}x{}x{} {}", graph, n.name, op_name(n.op), n.out.n, n.out.c, n.out.h,
         n.out.w, e);
  if (const double steps = node_steps(n); steps > static_cast<double>(kMaxNodeSteps))
    fail("graph {}: node '{}' ({}): computing its {}x{}x{}x{} output takes {:.3g} steps, more than the limit of 2^38 "
         "per node{}",
         graph, n.name, op_name(n.op), n.out.n, n.out.c, n.out.h, n.out.w, steps,
         n.op == Op::MaxPool || n.op == Op::AvgPool ? fmt::format(" (a {}x{} window)", n.pool, n.pool) : "");
}

}  // namespace vta::compiler
