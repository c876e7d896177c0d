// ONNX Runtime's float requantization, exactly. See requant_float.h.
#include "vta/compiler/requant_float.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vta::compiler {

int8_t requantize_ort(int32_t acc, float scale, int32_t zp, bool relu) {
  const int32_t lo_q = relu ? std::max(zp, -128) : -128;
  const float lo = static_cast<float>(lo_q - zp), hi = static_cast<float>(127 - zp);
  const float v = std::min(std::max(static_cast<float>(acc) * scale, lo), hi);  // fl(float(acc) * S), clamped
  return static_cast<int8_t>(std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(v)) + zp, lo_q, 127));
}

namespace {

constexpr int kLowBits = 12;  // the two-word split
constexpr int64_t kImm = 32767;
constexpr int64_t kWord = int64_t{1} << 31;

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

// Runs the steps' arithmetic in 64 bits for u' and checks each word fits.
bool fits(const FloatRequantVta& f, int64_t top) {
  if (!f.two_words()) return f.m * top + f.c < kWord;
  const int64_t m_hi = f.m >> kLowBits, m_lo = f.m & ((1 << kLowBits) - 1);
  const int64_t c_hi = f.c >> kLowBits, c_lo = f.c & ((1 << kLowBits) - 1);
  return m_hi <= kImm && c_hi <= kImm && m_lo * top + c_lo < kWord &&
         m_hi * top + c_hi + ((m_lo * top + c_lo) >> kLowBits) < kWord && f.s - kLowBits <= 31;
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

// The line zmin + floor((m (g(u) + j0) + c) / 2^s) through thresholds t[1..J]
// of u in [0, w] (g(u) <= top), checked for every u against want(u).
template <class Want>
std::optional<FloatRequantVta> find_line(FloatRequantVta f, const std::vector<int64_t>& t, int J, int64_t w,
                                         float scale, const Want& want) {
  int64_t top = w;
  for (int32_t fx : f.fixes) top = std::max(top, fixed(std::abs(fx), f.fixes));
  for (int s = 0; s <= 31 + kLowBits; ++s) {
    const int64_t one = int64_t{1} << s;
    const double m0 = std::ldexp(static_cast<double>(scale), s);
    if (m0 * static_cast<double>(top + 1) >= 0x1p62) break;
    for (int64_t d = 0; d <= 64; ++d)
      for (int sign : {1, -1}) {
        if (d == 0 && sign < 0) continue;
        const int64_t m = static_cast<int64_t>(std::llround(m0)) + sign * d;
        if (m < 0) continue;
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
        if (!fits(cand, top + cand.j0)) continue;
        // The proof: every u of the clamped range against the formula.
        bool exact = true;
        for (int64_t u = 0; u <= w && exact; ++u) {
          int64_t v = 0;
          const int64_t up = fixed(u, cand.fixes) + cand.j0;
          if (!cand.two_words()) {
            v = shr(m * up + cand.c, s);
          } else {
            const int64_t lo_word = shr((m & 4095) * up + (cand.c & 4095), kLowBits);
            v = shr((m >> kLowBits) * up + (cand.c >> kLowBits) + lo_word, s - kLowBits);
          }
          exact = v == want(u);
        }
        if (exact) return cand;
      }
  }
  return std::nullopt;
}

}  // namespace

std::optional<FloatRequantVta> lower_float_requant(float scale, int32_t zp, bool relu, int64_t acc_bound) {
  if (!(scale > 0) || !std::isfinite(scale) || acc_bound < 0 || 2 * acc_bound >= kWord) return std::nullopt;
  const auto z = [&](int64_t a) { return requantize_ort(static_cast<int32_t>(a), scale, zp, relu); };
  const int zmin = z(-acc_bound), zmax = z(acc_bound);
  FloatRequantVta f;
  f.on = true;
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
  const auto want = [&](int64_t u) { return z(u + base) - zmin; };
  if (auto plain = find_line(f, t, J, w, scale, want)) return plain;

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
    return find_line(g, th, J, w, scale, want);
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
    for (; o != to; o += st.back().imm) st.push_back({AluOp::ADD, static_cast<int32_t>(std::clamp(to - o, -kImm, kImm))});
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
