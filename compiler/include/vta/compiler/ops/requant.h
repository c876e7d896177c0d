#pragma once
// Requantization in the VTA ALU's 32-bit steps.
//
// A multiplier requantization M = mult * 2^-shift (31-bit mult, the form of
// the ONNX integer operators) runs on VTA as
//   v   = (acc + 2^(pre-1)) >> pre          ADD, SHR (when pre > 0)
//   v   = v * m                             MUL (when m > 1; needs isa.alu_mul)
//   out = clip(((v + 2^(s-1)) >> s) + zp)   ADD, SHR, ADD zp, MAX, MIN
// with every immediate within the ALU's 16-bit signed field and no 32-bit
// overflow for any accumulator the node's weights and biases can produce.
// A rounding shift by more than 15 (its constant would not be an immediate)
// runs as a plain SHR by s - 15 and then the rounding shift by 15, which
// gives the same result. Results stay within one LSB of the 64-bit form.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ops/alu_steps.h"

namespace vta::compiler {

/// The most precise VTA form of M = mult * 2^-shift for accumulators with
/// |acc| <= acc_bound, or nullopt when none fits (M too large, or so small
/// that m would be 0).
std::optional<VtaRequant> lower_requant(int64_t mult, int shift, int64_t acc_bound);

/// Sets n.vta_rq when n is a requantizing Conv2d / Dense without input or
/// weight zero points whose multiplier form (mult != 1 or an output zero
/// point) has a VTA form. Returns whether it did.
bool lower_for_vta(Node& n);

/// (v + 2^(s-1)) >> s as the VTA ALU computes it: ADD and SHR, with a plain
/// SHR by s - 15 first when s > 15 (the same result without overflow).
int32_t rounding_shift(int32_t v, int s);

/// clip((v + 2^(s-1)) >> s + zp) of the VTA form, in 32-bit wrap-around
/// arithmetic exactly as the ALU computes it.
int8_t requantize_vta(int32_t acc, const VtaRequant& r, int32_t zp, bool relu);

/// The requantization epilogue of `n` (the shift form, or the VTA form with
/// its zero point), ending with the clip MAX, MIN: what codegen emits. With
/// n.round_even the final shift by s (1..15) rounds half to even:
///   T = A (MAX, MIN by A); T = ((T - 2^s) << (31 - s)) >> 31, i.e. b - 1
///   where b is bit s of A, the kept LSB; A = (A + 2^(s-1) + T) >> s,
/// which is floor((acc + 2^(s-1) - 1 + b) / 2^s): a tie goes up only to an
/// even result. Of a Conv2d / Dense, a first step that adds an immediate to
/// A (a rounding constant) is left out: it is added to every bias instead
/// (bias_fold()), which gives the same 32-bit wrap-around sums one ALU pass
/// sooner. Throws vta::Error when `n` has no such VTA form
/// (vta_requant_exact()).
std::vector<AluStep> requant_steps(const Node& n);
/// The immediate a Conv2d / Dense adds to the bias of output channel
/// `channel` in place of its first requantization step, or 0.
int32_t bias_fold(const Node& n, int64_t channel = 0);
/// The per-channel operands of the AbyRow steps of `n`, one row of out.c
/// int32 values each, loaded into ACC with the bias: the negated shifts of
/// Node::lshift, or the rows of Node::frqs (float_requant_rows()); none
/// without either.
std::vector<std::vector<int32_t>> requant_rows(const Node& n);
/// How many rows requant_rows() gives (without building them).
int requant_row_count(const Node& n);
/// Whether the requantization of `n` has an exact VTA form: half up, or
/// half to even by a single shift of at most 15 (no pre-shift, no MUL).
bool vta_requant_exact(const Node& n);
/// Whether the epilogue of `n` needs the scratch tile T.
bool needs_scratch(const Node& n);
/// Whether it needs the second scratch tile U too (AluStep::On::U...).
bool needs_scratch2(const Node& n);
/// Whether it needs the third scratch tile V too (AluStep::On::V..., AbyV).
bool needs_scratch3(const Node& n);
/// ALU instructions in the requantization epilogue of `n`.
int requant_imm_ops(const Node& n);
}  // namespace vta::compiler
