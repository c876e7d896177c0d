#pragma once
// ONNX Runtime's float requantization, exactly, on the host and in VTA ALU
// steps.
//
// QLinearConv / QLinearMatMul (and the QDQ Conv / Gemm that ONNX Runtime
// fuses into them) requantize an int32 accumulator with a float32 scale
// S = fl(fl(x_scale * w_scale) / y_scale) (MlasRequantizeOutput):
//   z = clamp(rne(fl(float(acc) * S)), lo - zp, hi - zp) + zp
// Two roundings: to float32, then to the nearest even integer. z is a
// monotone step function of acc with at most 255 steps, so it equals
//   z = zmin + floor((M u + C) / 2^s),  u = clamp(acc, T_lo - 1, T_hi) - (T_lo - 1)
// for integers M, C, s that the host finds from the exact thresholds T_k
// (binary search over the formula) whenever a line separates them all; the
// lowering then checks every u of the clamped range against the formula, so
// a returned form is exact by construction (tests/test_requant_float.cpp).
// On VTA the product M u is one 32-bit MUL when it fits, else two words
// split at 2^12 (a scratch tile T), which is exact:
//   floor((2^12 X + Y) / 2^s) = floor((X + floor(Y / 2^12)) / 2^(s-12)).
// Where no line separates the thresholds (the float product's rounding moved
// some by one from those of the real product, ceil((k - zp - 1/2) / S): a
// tie zone of fl(acc * S) around k + 1/2), the line goes through the real
// product's thresholds and each moved one is a fix, 8 ALU steps before the
// line that move its one accumulator u to u - 1 or u + 1 (the side ORT's
// result is on) with T = -[A == image of u] (clamp, bit 0 to the sign by
// SHR -31, SHR 31); the fewest fixes that leave a line, at most 8; then the
// steps themselves are run on every accumulator of the range. Refused: a
// clamped range over 2^19 (multipliers below about 2^-11 over 255 steps:
// the low word overflows) and runs of exact ties (few-bit scales); a channel
// of a per-channel form has two more forms (three words, intercept steps:
// below).
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ops/alu_steps.h"

