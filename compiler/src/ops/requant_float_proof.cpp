// The proof of a per-channel form of ONNX Runtime's float requantization
// (requant_float.h, lower_float_requant_rows()): the candidate forms of a
// node's channels, each run as ALU steps on every accumulator of every
// channel against ONNX Runtime's formula, the first that passes kept.
#include "vta/compiler/ops/requant_float.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ops/requant_float_forms.h"
#include "vta/compiler/ops/acc_bound.h"

namespace vta::compiler {

using namespace float_forms;

namespace {

// The proof of a per-channel form: each channel's steps with its rows on
// every accumulator of its clamped range (and both ends of its bound)
// against ONNX Runtime's formula, a block of accumulators at a time
// (run_steps_n()). The formula is monotone in the accumulator (fl(acc * S),
// the clamp and the rounding to even all are), so within the range it is
// zmin + the thresholds passed, found on the formula by binary search: one
// comparison per accumulator instead of a float product and a rounding.
bool proven(const Node& n, const std::vector<FloatRequantVta>& ch, const std::vector<int64_t>& bounds,
            const RowForm& form) {
  std::vector<int32_t> rows(form.rows.size());
  constexpr size_t kBlock = 4096;
  std::vector<int32_t> accs(kBlock);
  std::vector<int64_t> as(kBlock);
  for (size_t k = 0; k < ch.size(); ++k) {
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = form.rows[i][k];
    const FloatRequantVta& f = ch[k];
    const float scale = n.fmults[k];
    const int64_t bound = bounds[k], base = int64_t{f.t_hi} - (f.span - f.j0);
    const int64_t lo = std::max(-bound, base - 2), hi = std::min(bound, int64_t{f.t_hi} + 2);
    const Thresholds th = thresholds(scale, n.zp, n.relu, bound);
    int level = 0;  // thresholds passed
    // -bound, bound, then lo .. hi
    const int64_t count = 2 + std::max<int64_t>(0, hi - lo + 1);
    for (int64_t at = 0; at < count; at += static_cast<int64_t>(kBlock)) {
      const size_t len = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(kBlock), count - at));
      for (size_t i = 0; i < len; ++i) {
        const int64_t j = at + static_cast<int64_t>(i);
        as[i] = j == 0 ? -bound : j == 1 ? bound : lo + j - 2;
        accs[i] = static_cast<int32_t>(static_cast<uint32_t>(as[i]) - static_cast<uint32_t>(f.t_hi));
      }
      run_steps_n(accs.data(), len, form.steps, rows);
      size_t i = 0;
      for (; i < len && at + static_cast<int64_t>(i) < 2; ++i)
        if (static_cast<int8_t>(accs[i]) != requantize_ort(static_cast<int32_t>(as[i]), scale, n.zp, n.relu))
          return false;
      while (i < len) {  // a run of one level: up to the next threshold
        while (level < th.J && th.t[static_cast<size_t>(level) + 1] + th.base <= as[i]) ++level;
        const int64_t next = level < th.J ? th.t[static_cast<size_t>(level) + 1] + th.base : hi + 1;
        const size_t end = std::min(len, i + static_cast<size_t>(next - as[i]));
        const auto want = static_cast<int8_t>(th.zmin + level);
        bool bad = false;
        for (size_t e = i; e < end; ++e) bad |= static_cast<int8_t>(accs[e]) != want;
        if (bad) return false;
        i = end;
      }
    }
  }
  return true;
}

}  // namespace

bool lower_float_requant_rows(Node& n) {
  if ((n.op != Op::Conv2d && n.op != Op::Dense) || n.fmults.size() != static_cast<size_t>(n.out.c) || n.int32_out)
    return false;
  // Candidates, the one of fewest steps that the proof accepts: each
  // channel's own form; two lines for every channel, preferring its own
  // pair; two lines preferring its line with fixes (in at most two words);
  // two lines preferring its pair in one or two words, then its line with
  // fixes.
  // A channel with a line (no fixes) takes it in each (as two lines in the
  // others). The search for fixes and intercept steps in three words runs
  // only where no pair exists at all: it is the slow part.
  constexpr size_t kCands = 4;
  std::vector<std::vector<FloatRequantVta>> cand(kCands);
  std::vector<bool> all(kCands, true);
  std::vector<int64_t> bounds;
  for (int64_t c = 0; c < n.out.c; ++c) {
    const float scale = n.fmults[static_cast<size_t>(c)];
    bounds.push_back(acc_bound(n, c));
    if (!(scale > 0) || !std::isfinite(scale) || 2 * bounds.back() >= kWord) return false;
    std::optional<FloatRequantVta> own = lower_line(scale, n.zp, n.relu, bounds.back(), true, false), pair, fixed;
    if (own) {
      pair = fixed = as_two_lines(*own);
    } else {
      pair = lower_two_lines(scale, n.zp, n.relu, bounds.back());
      {
        own = lower_line(scale, n.zp, n.relu, bounds.back(), true, true, false);
        fixed = own ? as_two_lines(*own) : std::nullopt;
        if (fixed && !two_lines_fit_any(*fixed, false)) fixed.reset();
      }
      if (!own && !pair) own = lower_float_requant(scale, n.zp, n.relu, bounds.back(), true);
      if (!pair && own) pair = as_two_lines(*own);
    }
    const bool short_pair = pair && two_lines_fit_any(*pair, false);
    const std::optional<FloatRequantVta> pick[kCands] = {own, pair, fixed ? fixed : pair,
                                                         short_pair ? pair
                                                         : fixed    ? fixed
                                                                    : pair};
    for (size_t i = 0; i < kCands; ++i) {
      all[i] = all[i] && pick[i];
      if (all[i]) cand[i].push_back(*pick[i]);
    }
    if (std::none_of(all.begin(), all.end(), [](bool b) { return b; })) return false;
  }
  std::vector<std::pair<size_t, size_t>> order;  // (steps, candidate)
  std::vector<std::optional<RowForm>> forms(kCands);
  for (size_t i = 0; i < kCands; ++i) {
    if (all[i]) forms[i] = float_requant_rows(cand[i]);
    if (forms[i]) order.emplace_back(forms[i]->steps.size(), i);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [steps, i] : order)
    if (proven(n, cand[i], bounds, *forms[i])) {
      n.frqs = std::move(cand[i]);
      return true;
    }
  return false;
}

}  // namespace vta::compiler
