// The per-channel row forms of ONNX Runtime's float requantization
// (requant_float.h): the fix and intercept step slots, the words, and one
// sequence of ALU steps with per-channel rows for every channel's form.
#include "vta/compiler/ops/requant_float.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ops/requant_float_forms.h"

namespace vta::compiler {

using namespace float_forms;

namespace {

// A channel's fixes of one kind (down: u - 1, stored negated), farthest first.
std::vector<int32_t> fixes_of(const FloatRequantVta& f, bool down) {
  std::vector<int32_t> out;
  for (int32_t fx : f.fixes)
    if ((fx < 0) == down) out.push_back(std::abs(fx));
  std::sort(out.begin(), out.end(), std::greater<>());
  return out;
}

// The fix slots of a per-channel form: down slots, then up slots.
std::pair<size_t, size_t> fix_slots(const std::vector<FloatRequantVta>& ch) {
  size_t downs = 0, ups = 0;
  for (const FloatRequantVta& f : ch) {
    downs = std::max(downs, fixes_of(f, true).size());
    ups = std::max(ups, fixes_of(f, false).size());
  }
  return {downs, ups};
}

}  // namespace

namespace {

// The words of one channel's row form: 1, 2 (split at 2^12) or 3 (split at
// 2^8 and 2^16, and every channel with intercept steps).
int words_of(const FloatRequantVta& f) {
  if (!f.segs.empty()) return 3;
  const int64_t top = f.span;  // u' = u + j0 <= span
  if (f.m * top + f.c < kWord) return 1;
  const int64_t m_hi = f.m >> kLowBits, m_lo = f.m & ((1 << kLowBits) - 1);
  const int64_t c_hi = f.c >> kLowBits, c_lo = f.c & ((1 << kLowBits) - 1);
  const bool two = m_lo * top + c_lo < kWord && m_hi * top + c_hi + ((m_lo * top + c_lo) >> kLowBits) < kWord &&
                   f.s >= kLowBits && f.s - kLowBits <= 31;
  return two ? 2 : 3;
}

size_t seg_slots(const std::vector<FloatRequantVta>& ch) {
  size_t n = 0;
  for (const FloatRequantVta& f : ch) n = std::max(n, f.segs.size());
  return n;
}

}  // namespace

namespace {

bool any_two_lines(const std::vector<FloatRequantVta>& ch) {
  return std::any_of(ch.begin(), ch.end(), [](const FloatRequantVta& f) { return f.two_lines; });
}

constexpr int kNoSplit = -100;

// The split of a two-line form: 0 where every channel's lines fit one word,
// else the largest L <= 12 where they fit split at 2^L, else -lb where they
// fit three words of lb-bit limbs (8, else 7); kNoSplit where none does.
int two_lines_split(const std::vector<FloatRequantVta>& ch) {
  const auto all = [&](int L) {
    return std::all_of(ch.begin(), ch.end(), [&](const FloatRequantVta& f) { return two_lines_fit(f, L); });
  };
  if (all(0)) return 0;
  for (int L = kMaxSplit; L >= 1; --L)
    if (all(L)) return L;
  for (int lb : kLimbs)
    if (all(-lb)) return -lb;
  return kNoSplit;
}

// The intercept step slots of a three-word two-line form (both lines).
size_t two_lines_seg_slots(const std::vector<FloatRequantVta>& ch) {
  size_t n = 0;
  for (const FloatRequantVta& f : ch) n = std::max({n, f.segs.size(), f.segs2.size()});
  return n;
}

}  // namespace

int float_requant_words(const std::vector<FloatRequantVta>& ch) {
  if (any_two_lines(ch)) {
    const int split = two_lines_split(ch);
    return split == 0 ? 1 : split > 0 ? 2 : 3;
  }
  int w = 1;
  for (const FloatRequantVta& f : ch) w = std::max(w, words_of(f));
  return w;
}

int float_requant_scratch(const std::vector<FloatRequantVta>& ch) {
  const int words = float_requant_words(ch);
  return any_two_lines(ch) ? words : words - 1;
}

int float_requant_row_count(const std::vector<FloatRequantVta>& ch) {
  const auto [downs, ups] = fix_slots(ch);
  const int words = float_requant_words(ch);
  if (any_two_lines(ch))
    return static_cast<int>(downs + ups) + 1 +
           (words == 1   ? 4
            : words == 2 ? 7
                         : 4 + 2 * (3 + 2 * static_cast<int>(two_lines_seg_slots(ch))));
  return static_cast<int>(downs + ups) + (words == 1 ? 4 : words == 2 ? 6 : 8 + 2 * static_cast<int>(seg_slots(ch)));
}

bool float_requant_two_words(const std::vector<FloatRequantVta>& ch) { return float_requant_words(ch) >= 2; }

std::optional<RowForm> float_requant_rows(const std::vector<FloatRequantVta>& ch) {
  using isa::AluOp;
  using On = AluStep::On;
  const auto [downs, ups] = fix_slots(ch);
  const size_t slots = downs + ups, segn = seg_slots(ch);
  const int words = float_requant_words(ch);
  const bool lines2 = any_two_lines(ch);
  const int split = lines2 ? two_lines_split(ch) : 0;
  if (split == kNoSplit) return std::nullopt;
  const int lb = -split;  // the limbs of three words
  const size_t segn2 = lines2 ? two_lines_seg_slots(ch) : 0;
  RowForm r;
  r.rows.assign(static_cast<size_t>(float_requant_row_count(ch)), std::vector<int32_t>(ch.size(), 0));
  const auto fits32 = [](int64_t v) {
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  };
  for (size_t k = 0; k < ch.size(); ++k) {
    const FloatRequantVta& f = ch[k];
    if (!f.row) return std::nullopt;
    const int64_t w = f.span - f.j0;
    // A = u - w + o after the bias fold and MIN 0; each slot moves A so that
    // its fix's u is at 0, or (no fix of the channel in the slot) u = w + 1,
    // which no u of the range reaches; an up slot then lowers every other u
    // by one (o - 1).
    int64_t o = 0;
    const std::vector<int32_t> dn = fixes_of(f, true), up = fixes_of(f, false);
    for (size_t i = 0; i < slots; ++i) {
      const bool down = i < downs;
      const std::vector<int32_t>& list = down ? dn : up;
      const size_t at = down ? i : i - downs;
      const int64_t p = at < list.size() ? list[at] : w + 1;
      r.rows[i][k] = static_cast<int32_t>(w - p - o);
      o = w - p - (down ? 0 : 1);
    }
    r.rows[slots][k] = static_cast<int32_t>(w - o);  // A = u
    // out = zmin + floor((m (u + j0) + c) / 2^s) = floor((m u + c') / 2^s + zmin)
    const int64_t c1 = f.m * f.j0 + f.c;
    std::vector<int64_t> v;
    if (lines2) {  // both lines on one product: m, c + zmin 2^s, c2, s; or split at 2^L
      if (!f.two_lines) return std::nullopt;
      if (split == 0) {
        v = {f.m, c1 + int64_t{f.zmin} * (int64_t{1} << f.s), f.c2, f.s};
      } else if (split < 0) {  // three words: m0, m1, m2, s - 2 lb; each line c0, its steps, c1, c2
        const int up_s = std::max(0, 2 * lb - f.s), s = f.s + up_s;
        const int64_t m = f.m << up_s, lim = (1 << lb) - 1;
        v = {m & lim, (m >> lb) & lim, m >> 2 * lb, s - 2 * lb};
        if (s - 2 * lb > 31) return std::nullopt;
        const auto line = [&](int64_t c0, const std::vector<int32_t>& at, const std::vector<int64_t>& dc, int zmin) {
          const int64_t c = c0 * (int64_t{1} << up_s);
          v.push_back(c & lim);
          for (size_t i = 0; i < segn2; ++i) {
            const bool has = i < at.size();
            v.push_back(has ? -int64_t{at[i]} : 0);                // U = u - B: -1 below B
            v.push_back(has ? -dc[i] * (int64_t{1} << up_s) : 0);  // times -d: + d below B
          }
          v.push_back((c >> lb) & lim);
          v.push_back((c >> 2 * lb) + int64_t{zmin} * (int64_t{1} << (s - 2 * lb)));
        };
        line(c1, f.segs, f.seg_dc, f.zmin);
        line(f.c2, f.segs2, f.seg_dc2, 0);
      } else {
        const int up_s = std::max(0, split - f.s), s = f.s + up_s;
        const int64_t m = f.m << up_s, c = c1 * (int64_t{1} << up_s), cc = f.c2 * (int64_t{1} << up_s);
        const int64_t lim = (int64_t{1} << split) - 1;
        v = {m & lim,     c & lim,  cc & lim, m >> split, (c >> split) + int64_t{f.zmin} * (int64_t{1} << (s - split)),
             cc >> split, s - split};
        if (s - split > 31) return std::nullopt;
      }
    } else if (words == 1) {
      v = {f.m, c1 + int64_t{f.zmin} * (int64_t{1} << f.s), f.s};  // MUL, ADD, SHR
      if (f.s > 31) return std::nullopt;
    } else if (words == 2) {  // the split at 2^12 (float_requant_steps()), s raised to 12 where below
      const int up_s = std::max(0, kLowBits - f.s), s = f.s + up_s;
      const int64_t m = f.m << up_s, c = c1 << up_s;
      v = {m & 4095, c & 4095, m >> kLowBits, (c >> kLowBits) + int64_t{f.zmin} * (int64_t{1} << (s - kLowBits)),
           s - kLowBits};
      if (s - kLowBits > 31) return std::nullopt;
    } else {  // the split at 2^8 and 2^16, s raised to 16 where below; the intercept steps on the low word
      const int up_s = std::max(0, 2 * kLimbBits - f.s), s = f.s + up_s;
      const int64_t m = f.m << up_s, c = c1 * (int64_t{1} << up_s), lim = (1 << kLimbBits) - 1;
      v = {m & lim, c & lim};
      for (size_t i = 0; i < segn; ++i) {
        const bool has = i < f.segs.size();
        v.push_back(has ? -int64_t{f.segs[i]} : 0);                  // U = u - B: -1 below B
        v.push_back(has ? -f.seg_dc[i] * (int64_t{1} << up_s) : 0);  // times -d: + d below B
      }
      const int64_t rest[] = {(m >> kLimbBits) & lim, (c >> kLimbBits) & lim, m >> 2 * kLimbBits,
                              (c >> 2 * kLimbBits) + int64_t{f.zmin} * (int64_t{1} << (s - 2 * kLimbBits)),
                              s - 2 * kLimbBits};
      v.insert(v.end(), std::begin(rest), std::end(rest));
      if (s - 2 * kLimbBits > 31) return std::nullopt;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!fits32(v[i])) return std::nullopt;
      r.rows[slots + 1 + i][k] = static_cast<int32_t>(v[i]);
    }
  }
  r.steps.push_back({AluOp::MIN, 0});
  for (size_t i = 0; i < slots; ++i) {
    const bool down = i < downs;  // as float_requant_steps(): T = -[A == 0] (down) or -[A != 0] (up)
    r.steps.push_back({AluOp::ADD, 0, On::AbyRow, static_cast<int>(i)});
    r.steps.push_back({AluOp::MAX, 0, On::TbyA});
    r.steps.push_back({AluOp::MIN, 0, On::TbyA});
    r.steps.push_back({AluOp::ADD, down ? 1 : 2, On::T});
    r.steps.push_back({AluOp::MAX, down ? 0 : 1, On::T});
    r.steps.push_back({AluOp::MIN, down ? 2 : 3, On::T});
    r.steps.push_back({AluOp::SHR, -31, On::T});
    r.steps.push_back({AluOp::SHR, 31, On::T});
    r.steps.push_back({AluOp::ADD, 0, On::AbyT});
  }
  // T = A (U = A, V = A): MAX and MIN of the tile with A.
  const auto copy_a = [&](On by_a) {
    r.steps.push_back({AluOp::MAX, 0, by_a});
    r.steps.push_back({AluOp::MIN, 0, by_a});
  };
  // `n` intercept steps, rows from `row` (-B, -d each): T += [u < B] d, with
  // U = [u < B] (U = A, U += -B, U >>= 31 is -1 below B, else 0; U *= -d).
  // Returns the row after them.
  const auto step_slots = [&](int row, size_t n) {
    for (size_t i = 0; i < n; ++i, row += 2) {
      copy_a(On::UbyA);
      r.steps.push_back({AluOp::ADD, 0, On::UbyRow, row});
      r.steps.push_back({AluOp::SHR, 31, On::U});
      r.steps.push_back({AluOp::MUL, 0, On::UbyRow, row + 1});
      r.steps.push_back({AluOp::ADD, 0, On::TbyU});
    }
    return row;
  };
  const int base = static_cast<int>(slots);
  r.steps.push_back({AluOp::ADD, 0, On::AbyRow, base});
  r.steps.push_back({AluOp::MAX, 0});
  if (lines2 && split == 0) {  // A = m u; T = (A + c2) >> s; A = (A + c'') >> s + T
    r.steps.push_back({AluOp::MUL, 0, On::AbyRow, base + 1});
    copy_a(On::TbyA);  // T = A
    r.steps.push_back({AluOp::ADD, 0, On::TbyRow, base + 3});
    r.steps.push_back({AluOp::SHR, 0, On::TbyRow, base + 4});
    r.steps.push_back({AluOp::ADD, 0, On::AbyRow, base + 2});
    r.steps.push_back({AluOp::SHR, 0, On::AbyRow, base + 4});
    r.steps.push_back({AluOp::ADD, 0, On::AbyT});
  } else if (lines2 && split < 0) {  // three words each: the first line into V, the second into A; A += V
    const int m0 = base + 1, m1 = base + 2, m2 = base + 3, sh = base + 4;
    const auto line = [&](int c0, bool into_v) {  // c0: the line's first row (c0, steps, c1, c2)
      copy_a(On::TbyA);                           // T = A
      r.steps.push_back({AluOp::MUL, 0, On::TbyRow, m0});
      r.steps.push_back({AluOp::ADD, 0, On::TbyRow, c0});  // T = m0 u + c0
      const int row = step_slots(c0 + 1, segn2);
      r.steps.push_back({AluOp::SHR, lb, On::T});
      copy_a(On::UbyA);  // U = A
      r.steps.push_back({AluOp::MUL, 0, On::UbyRow, m1});
      r.steps.push_back({AluOp::ADD, 0, On::UbyRow, row});
      r.steps.push_back({AluOp::ADD, 0, On::TbyU});
      r.steps.push_back({AluOp::SHR, lb, On::T});  // T = X1
      if (into_v) {
        copy_a(On::VbyA);  // V = A
        r.steps.push_back({AluOp::MUL, 0, On::VbyRow, m2});
        r.steps.push_back({AluOp::ADD, 0, On::VbyRow, row + 1});
        r.steps.push_back({AluOp::ADD, 0, On::VbyT});
        r.steps.push_back({AluOp::SHR, 0, On::VbyRow, sh});
      } else {
        r.steps.push_back({AluOp::MUL, 0, On::AbyRow, m2});
        r.steps.push_back({AluOp::ADD, 0, On::AbyRow, row + 1});
        r.steps.push_back({AluOp::ADD, 0, On::AbyT});
        r.steps.push_back({AluOp::SHR, 0, On::AbyRow, sh});
      }
    };
    const int per_line = 3 + 2 * static_cast<int>(segn2);
    line(base + 5, true);
    line(base + 5 + per_line, false);
    r.steps.push_back({AluOp::ADD, 0, On::AbyV});
  } else if (lines2) {  // each line's low word in T and U, the shared high word m_hi u added to both
    copy_a(On::TbyA);   // T = A
    r.steps.push_back({AluOp::MUL, 0, On::TbyRow, base + 1});
    copy_a(On::UbyA);  // U = A
    r.steps.push_back({AluOp::MUL, 0, On::UbyRow, base + 1});
    r.steps.push_back({AluOp::ADD, 0, On::TbyRow, base + 2});
    r.steps.push_back({AluOp::SHR, split, On::T});
    r.steps.push_back({AluOp::ADD, 0, On::UbyRow, base + 3});
    r.steps.push_back({AluOp::SHR, split, On::U});
    r.steps.push_back({AluOp::MUL, 0, On::AbyRow, base + 4});
    r.steps.push_back({AluOp::ADD, 0, On::TbyA});
    r.steps.push_back({AluOp::ADD, 0, On::UbyA});
    r.steps.push_back({AluOp::ADD, 0, On::TbyRow, base + 5});
    r.steps.push_back({AluOp::SHR, 0, On::TbyRow, base + 7});
    r.steps.push_back({AluOp::ADD, 0, On::UbyRow, base + 6});
    r.steps.push_back({AluOp::SHR, 0, On::UbyRow, base + 7});
    r.steps.push_back({AluOp::ADD, 0, On::TbyU});
    r.steps.push_back({AluOp::MAX, 0, On::AbyT});
    r.steps.push_back({AluOp::MIN, 0, On::AbyT});  // A = T
  } else if (words == 1) {
    r.steps.push_back({AluOp::MUL, 0, On::AbyRow, base + 1});
    r.steps.push_back({AluOp::ADD, 0, On::AbyRow, base + 2});
    r.steps.push_back({AluOp::SHR, 0, On::AbyRow, base + 3});
  } else if (words == 2) {
    copy_a(On::TbyA);  // T = A
    r.steps.push_back({AluOp::MUL, 0, On::TbyRow, base + 1});
    r.steps.push_back({AluOp::ADD, 0, On::TbyRow, base + 2});
    r.steps.push_back({AluOp::SHR, kLowBits, On::T});
    r.steps.push_back({AluOp::MUL, 0, On::AbyRow, base + 3});
    r.steps.push_back({AluOp::ADD, 0, On::AbyRow, base + 4});
    r.steps.push_back({AluOp::ADD, 0, On::AbyT});
    r.steps.push_back({AluOp::SHR, 0, On::AbyRow, base + 5});
  } else {
    copy_a(On::TbyA);  // T = A
    r.steps.push_back({AluOp::MUL, 0, On::TbyRow, base + 1});
    r.steps.push_back({AluOp::ADD, 0, On::TbyRow, base + 2});  // T = m0 u + c0
    const int row = step_slots(base + 3, segn);
    r.steps.push_back({AluOp::SHR, kLimbBits, On::T});
    copy_a(On::UbyA);  // U = A
    r.steps.push_back({AluOp::MUL, 0, On::UbyRow, row});
    r.steps.push_back({AluOp::ADD, 0, On::UbyRow, row + 1});
    r.steps.push_back({AluOp::ADD, 0, On::TbyU});
    r.steps.push_back({AluOp::SHR, kLimbBits, On::T});  // T = X1
    r.steps.push_back({AluOp::MUL, 0, On::AbyRow, row + 2});
    r.steps.push_back({AluOp::ADD, 0, On::AbyRow, row + 3});
    r.steps.push_back({AluOp::ADD, 0, On::AbyT});
    r.steps.push_back({AluOp::SHR, 0, On::AbyRow, row + 4});
  }
  return r;
}

}  // namespace vta::compiler
