// ONNX Runtime's float requantization, exactly (requant_float.h): the forms
// of one channel (the line and its fixes, the line with intercept steps, two
// lines), the entry points that lower a scale to one of them, and the ALU
// steps of a per-tensor form. The per-channel rows are requant_float_rows.cpp,
// their proof requant_float_proof.cpp.
#include "vta/compiler/ops/requant_float.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ops/requant_float_forms.h"

namespace vta::compiler {

using namespace float_forms;

int8_t requantize_ort(int32_t acc, float scale, int32_t zp, bool relu) {
  const int32_t lo_q = relu ? std::max(zp, -128) : -128;
  const float lo = static_cast<float>(lo_q - zp), hi = static_cast<float>(127 - zp);
  const float v = std::min(std::max(static_cast<float>(acc) * scale, lo), hi);  // fl(float(acc) * S), clamped
  return static_cast<int8_t>(std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(v)) + zp, lo_q, 127));
}

namespace {

// The smallest a in [lo, hi] with z(a) >= k (hi when none).
int64_t first_at_least(float scale, int32_t zp, bool relu, int k, int64_t lo, int64_t hi) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (requantize_ort(static_cast<int32_t>(mid), scale, zp, relu) >= k)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// floor division by a power of two as SHR does
int64_t shr(int64_t v, int s) { return v >> s; }

// Whether floor((m u + c(u)) / 2^s) for u in [0, top] runs in three words
// split at 2^lb and 2^(2 lb) (s raised to 2 lb where below) without leaving 32
// bits: the low word takes c's low limb and the intercept steps
// (dpos: their positive sum, dneg: their negative sum), the high word the
// zmin fold. float_requant_rows() builds them.
bool three_fits(int64_t m, int64_t c, int64_t top, int s, int64_t dpos, int64_t dneg, int zmin, int lb = kLimbBits) {
  const int up = std::max(0, 2 * lb - s);
  if (m < 0 || c < -kWord || s + up - 2 * lb > 31 || m > (int64_t{1} << 40) || top >= kWord) return false;
  const int64_t M = m << up, C = c * (int64_t{1} << up), lim = (int64_t{1} << lb) - 1;
  const auto in32 = [](int64_t v) { return v >= -kWord && v < kWord; };
  const int64_t w0hi = (M & lim) * top + (C & lim) + (dpos << up), w0lo = (C & lim) + (dneg * (int64_t{1} << up));
  if (!in32(w0hi) || !in32(w0lo)) return false;
  const int64_t w1hi = ((M >> lb) & lim) * top + ((C >> lb) & lim) + (w0hi >> lb);
  const int64_t w1lo = ((C >> lb) & lim) + (w0lo >> lb);
  if (!in32(w1hi) || !in32(w1lo)) return false;
  const int64_t fold = int64_t{zmin} * (int64_t{1} << (s + up - 2 * lb));
  const int64_t w2hi = (M >> 2 * lb) * top + (C >> 2 * lb) + fold + (w1hi >> lb);
  const int64_t w2lo = (C >> 2 * lb) + fold + (w1lo >> lb);
  return in32(w2hi) && in32(w2lo) && in32((C >> 2 * lb) + fold) && in32(M >> 2 * lb);
}

// Runs the steps' arithmetic in 64 bits for u' and checks each word fits.
bool fits(const FloatRequantVta& f, int64_t top, bool three = true) {
  const int64_t m_hi = f.m >> kLowBits, m_lo = f.m & ((1 << kLowBits) - 1);
  const int64_t c_hi = f.c >> kLowBits, c_lo = f.c & ((1 << kLowBits) - 1);
  const bool two = m_lo * top + c_lo < kWord && m_hi * top + c_hi + ((m_lo * top + c_lo) >> kLowBits) < kWord &&
                   f.s - kLowBits <= 31;
  // A row channel: one word when it fits, else two (ACC rows hold any m).
  if (f.row)
    return f.m * top + f.c < kWord || (two && f.s >= kLowBits) ||
           (three && three_fits(f.m, f.c, top, f.s, 0, 0, f.zmin));
  if (!f.two_words()) return f.m * top + f.c < kWord;
  return m_hi <= kImm && c_hi <= kImm && two;
}

}  // namespace

