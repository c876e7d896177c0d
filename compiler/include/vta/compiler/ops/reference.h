#pragma once
// The integer reference executor: the oracle for end-to-end checks and the
// host implementation of the operators that do not run on VTA. Each
// operator's exact integer semantics is defined here.
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// out = clip((acc + round) >> shift, relu ? 0 : -2^(bits-1), 2^(bits-1) - 1),
/// round = 2^(shift-1) (0 when shift is 0), in 32-bit wrap-around arithmetic
/// as on the VTA ALU (rounding_shift(): a shift above 15 floors first).
int16_t requantize(int32_t acc, int shift, bool relu, int bits = 8);

/// Runs one node on its input tensors.
Tensor run_node(const Node& n, const std::vector<const Tensor*>& inputs);

/// The int32 accumulators (bias included) of a Conv2d or Dense node, before
/// requantization; calibration chooses shifts from them.
std::vector<int32_t> accumulators(const Node& n, const Tensor& input);

/// The same in exact 64-bit sums (no wrap-around): the calibration checks
/// that a layer with 16-bit operands stays within int32.
std::vector<int64_t> accumulators64(const Node& n, const Tensor& input);

/// The output of a Conv2d or Dense node from its accumulators().
Tensor requantize_all(const Node& n, std::vector<int32_t> acc);

/// Softmax over the channels of integer logits standing for q * 2^exp (or
/// (q - zp) * scale when scale is not 0), per row: the probabilities of a
/// Softmax node, which the integer graph passes through as logits.
std::vector<float> softmax(const Tensor& logits, const Node& producer);

/// Runs the whole graph; returns every node's output (index = node id).
std::vector<Tensor> run_graph(const Graph& g, const Tensor& input);

}  // namespace vta::compiler
