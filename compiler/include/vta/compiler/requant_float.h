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
// the low word overflows) and runs of exact ties (few-bit scales).
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/compiler/requant.h"

namespace vta::compiler {

/// ONNX Runtime's requantization of one accumulator (int8 domain: a uint8
/// output is held as value - 128, its zero point likewise).
int8_t requantize_ort(int32_t acc, float scale, int32_t zp, bool relu);

/// The exact form, checked against requantize_ort() for every accumulator of
/// the clamped range, or nullopt when no line separates the thresholds
/// within 32-bit words (or the scale is not positive and finite).
std::optional<FloatRequantVta> lower_float_requant(float scale, int32_t zp, bool relu, int64_t acc_bound);

/// The ALU steps of the form, after the bias fold of -t_hi, ending in the
/// int8 result (no clip: the clamp of u bounds it). Two words and fixes use
/// the scratch tile T.
std::vector<AluStep> float_requant_steps(const FloatRequantVta& f);

}  // namespace vta::compiler