namespace {

constexpr int kMaxFixes = 8;  // beyond: a run of tie zones (few-bit scales), the host's

// u as the fixes move it before the line.
int64_t fixed(int64_t u, const std::vector<int32_t>& fixes) {
  for (int32_t f : fixes)
    if (u == std::abs(f)) return f > 0 ? u + 1 : u - 1;
  return u;
}

// floor(n / d), d > 0
int64_t floor_div(int64_t n, int64_t d) { return n / d - ((n % d != 0) && (n < 0)); }

// The candidate multipliers of a slope m0, nearest first: round(m0), then
// one above and one below it, two above and two below, ... to 64; none
// negative.
std::vector<int64_t> multipliers_near(double m0) {
  const auto r = static_cast<int64_t>(std::llround(m0));
  std::vector<int64_t> ms{r};
  for (int64_t d = 1; d <= 64; ++d)
    for (int64_t m : {r + d, r - d})
      if (m >= 0) ms.push_back(m);
  return ms;
}

// The line zmin + floor((m (g(u) + j0) + c) / 2^s) through thresholds t[1..J]
// of u in [0, w] (g(u) <= top), checked against the count of the formula's
// own thresholds `real` passed (the formula is monotone in u).
std::optional<FloatRequantVta> find_line(FloatRequantVta f, const std::vector<int64_t>& t, int J, int64_t w,
                                         float scale, const std::vector<int64_t>& real, bool three = true) {
  int64_t top = w;
  for (int32_t fx : f.fixes) top = std::max(top, fixed(std::abs(fx), f.fixes));
  for (int s = 0; s <= 31 + kLowBits; ++s) {
    const int64_t one = int64_t{1} << s;
    const double m0 = std::ldexp(static_cast<double>(scale), s);
    if (m0 * static_cast<double>(top + 1) >= 0x1p62) break;
    for (const int64_t m : multipliers_near(m0)) {
      int64_t c_lo = 0, c_hi = (int64_t{J} + 1) * one - 1 - m * top;
      for (int j = 1; j <= J && c_lo <= c_hi; ++j) {
        const int64_t tj = t[static_cast<size_t>(j)];
        c_lo = std::max(c_lo, j * one - m * tj);
        c_hi = std::min(c_hi, j * one - 1 - m * (tj - 1));
      }
      if (c_lo > c_hi) continue;
      FloatRequantVta cand = f;
      cand.m = m, cand.s = static_cast<int32_t>(s);
      cand.j0 = m > 0 ? static_cast<int32_t>(c_lo / m) : 0;
      cand.c = c_lo - int64_t{cand.j0} * m;
      if (cand.j0 > kImm) continue;
      cand.span = static_cast<int32_t>(w + cand.j0);
      if (!fits(cand, top + cand.j0, three)) continue;
      // The check: both sides are step functions of u (the line of
      // g(u) = u moved by the fixes, and the count of the formula's own
      // thresholds), so they agree on [0, w] when they agree at 0 and at
      // every u where either can change: near a threshold of either, and
      // near a fix. (lower_line() and lower_float_requant_rows() then run
      // the emitted steps on every accumulator.)
      std::vector<int64_t> at{0, w};
      for (int j = 1; j <= J; ++j)
        for (int64_t near = -1; near <= 1; ++near)
          at.push_back(t[static_cast<size_t>(j)] + near), at.push_back(real[static_cast<size_t>(j)] + near);
      for (int32_t fx : cand.fixes)
        for (int64_t near = -1; near <= 2; ++near) at.push_back(std::abs(fx) + near);
      bool exact = true;
      for (size_t i = 0; i < at.size() && exact; ++i) {
        const int64_t u = at[i];
        if (u < 0 || u > w) continue;
        const auto level = std::upper_bound(real.begin() + 1, real.begin() + 1 + J, u) - (real.begin() + 1);
        int64_t v = 0;
        const int64_t up = fixed(u, cand.fixes) + cand.j0;
        if (!cand.two_words()) {
          v = shr(m * up + cand.c, s);
        } else {
          const int64_t lo_word = shr((m & 4095) * up + (cand.c & 4095), kLowBits);
          v = shr((m >> kLowBits) * up + (cand.c >> kLowBits) + lo_word, s - kLowBits);
        }
        exact = v == level;
      }
      if (exact) return cand;
    }
  }
  return std::nullopt;
}

}  // namespace

