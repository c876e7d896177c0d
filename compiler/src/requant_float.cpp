// ONNX Runtime's float requantization, exactly. See requant_float.h.
#include "vta/compiler/requant_float.h"

#include <algorithm>
#include <cmath>
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
bool fits(const FloatRequantVta& f) {
  const int64_t top = f.span;  // the largest u'
  if (!f.two_words()) return f.m * top + f.c < kWord;
  const int64_t m_hi = f.m >> kLowBits, m_lo = f.m & ((1 << kLowBits) - 1);
  const int64_t c_hi = f.c >> kLowBits, c_lo = f.c & ((1 << kLowBits) - 1);
  return m_hi <= kImm && c_hi <= kImm && m_lo * top + c_lo < kWord &&
         m_hi * top + c_hi + ((m_lo * top + c_lo) >> kLowBits) < kWord && f.s - kLowBits <= 31;
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
  // g(u) = zmin + floor((M u + C) / 2^s) on [0, w]: for each step j,
  // M t_j + C >= j 2^s > M (t_j - 1) + C; C >= 0; M w + C < (J + 1) 2^s.
  for (int s = 0; s <= 31 + kLowBits; ++s) {
    const int64_t one = int64_t{1} << s;
    const double m0 = std::ldexp(static_cast<double>(scale), s);
    if (m0 * static_cast<double>(w + 1) >= 0x1p62) break;
    for (int64_t d = 0; d <= 64; ++d)
      for (int sign : {1, -1}) {
        if (d == 0 && sign < 0) continue;
        const int64_t m = static_cast<int64_t>(std::llround(m0)) + sign * d;
        if (m < 0) continue;
        int64_t c_lo = 0, c_hi = (int64_t{J} + 1) * one - 1 - m * w;
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
        if (!fits(cand)) continue;
        // The proof: every u of the clamped range against the formula.
        bool exact = true;
        for (int64_t u = 0; u <= w && exact; ++u) {
          int64_t v = 0;
          const int64_t up = u + cand.j0;
          if (!cand.two_words()) {
            v = shr(m * up + cand.c, s);
          } else {
            const int64_t lo_word = shr((m & 4095) * up + (cand.c & 4095), kLowBits);
            v = shr((m >> kLowBits) * up + (cand.c >> kLowBits) + lo_word, s - kLowBits);
          }
          exact = zmin + v == z(u + base);
        }
        if (exact) return cand;
      }
  }
  return std::nullopt;
}

std::vector<AluStep> float_requant_steps(const FloatRequantVta& f) {
  if (!f.on) return {};
  using isa::AluOp;
  using On = AluStep::On;
  std::vector<AluStep> st;
  st.push_back({AluOp::MIN, 0});
  for (int64_t left = f.span; left > 0; left -= kImm) st.push_back({AluOp::ADD, static_cast<int32_t>(std::min(left, kImm))});
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
