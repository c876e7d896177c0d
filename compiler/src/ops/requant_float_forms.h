#pragma once
// The forms of one channel of requant_float.cpp that the per-channel rows
// (requant_float_rows.cpp) and their proof (requant_float_proof.cpp) build
// on: the word limits and the line searches. Private to the compiler.
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler::float_forms {

constexpr int kLowBits = 12;  // the two-word split
constexpr int64_t kImm = 32767;
constexpr int64_t kWord = int64_t{1} << 31;
constexpr int kLimbBits = 8;   // the three-word split (per-channel rows and the scratch tile U)
constexpr int kMaxSplit = 12;  // the two-word split of a two-line form: 2^L, L <= 12
// Three-word limbs of a two-line form: 8 bits, or 7 over 2^23.
constexpr int kLimbs[] = {kLimbBits, kLimbBits - 1};

// The thresholds of a channel: t[j] = the first u with out >= zmin + j,
// j = 1 .. J, u = acc - base in [0, w] (t[1] = 1).
struct Thresholds {
  int zmin = 0, J = 0;
  int64_t base = 0, w = 0;
  std::vector<int64_t> t;  // t[0] unused
};
Thresholds thresholds(float scale, int32_t zp, bool relu, int64_t acc_bound);

// The line and its fixes (requant_float.h's first form). `fixes` false: the
// line alone; `three` false: at most two words.
std::optional<FloatRequantVta> lower_line(float scale, int32_t zp, bool relu, int64_t acc_bound, bool row,
                                          bool fixes = true, bool three = true);
// Whether both lines of a two-line channel fit one word (L = 0), two split
// at 2^L (no intercept steps), or (L < 0) three split at 2^-L and 2^-2L.
bool two_lines_fit(const FloatRequantVta& f, int L);
// Whether a two-line channel fits in one, two, or (`three`) three words.
bool two_lines_fit_any(const FloatRequantVta& f, bool three = true);
// The two-line form of a channel (requant_float.h).
std::optional<FloatRequantVta> lower_two_lines(float scale, int32_t zp, bool relu, int64_t acc_bound);
// A line form as two lines: floor(y) + floor(y + 1/2) = floor(2 y) with
// y = (m u + c(u)) / 2^(s+1); its fixes and intercept steps on both.
std::optional<FloatRequantVta> as_two_lines(FloatRequantVta f);

}  // namespace vta::compiler::float_forms