// The line and its fixes (the header's first form).
// `fixes` false: the line alone; `three` false: at most two words.
std::optional<FloatRequantVta> float_forms::lower_line(float scale, int32_t zp, bool relu, int64_t acc_bound, bool row,
                                                       bool fixes, bool three) {
  const auto z = [&](int64_t a) { return requantize_ort(static_cast<int32_t>(a), scale, zp, relu); };
  const int zmin = z(-acc_bound), zmax = z(acc_bound);
  FloatRequantVta f;
  f.on = true;
  f.row = row;
  f.zmin = zmin;
  // Thresholds: tau[j] = the first a with z(a) >= zmin + j, j = 1 .. J.
  const int J = zmax - zmin;
  std::vector<int64_t> t(static_cast<size_t>(J) + 1);
  for (int j = 1; j <= J; ++j)
    t[static_cast<size_t>(j)] = first_at_least(scale, zp, relu, zmin + j, -acc_bound, acc_bound);
  const int64_t base = J > 0 ? t[1] - 1 : 0;  // u = a - base
  const int64_t w = J > 0 ? t[static_cast<size_t>(J)] - base : 0;
  for (int j = 1; j <= J; ++j) t[static_cast<size_t>(j)] -= base;
  f.t_hi = static_cast<int32_t>(base + w);
  if (auto plain = find_line(f, t, J, w, scale, t, three)) return plain;
  if (!fixes) return std::nullopt;

  // No line: the float product's rounding moved some thresholds by one from
  // those of the real product, t'_j = ceil((zmin + j - zp - 1/2) / S) (a line
  // of slope S). Each moved one is a fix (u to the side of the line where
  // ORT's result is), as few as leave a line.
  int e = 0;
  const double mant = std::frexp(static_cast<double>(scale), &e);
  const int64_t ms = static_cast<int64_t>(std::ldexp(mant, 24));  // S = ms 2^-(24 - e)
  const int sh = 24 - e - 1;
  if (sh < 0 || sh > 40) return std::nullopt;
  std::vector<int64_t> ideal = t;
  std::vector<int> moved;
  for (int j = 1; j <= J; ++j) {
    const int64_t num = (2 * (int64_t{zmin} + j - zp) - 1) * (int64_t{1} << sh);  // (k - zp - 1/2) 2^(24 - e)
    ideal[static_cast<size_t>(j)] = -floor_div(-num, ms) - base;
    const int64_t diff = t[static_cast<size_t>(j)] - ideal[static_cast<size_t>(j)];
    if (diff == 0) continue;
    if (std::abs(diff) > 1) return std::nullopt;
    moved.push_back(j);
  }
  if (moved.empty() || moved.size() > static_cast<size_t>(kMaxFixes)) return std::nullopt;
  const auto attempt = [&](const std::vector<int>& js) {
    std::vector<int64_t> th = t;
    FloatRequantVta g = f;
    for (int j : js) {
      const auto k = static_cast<size_t>(j);
      th[k] = ideal[k];
      // later than the line: t'_j takes u - 1; earlier: t_j takes u + 1
      g.fixes.push_back(t[k] > ideal[k] ? static_cast<int32_t>(-ideal[k]) : static_cast<int32_t>(t[k]));
      if (std::abs(g.fixes.back()) < 1 || std::abs(g.fixes.back()) > w) return std::optional<FloatRequantVta>{};
    }
    return find_line(g, th, J, w, scale, t, three);
  };
  auto best = attempt(moved);
  if (!best) return std::nullopt;
  for (size_t i = 0; i < moved.size();) {  // drop the fixes the line absorbs
    std::vector<int> fewer;
    for (size_t k = 0; k < moved.size(); ++k)
      if (k != i) fewer.push_back(moved[k]);
    if (auto r = attempt(fewer)) {
      best = r, moved = fewer;
    } else {
      ++i;
    }
  }
  if (row) return best;  // its steps are the node's: lower_float_requant_rows() proves them
  // The proof of the steps themselves (the fixes run on A between the adds
  // of the clamp): every accumulator of the clamped range and both ends.
  const std::vector<AluStep> steps = float_requant_steps(*best);
  const auto run = [&](int64_t a) {
    return run_steps(static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(best->t_hi)), steps);
  };
  for (int64_t a : {-acc_bound, acc_bound})
    if (run(a) != z(a)) return std::nullopt;
  for (int64_t a = std::max(-acc_bound, base - 2); a <= std::min(acc_bound, base + w + 2); ++a)
    if (run(a) != z(a)) return std::nullopt;
  return best;
}

