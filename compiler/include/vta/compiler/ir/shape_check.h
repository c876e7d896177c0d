#pragma once
// Limits on tensor shapes and pooling / convolution windows, checked before
// anything is allocated or divided by, so that a crafted model (a dimension
// of 2^62, a stride of 0, a pool larger than its input) is an error naming
// the node and the attribute, never a signal or std::bad_alloc. The ONNX
// importers, the calibrator and Graph::add (check_output_shape(), graph.h)
// use them; tests in tests/test_onnx_op_errors.cpp (ShapeLimits) and
// tests/test_onnx_crashes.cpp.
#include <cstdint>
#include <string>
#include <vector>

namespace vta::compiler {

/// The most elements one tensor (a model input, an initializer, a node's
/// output) may hold: 2^28, that is 256 Mi int8 values or 1 GiB as the float
/// and int32 values that calibration and the reference ops keep.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 28;

/// What is wrong with a tensor of dimensions `dims` (one below 1, or more
/// than kMaxTensorElements elements, overflow included), or "" when nothing.
std::string dims_problem(const std::vector<int64_t>& dims);

/// What is wrong with a square window (kernel `k`, stride `s`, pad `p` on
/// every side) over an h x w input, or "": each must be at least 1 (pad at
/// least 0), the pad smaller than the kernel, the kernel no larger than the
/// padded input. The message names the ONNX attribute (kernel_shape, strides,
/// pads).
std::string window_problem(int64_t k, int64_t s, int64_t p, int64_t h, int64_t w);

/// The most steps one node may take: 2^38, its output elements times the
/// inputs each reads (a conv's weights per output channel, a pool's window).
/// The largest layer of the zoo at its largest image (VGG-16 at 2048x2048) is
/// 2^37.2; 2^38 steps are minutes of the integer reference. A crafted model
/// needing more (a 4096x4096 max pool padded to keep its output below
/// kMaxTensorElements: 2^50 steps in a 609-byte file) is refused before it
/// runs instead of running for days (OnnxShapeLimits.PoolWhoseWorkIsAbsurd).
inline constexpr int64_t kMaxNodeSteps = int64_t{1} << 38;

}  // namespace vta::compiler
