#pragma once
// The bias of a conv/dense layer accumulated by the GEMM core instead of an
// ALU ADD: one GEMM over a constant INP element, whose lanes are 1, -128,
// -128, ..., and a WGT row per output channel whose lanes give the channel's
// bias b = r + (-128) (w_1 + ... + w_{block_in - 1}), 0 <= r < 128. The
// epilogue then starts at the shift: one cycle per output element (the GEMM's
// uop) against the ALU ADD's ii_vector, and no bias row in ACC.
#include <cstdint>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// The int32 each output channel adds to its accumulator: the bias plus
/// bias_fold(), wrapping as the ALU's ADD does.
int32_t packed_bias(const Node& n, int64_t channel);
/// packed_bias() of every output channel (the fold's steps built once, not per channel).
std::vector<int32_t> packed_biases(const Node& n);
/// Whether every packed bias of `n` has the lane form above on config `c`
/// (at least two INP lanes; |b| about 128 * 128 * (block_in - 1) at most;
/// 8-bit INP and WGT elements).
bool bias_by_gemm(const Node& n, const Config& c);
/// The fewest INP lanes (at least 2) whose lane form holds every packed
/// bias of `n` (0: no channels): bias_by_gemm() is gemm.block_in >= it.
int64_t bias_lanes(const Node& n);
/// The layer's bias weights: `blocks` WGT elements (block_out rows of
/// block_in lanes each), element e row r for output channel e block_out + r.
std::vector<uint8_t> pack_bias_weights(const Node& n, int64_t blocks, const Config& c);
/// The constant INP element (every batch row 1, -128, -128, ...).
std::vector<uint8_t> bias_input(const Config& c);

/// A residual Add fused into conv `conv` (fused_add()) whose other operand
/// the GEMM core adds: loaded by the load module as an INP tile (one more
/// step of the conv, after its epilogue's clip), times a WGT element 2^shift
/// times the identity. Needs block_in = block_out (an OUT channel block is
/// one INP element) and the operand's shift <= dtype.wgt_bits - 2 (2^shift a weight). It
/// replaces the operand's ACC_8BIT load in the compute module, its shift
/// and the ALU ADD (ii_vector) with one GEMM cycle per output element, and
/// the operand's ACC tile.
bool residual_by_gemm(const Node& add, const Config& c);
/// The shift of the conv's output and of the other operand in Add `add` (Node::shift_a applies to inputs[0]).
int conv_shift(const Node& add, int conv);
int operand_shift(const Node& add, int conv);
/// The shift of the operand that is not fused (fused_into() fuses the later input of the two).
int fused_operand_shift(const Node& add);
/// One WGT element: 2^shift on the diagonal.
std::vector<uint8_t> scaled_identity(int shift, const Config& c);

}  // namespace vta::compiler