namespace {

constexpr int kMaxSegs = 16;  // intercept steps of a channel (about the binades of fl(acc * S) its range spans)

}  // namespace

Thresholds float_forms::thresholds(float scale, int32_t zp, bool relu, int64_t acc_bound) {
  const auto z = [&](int64_t a) { return requantize_ort(static_cast<int32_t>(a), scale, zp, relu); };
  Thresholds th;
  th.zmin = z(-acc_bound), th.J = z(acc_bound) - th.zmin;
  th.t.assign(static_cast<size_t>(std::max(th.J, 0)) + 1, 0);
  for (int j = 1; j <= th.J; ++j)
    th.t[static_cast<size_t>(j)] = first_at_least(scale, zp, relu, th.zmin + j, -acc_bound, acc_bound);
  th.base = th.J > 0 ? th.t[1] - 1 : 0;
  th.w = th.J > 0 ? th.t[static_cast<size_t>(th.J)] - th.base : 0;
  for (int j = 1; j <= th.J; ++j) th.t[static_cast<size_t>(j)] -= th.base;
  return th;
}

namespace {

// A line with intercept steps: floor((m u + c(u)) / 2^s) where c(u) = c +
// the sum of dc[i] over the steps with u < at[i].
struct Segments {
  int64_t c = 0, dpos = 0, dneg = 0;  // the last intercept; the steps' positive and negative sums
  std::vector<int32_t> at;
  std::vector<int64_t> dc;
};

// The intercept steps of the line of slope m / 2^s that counts thresholds
// th (ascending, in [1, w]) on u in [0, w]. Greedy: a segment keeps the
// intersection of the intercepts its accumulators admit (u = t_j at least
// j: c >= j 2^s - m t_j; u = t_(j+1) - 1 at most j: c <= (j + 1) 2^s -
// m (t_(j+1) - 1) - 1), and where it would be empty the next segment begins
// at u = t_j; each intercept as close to the one before as its interval
// allows. At most kMaxSegs steps.
std::optional<Segments> segments(const std::vector<int64_t>& th, int64_t w, int64_t m, int s) {
  const int64_t one = int64_t{1} << s, n = static_cast<int64_t>(th.size());
  const auto t = [&](int64_t j) { return th[static_cast<size_t>(j - 1)]; };
  struct Seg {
    int64_t at, lo, hi;  // first u, admissible intercepts
  };
  // Threshold j: at least j at u = t_j (lo), at most j - 1 at u = t_j - 1 (hi);
  // n + 1: at most n at u = w.
  const auto lo_of = [&](int64_t j) { return j * one - m * t(j); };
  const auto hi_of = [&](int64_t j) { return j > n ? (n + 1) * one - 1 - m * w : j * one - m * (t(j) - 1) - 1; };
  std::vector<Seg> segs{{0, 0, hi_of(1)}};  // at least 0 at u = 0
  for (int64_t j = 1; j <= n; ++j) {
    // u = t_j and the accumulators up to t_(j+1) - 1 in the segment, or a new one from t_j
    Seg& cur = segs.back();
    const int64_t lo = lo_of(j), hi = hi_of(j + 1);
    if (std::max(cur.lo, lo) <= std::min(cur.hi, hi)) {
      cur.lo = std::max(cur.lo, lo), cur.hi = std::min(cur.hi, hi);
      continue;
    }
    if (lo > hi || static_cast<int>(segs.size()) > kMaxSegs) return std::nullopt;
    segs.push_back({t(j), lo, hi});
  }
  if (segs.front().lo > segs.front().hi) return std::nullopt;
  std::vector<int64_t> c(segs.size());
  for (size_t i = 0; i < segs.size(); ++i) c[i] = std::clamp(i == 0 ? segs[0].lo : c[i - 1], segs[i].lo, segs[i].hi);
  Segments r;
  r.c = c.back();
  for (size_t i = 1; i < segs.size(); ++i) {
    r.at.push_back(static_cast<int32_t>(segs[i].at));
    r.dc.push_back(c[i - 1] - c[i]);
    (c[i - 1] > c[i] ? r.dpos : r.dneg) += c[i - 1] - c[i];
  }
  return r;
}

// S = m 2^-s exactly: m its 24-bit mantissa.
int exact_slope(float scale, int64_t& m) {
  int e = 0;
  const double mant = std::frexp(static_cast<double>(scale), &e);
  m = static_cast<int64_t>(std::ldexp(mant, 24));
  return 24 - e;
}

// A per-channel row form where no line with few fixes exists: the exact
// slope of S (exact_slope()) and an intercept that steps where the
// thresholds of ONNX Runtime's double rounding leave the current one
// (within a binade of fl(acc * S) they are the real product's thresholds
// shifted by the same half ulp, so the steps are few): segments(). Three
// words (three_fits()); lower_float_requant_rows() proves it.
std::optional<FloatRequantVta> lower_segments(float scale, int32_t zp, bool relu, int64_t acc_bound) {
  const Thresholds th = thresholds(scale, zp, relu, acc_bound);
  if (th.J < 1) return std::nullopt;
  int64_t m = 0;
  const int s = exact_slope(scale, m);
  if (s < 1 || s > 31 + 2 * kLimbBits) return std::nullopt;
  const auto seg = segments({th.t.begin() + 1, th.t.end()}, th.w, m, s);
  if (!seg) return std::nullopt;
  FloatRequantVta f;
  f.on = true, f.row = true, f.zmin = th.zmin;
  f.t_hi = static_cast<int32_t>(th.base + th.w), f.span = static_cast<int32_t>(th.w), f.j0 = 0;
  f.m = m, f.s = s, f.c = seg->c, f.segs = seg->at, f.seg_dc = seg->dc;
  if (!three_fits(f.m, f.c, th.w, f.s, seg->dpos, seg->dneg, th.zmin)) return std::nullopt;
  return f;
}

}  // namespace