namespace vta::compiler {

/// ONNX Runtime's requantization of one accumulator (int8 domain: a uint8
/// output is held as value - 128, its zero point likewise).
int8_t requantize_ort(int32_t acc, float scale, int32_t zp, bool relu);

/// The exact form, checked against requantize_ort() for every accumulator of
/// the clamped range, or nullopt when no line separates the thresholds
/// within 32-bit words (or the scale is not positive and finite). `row`: a
/// channel of a per-channel form (m, c and s from ACC rows: one word whatever
/// m, s <= 31), whose steps lower_float_requant_rows() checks instead.
std::optional<FloatRequantVta> lower_float_requant(float scale, int32_t zp, bool relu, int64_t acc_bound,
                                                   bool row = false);

/// The ALU steps of the form, after the bias fold of -t_hi, ending in the
/// int8 result (no clip: the clamp of u bounds it). Two words and fixes use
/// the scratch tile T.
std::vector<AluStep> float_requant_steps(const FloatRequantVta& f);

// Per-channel multipliers (Node::fmults, ONNX Runtime's per-channel weight
// scales): each output channel has its own line and fixes, and one sequence
// of ALU steps runs them all with per-channel operands from ACC rows
// (AluStep::On::AbyRow), loaded once per tile beside the bias:
//   bias + (-t_hi)                     the bias fold, per channel
//   MIN 0                              A = u - w
//   per fix slot: ADD row; the 8 steps of a fix (float_requant_steps())
//                                      down slots, then up slots; a channel
//                                      without a fix there moves A so that
//                                      no accumulator meets it
//   ADD row; MAX 0                     A = u (the fixed u), clamped at 0
//   MUL row m; ADD row c''; SHR row s  c'' = m j0 + c + zmin 2^s
// or, where m u' + c of some channel needs more than 31 bits, the split at
// 2^12 of float_requant_steps() with rows: T = A; T = (T m_lo + c_lo) >> 12
// (T by row); A = A m_hi + c_hi'' + T; A >>= row s - 12.
// Without fixes: 6 steps and 4 rows, or 11 steps and 6 rows (two words);
// each fix slot adds 9 steps and a row.
// Three words, where m u' + c needs more than two (a clamped range of 2^20
// and more under a multiplier of about 2^-13 needs m of some 24 bits), or
// where a channel has intercept steps (below): m and c split at 2^8 and
// 2^16 with a second scratch tile U (AluStep::On::U...):
//   T = A; T = T m0 + c0 (T by row)
//   per intercept step slot: U = A; U += row -B; U >>= 31; U *= row -d; T += U
//   T >>= 8; U = A; U = U m1 + c1; T += U; T >>= 8
//   A = A m2 + c2''; A += T; A >>= row s - 16
// 17 steps and 8 rows, and 6 steps and 2 rows per intercept step slot.
// Intercept steps (FloatRequantVta::segs): a channel where no line with at
// most 8 fixes separates the thresholds (a wide range of a small multiplier
// has tens of thresholds that the float product's rounding moved) takes the
// scale's exact slope (m its 24-bit mantissa) and, within each binade of
// fl(acc * S) where that rounding shifts every threshold alike, one
// intercept; the intercept steps by d below u = B, a comparison in U.
// Refused: more than 16 steps, or words that leave 32 bits.
// Two lines (FloatRequantVta::two_lines): ONNX Runtime's float product
// moves each threshold by half an ulp of its binade, and a tie goes to the
// even level, so the thresholds into odd levels sit on one side of their
// tie zones and those into even levels on the other: within a binade each
// class is the real product's thresholds shifted alike, and over a
// channel's range each class mostly lies on a line of slope S / 2 where the
// whole set lies on none (the exact ties of a few-bit S alternate between
// the two). So out = zmin + L1(u) + L2(u), L1 counting thresholds 1, 3, 5,
// ... and L2 thresholds 2, 4, ..., each floor((m u + c) / 2^s) with one m
// and s and its own intercept:
//   MUL row m; T = A; T += row c2; T >>= row s; A += row c''; A >>= row s;
//   A += T                                       (8 steps, 5 rows)
// or, where m u + c needs more than 31 bits, m and c split at 2^L (L <= 12,
// the largest that fits every channel, s raised to L where below), each
// line's low word in T and U and the high word m_hi u added to both:
//   T = A; T *= row m_lo; U = A; U *= row m_lo; T = (T + row c_lo) >> L;
//   U = (U + row c2_lo) >> L; A *= row m_hi; T += A; U += A;
//   T = (T + row c_hi'') >> row (s - L); U = (U + row c2_hi) >> row (s - L);
//   T += U; A = T                                (20 steps, 8 rows)
// or, where a channel needs M / 2 exactly (m its 24-bit mantissa) with
// intercept steps at the binades for each line, three words split at 2^8
// and 2^16 (7-bit limbs and M / 2 to 21 or 22 bits over 2^23 accumulators),
// each line as the one-line three-word form above, the first into a third
// scratch tile V (AluStep::On::V..., AbyV), the second into A; A += V
//                                                (33 steps and 10 rows, 12
//                                                 and 4 per step slot)
// after the fix slots and A = u as above. Every channel of such a node runs
// two lines: its own pair (no fixes), or its line form (with fixes) as
// floor((m u + c) / 2^(s+1)) + floor((m u + c + 2^s) / 2^(s+1)). The
// lowering takes whichever of the channels' own forms and the two-line
// candidates has the fewest steps and passes the proof. Refused: a channel
// whose lines fit no three words (a 24-bit M over about 2^24 accumulators).
struct RowForm {
  std::vector<AluStep> steps;
  std::vector<std::vector<int32_t>> rows;  // [row][output channel]
};
/// The two-line form of one channel (FloatRequantVta::two_lines: its own
/// pair of lines in one, two or three words), or nullopt; a per-channel
/// node's channel without this form and without lower_float_requant(..., true)
/// has none.
std::optional<FloatRequantVta> lower_float_requant_pair(float scale, int32_t zp, bool relu, int64_t acc_bound);
/// The steps and rows of the channels' forms (each lowered with row = true),
/// or nullopt when a row value does not fit 32 bits.
std::optional<RowForm> float_requant_rows(const std::vector<FloatRequantVta>& channels);
/// Whether the form of the channels takes two words or more (the scratch tile T).
bool float_requant_two_words(const std::vector<FloatRequantVta>& channels);
/// The words of the form of the channels: 1, 2, or 3.
int float_requant_words(const std::vector<FloatRequantVta>& channels);
/// The scratch tiles the line part of the form takes (fixes take T too):
/// 0, 1 (T) or 2 (T and U).
int float_requant_scratch(const std::vector<FloatRequantVta>& channels);
/// The rows float_requant_rows() gives, without building them.
int float_requant_row_count(const std::vector<FloatRequantVta>& channels);
/// Sets n.frqs when every output channel of a Conv2d / Dense with fmults has
/// a form and the steps, run with each channel's rows, equal
/// requantize_ort() on every accumulator of that channel's range (its own
/// acc_bound()). Returns whether it did; otherwise the node stays the host's.
bool lower_float_requant_rows(Node& n);

}  // namespace vta::compiler