namespace {

bool in32(int64_t v) { return v >= -kWord && v < kWord; }

// Whether floor((m u + c) / 2^s) + fold, u in [0, top], runs in one 32-bit
// word (L = 0: MUL, ADD c + fold 2^s, SHR s) or split at 2^L (s raised to L
// where below: T = (m_lo u + c_lo) >> L; (m_hi u + T + c_hi + fold 2^(s-L))
// >> (s - L)) without leaving 32 bits at either end of the range.
bool line_fits(int64_t m, int64_t c, int64_t top, int s, int fold, int L) {
  if (m < 0 || top < 0 || top >= kWord) return false;
  if (L == 0) {
    if (s > 31 || m > kWord) return false;
    const int64_t f = int64_t{fold} * (int64_t{1} << s);
    return in32(m * top) && in32(c + f) && in32(m * top + c + f);
  }
  const int up = std::max(0, L - s), sl = s + up - L;
  if (sl > 31 || s + up > 62 || m > (int64_t{1} << 40)) return false;
  const int64_t M = m << up, C = c * (int64_t{1} << up), lim = (int64_t{1} << L) - 1;
  const int64_t lo = (M & lim) * top + (C & lim), carry = lo >> L;
  const int64_t hi = M >> L, f = int64_t{fold} * (int64_t{1} << sl), ch = C >> L;
  return in32((M & lim) * top) && in32(lo) && in32(hi * top) && in32(hi * top + carry) && in32(ch + f) &&
         in32(hi * top + carry + ch + f);
}

}  // namespace

// Whether both lines of a two-line channel fit one word (L = 0), two split
// at 2^L (no intercept steps), or (L < 0) three split at 2^-L and 2^-2L.
bool float_forms::two_lines_fit(const FloatRequantVta& f, int L) {
  const int64_t top = f.span + 1;  // an up fix may reach w + 1
  if (L < 0) {
    const auto sums = [](const std::vector<int64_t>& dc, int64_t& dpos, int64_t& dneg) {
      dpos = dneg = 0;
      for (int64_t d : dc) (d > 0 ? dpos : dneg) += d;
    };
    int64_t p1 = 0, n1 = 0, p2 = 0, n2 = 0;
    sums(f.seg_dc, p1, n1), sums(f.seg_dc2, p2, n2);
    return three_fits(f.m, f.c, top, f.s, p1, n1, f.zmin, -L) && three_fits(f.m, f.c2, top, f.s, p2, n2, 0, -L);
  }
  if (!f.segs.empty() || !f.segs2.empty()) return false;
  return line_fits(f.m, f.c, top, f.s, f.zmin, L) && line_fits(f.m, f.c2, top, f.s, 0, L);
}

bool float_forms::two_lines_fit_any(const FloatRequantVta& f, bool three) {
  for (int lb : kLimbs)
    if (three && two_lines_fit(f, -lb)) return true;
  for (int L = 0; L <= kMaxSplit; ++L)
    if (two_lines_fit(f, L)) return true;
  return false;
}

namespace {

// The intercepts c of floor((m u + c) / 2^s) = #{i : th[i] <= u} on u in
// [0, w] (th ascending, in [1, w]): [lo, hi], empty when lo > hi. Monotone
// in u, so the line is exact when it is right on both sides of each threshold.
std::pair<int64_t, int64_t> intercepts(const std::vector<int64_t>& th, int64_t w, int64_t m, int s) {
  const int64_t one = int64_t{1} << s;
  int64_t lo = 0, hi = (static_cast<int64_t>(th.size()) + 1) * one - 1 - m * w;
  for (size_t i = 0; i < th.size() && lo <= hi; ++i) {
    const auto j = static_cast<int64_t>(i) + 1;
    lo = std::max(lo, j * one - m * th[i]);
    hi = std::min(hi, j * one - 1 - m * (th[i] - 1));
  }
  return {lo, hi};
}

// A two-line channel of the thresholds (no line yet).
FloatRequantVta two_line_channel(const Thresholds& th, std::vector<int64_t>& odd, std::vector<int64_t>& even) {
  for (int j = 1; j <= th.J; ++j) (j % 2 ? odd : even).push_back(th.t[static_cast<size_t>(j)]);
  FloatRequantVta f;
  f.on = true, f.row = true, f.two_lines = true, f.zmin = th.zmin;
  f.t_hi = static_cast<int32_t>(th.base + th.w), f.span = static_cast<int32_t>(th.w), f.j0 = 0;
  return f;
}

}  // namespace

// The two-line form of a channel (requant_float.h): ONNX Runtime's ties go
// to the even level, so the thresholds into odd levels and those into even
// levels each keep one rounding side within a binade of fl(acc * S) and lie
// on their own line of slope S / 2; one m and s for both (the product is
// shared), the intercepts apart. The smallest m that fits one or two words;
// else the exact slope with intercept steps in three words.
std::optional<FloatRequantVta> float_forms::lower_two_lines(float scale, int32_t zp, bool relu, int64_t acc_bound) {
  const Thresholds th = thresholds(scale, zp, relu, acc_bound);
  std::vector<int64_t> odd, even;  // thresholds j = 1, 3, ... and j = 2, 4, ...
  FloatRequantVta f = two_line_channel(th, odd, even);
  const int64_t w = th.w;
  for (int s = 0; s <= 31 + kMaxSplit; ++s) {
    const double m0 = std::ldexp(static_cast<double>(scale) / 2, s);
    if (m0 * static_cast<double>(w + 2) >= 0x1p52) break;
    for (const int64_t m : multipliers_near(m0)) {
      const auto [lo1, hi1] = intercepts(odd, w, m, s);
      if (lo1 > hi1) continue;
      const auto [lo2, hi2] = intercepts(even, w, m, s);
      if (lo2 > hi2) continue;
      f.m = m, f.s = s, f.c = lo1, f.c2 = lo2;
      for (int L = 0; L <= kMaxSplit; ++L)
        if (two_lines_fit(f, L)) return f;
    }
  }
  // Three words: S / 2 exactly, each line with its own intercept steps; over
  // 2^23 accumulators 7-bit limbs and S / 2 to 21 or 22 bits (more steps).
  int64_t ms = 0;
  const int s0 = exact_slope(scale, ms) + 1;
  for (int k = 0; k <= 3; ++k) {
    const int s = s0 - k;
    const int64_t m = (ms + (int64_t{1} << k >> 1)) >> k;
    if (s < 1 || s > 31 + 2 * kLimbBits) continue;
    const auto l1 = segments(odd, w, m, s), l2 = segments(even, w, m, s);
    if (!l1 || !l2) continue;
    f.m = m, f.s = s, f.c = l1->c, f.c2 = l2->c;
    f.segs = l1->at, f.seg_dc = l1->dc, f.segs2 = l2->at, f.seg_dc2 = l2->dc;
    for (int lb : kLimbs)
      if (two_lines_fit(f, -lb)) return f;
  }
  return std::nullopt;
}

// A line form as two lines: floor(y) + floor(y + 1/2) = floor(2 y) with
// y = (m u + c(u)) / 2^(s+1); its fixes and intercept steps on both.
std::optional<FloatRequantVta> float_forms::as_two_lines(FloatRequantVta f) {
  if (f.s + 1 > 31 + 2 * kLimbBits) return std::nullopt;
  f.c += f.m * f.j0, f.span -= f.j0, f.j0 = 0;
  f.c2 = f.c + (int64_t{1} << f.s);
  f.s += 1, f.two_lines = true;
  f.segs2 = f.segs, f.seg_dc2 = f.seg_dc;
  if (!two_lines_fit_any(f)) return std::nullopt;
  return f;
}

std::optional<FloatRequantVta> lower_float_requant(float scale, int32_t zp, bool relu, int64_t acc_bound, bool row) {
  if (!(scale > 0) || !std::isfinite(scale) || acc_bound < 0 || 2 * acc_bound >= kWord) return std::nullopt;
  if (auto f = lower_line(scale, zp, relu, acc_bound, row)) return f;
  if (row) return lower_segments(scale, zp, relu, acc_bound);
  return std::nullopt;
}

std::optional<FloatRequantVta> lower_float_requant_pair(float scale, int32_t zp, bool relu, int64_t acc_bound) {
  if (!(scale > 0) || !std::isfinite(scale) || acc_bound < 0 || 2 * acc_bound >= kWord) return std::nullopt;
  return lower_two_lines(scale, zp, relu, acc_bound);
}

std::vector<AluStep> float_requant_steps(const FloatRequantVta& f) {
  if (!f.on) return {};
  using isa::AluOp;
  using On = AluStep::On;
  std::vector<AluStep> st;
  st.push_back({AluOp::MIN, 0});
  // A = u - w + o over the adds; each fix where its u is 0 on A (o = w - p)
  const int64_t w = f.span - f.j0;
  int64_t o = 0;
  const auto advance = [&](int64_t to) {
    for (; o != to; o += st.back().imm)
      st.push_back({AluOp::ADD, static_cast<int32_t>(std::clamp(to - o, -kImm, kImm))});
  };
  std::vector<int32_t> fixes = f.fixes;
  std::sort(fixes.begin(), fixes.end(), [](int32_t a, int32_t b) { return std::abs(a) > std::abs(b); });
  for (int32_t fx : fixes) {
    const bool down = fx < 0;  // u - 1 at u = p: A += -[A == 0]; u + 1: A += -[A != 0], then o - 1
    advance(w - std::abs(fx));
    st.push_back({AluOp::MAX, 0, On::TbyA});
    st.push_back({AluOp::MIN, 0, On::TbyA});  // T = A
    st.push_back({AluOp::ADD, down ? 1 : 2, On::T});
    st.push_back({AluOp::MAX, down ? 0 : 1, On::T});
    st.push_back({AluOp::MIN, down ? 2 : 3, On::T});  // odd exactly at A == 0 (down), else even
    st.push_back({AluOp::SHR, -31, On::T});
    st.push_back({AluOp::SHR, 31, On::T});  // -(bit 0)
    st.push_back({AluOp::ADD, 0, On::AbyT});
    if (!down) --o;
  }
  advance(f.span);
  st.push_back({AluOp::MAX, f.j0});
  if (!f.two_words()) {
    if (f.m != 1) st.push_back({AluOp::MUL, static_cast<int32_t>(f.m)});
    if (f.c != 0) st.push_back({AluOp::ADD, static_cast<int32_t>(f.c)});
    if (f.s != 0) st.push_back({AluOp::SHR, f.s});
  } else {
    st.push_back({AluOp::MAX, 0, On::TbyA});
    st.push_back({AluOp::MIN, 0, On::TbyA});  // T = A
    st.push_back({AluOp::MUL, static_cast<int32_t>(f.m & 4095), On::T});
    if ((f.c & 4095) != 0) st.push_back({AluOp::ADD, static_cast<int32_t>(f.c & 4095), On::T});
    st.push_back({AluOp::SHR, kLowBits, On::T});
    st.push_back({AluOp::MUL, static_cast<int32_t>(f.m >> kLowBits)});
    if ((f.c >> kLowBits) != 0) st.push_back({AluOp::ADD, static_cast<int32_t>(f.c >> kLowBits)});
    st.push_back({AluOp::ADD, 0, On::AbyT});
    if (f.s != kLowBits) st.push_back({AluOp::SHR, f.s - kLowBits});
  }
  if (f.zmin != 0) st.push_back({AluOp::ADD, f.zmin});
  return st;
}

}  // namespace vta::compiler
