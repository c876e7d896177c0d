// Requantization in the VTA ALU's 32-bit steps. See requant.h.
#include "vta/compiler/ops/requant.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "vta/compiler/ir/node_facts.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

constexpr int32_t kImmMax = std::numeric_limits<int16_t>::max();  // the ALU immediate is 16-bit signed
constexpr int kMaxRoundShift = 15;                                // 2^(shift-1) must be an immediate
constexpr int kMaxShift = 30;
constexpr int64_t kAccMax = std::numeric_limits<int32_t>::max();

int64_t round_constant(int shift) { return shift > 0 ? int64_t{1} << (shift - 1) : 0; }

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// Whether no step overflows 32 bits for |acc| <= bound.
bool fits(const VtaRequant& r, int64_t bound) {
  const int64_t after_pre = (bound + round_constant(r.pre)) >> r.pre;
  const int64_t round_s = r.s > kMaxRoundShift ? 0 : round_constant(r.s);  // a long shift truncates first
  return bound + round_constant(r.pre) <= kAccMax && after_pre * r.m + round_s <= kAccMax;
}

}  // namespace

int32_t rounding_shift(int32_t v, int s) {
  if (s > kMaxRoundShift) {
    v >>=
        s - kMaxRoundShift;  // floor first: floor((floor(v / 2^a) + 2^(b-1)) / 2^b) = floor((v + 2^(a+b-1)) / 2^(a+b))
    s = kMaxRoundShift;
  }
  return wrap_add(v, static_cast<int32_t>(round_constant(s))) >> s;
}

std::optional<VtaRequant> lower_requant(int64_t mult, int shift, int64_t acc_bound) {
  if (mult <= 0 || shift < 0 || acc_bound < 0 || acc_bound > kAccMax) return std::nullopt;
  // M = mult * 2^-shift ~ m * 2^-(pre + s). Of the forms that cannot
  // overflow, take the one with the smallest error estimate: the pre-shift's
  // rounding (M * 2^(pre-1) in output units) plus m's relative error over
  // the int8 range (128 * |m / (M 2^(pre+s)) - 1|).
  const double M = std::ldexp(static_cast<double>(mult), -shift);
  const int top = shift - std::bit_width(static_cast<uint64_t>(mult)) + 15;  // m has 15 bits
  std::optional<VtaRequant> best;
  double best_err = 0;
  for (int total = std::min(top, kMaxShift + kMaxRoundShift); total >= 0; --total) {
    const double m = std::nearbyint(std::ldexp(M, total));
    if (m > kImmMax) continue;
    if (m < 1) break;
    for (int pre = 0; pre <= kMaxRoundShift && pre <= total; ++pre) {
      const VtaRequant r{pre, static_cast<int32_t>(m), total - pre};
      if (r.s > kMaxShift || !fits(r, acc_bound)) continue;
      const double err =
          (pre > 0 ? M * std::ldexp(1.0, pre - 1) : 0.0) + 128.0 * std::abs(m / std::ldexp(M, total) - 1.0);
      if (!best || err < best_err) best = r, best_err = err;
      break;  // more pre-shift only adds error
    }
  }
  return best;
}

bool lower_for_vta(Node& n) {
  if (n.op != Op::Conv2d && n.op != Op::Dense) return false;
  if (n.x_zp != 0 || n.w_zp != 0 || n.int32_out || n.weight_sets != 1 || (n.mult == 1 && n.zp == 0)) return false;
  const auto r = lower_requant(n.mult, n.shift, acc_bound(n));
  if (!r) return false;
  n.vta_rq = *r;
  return true;
}

int8_t requantize_vta(int32_t acc, const VtaRequant& r, int32_t zp, bool relu) {
  const int32_t v = wrap_add(rounding_shift(wrap_mul(rounding_shift(acc, r.pre), r.m), r.s), zp);
  return static_cast<int8_t>(std::clamp(v, relu ? std::max(zp, -128) : -128, 127));
}

namespace {
// The final shift of n's requantization and whether the form is one shift.
int final_shift(const Node& n, bool& single) {
  single = n.vta_rq.m == 0 || (n.vta_rq.pre == 0 && n.vta_rq.m == 1);
  return n.vta_rq.m == 0 ? n.shift : n.vta_rq.s;
}
}  // namespace

bool vta_requant_exact(const Node& n) {
  if (n.frq.on || !n.round_even) return true;
  bool single = false;
  const int s = final_shift(n, single);
  return single && s >= 0 && s <= kMaxRoundShift;
}

bool needs_scratch(const Node& n) {
  if (n.frq.on) return n.frq.two_words() || !n.frq.fixes.empty();
  if (!n.frqs.empty())
    return float_requant_scratch(n.frqs) > 0 ||
           std::any_of(n.frqs.begin(), n.frqs.end(), [](const FloatRequantVta& f) { return !f.fixes.empty(); });
  bool single = false;
  return n.round_even && final_shift(n, single) > 0;
}

bool needs_scratch2(const Node& n) { return !n.frqs.empty() && float_requant_scratch(n.frqs) >= 2; }

bool needs_scratch3(const Node& n) { return !n.frqs.empty() && float_requant_scratch(n.frqs) == 3; }

namespace {

// Every step of the epilogue, the rounding constant of a Conv2d / Dense
// included (requant_steps() leaves it to the bias).
std::vector<AluStep> all_steps(const Node& n) {
  using isa::AluOp;
  using On = AluStep::On;
  if (n.frq.on) return float_requant_steps(n.frq);
  if (!n.frqs.empty()) {
    const auto form = float_requant_rows(n.frqs);
    if (!form) fail("node {}: its per-channel requantization has no VTA rows", n.name);
    return form->steps;
  }
  std::vector<AluStep> steps;
  steps.reserve(16);  // a sweep's stage 1 asks for it per layer and design
  if (!n.lshift.empty()) steps.push_back({AluOp::SHR, 0, On::AbyRow});
  const auto shift = [&](int s) {  // rounding_shift()
    if (s == 0) return;
    if (s > kMaxRoundShift) {
      steps.push_back({AluOp::SHR, s - kMaxRoundShift});
      s = kMaxRoundShift;
    }
    steps.push_back({AluOp::ADD, static_cast<int32_t>(round_constant(s))});
    steps.push_back({AluOp::SHR, s});
  };
  const auto shift_even = [&](int s) {
    if (s == 0) return;
    if (!vta_requant_exact(n)) fail("node {}: no exact VTA form of its half-to-even requantization", n.name);
    steps.push_back({AluOp::MAX, 0, On::TbyA});
    steps.push_back({AluOp::MIN, 0, On::TbyA});
    steps.push_back({AluOp::ADD, -(int32_t{1} << s), On::T});  // flips bit s: T's bit s is !b
    steps.push_back({AluOp::SHR, -(31 - s), On::T});
    steps.push_back({AluOp::SHR, 31, On::T});  // -(1 - b) = b - 1
    steps.push_back({AluOp::ADD, static_cast<int32_t>(round_constant(s))});
    steps.push_back({AluOp::ADD, 0, On::AbyT});
    steps.push_back({AluOp::SHR, s});
  };
  int32_t lo = n.relu ? 0 : elem_min(n.bits);  // the clip at the output width
  if (n.vta_rq.m == 0) {
    n.round_even ? shift_even(n.shift) : shift(n.shift);
  } else {
    shift(n.vta_rq.pre);
    if (n.vta_rq.m > 1) steps.push_back({AluOp::MUL, n.vta_rq.m});
    n.round_even ? shift_even(n.vta_rq.s) : shift(n.vta_rq.s);
    if (n.zp != 0) steps.push_back({AluOp::ADD, n.zp});
    if (n.relu) lo = std::max(n.zp, elem_min(n.bits));
  }
  steps.push_back({AluOp::MAX, lo});
  steps.push_back({AluOp::MIN, elem_max(n.bits)});
  return steps;
}

}  // namespace

int32_t bias_fold(const Node& n, int64_t channel) {
  if (n.op != Op::Conv2d && n.op != Op::Dense) return 0;
  if (n.frq.on) return static_cast<int32_t>(0u - static_cast<uint32_t>(n.frq.t_hi));  // acc - t_hi
  if (!n.frqs.empty())
    return static_cast<int32_t>(0u - static_cast<uint32_t>(n.frqs.at(static_cast<size_t>(channel)).t_hi));
  const std::vector<AluStep> steps = all_steps(n);
  // Only a plain add to A: a per-channel shift row or a scratch-tile step
  // before it would see the constant at a different point.
  const AluStep& first = steps.front();
  return first.op == isa::AluOp::ADD && first.on == AluStep::On::A ? first.imm : 0;
}

std::vector<AluStep> requant_steps(const Node& n) {
  std::vector<AluStep> steps = all_steps(n);
  if (!n.frq.on && n.frqs.empty() && bias_fold(n) != 0) steps.erase(steps.begin());
  return steps;
}

std::vector<std::vector<int32_t>> requant_rows(const Node& n) {
  if (!n.frqs.empty()) {
    const auto form = float_requant_rows(n.frqs);
    if (!form) fail("node {}: its per-channel requantization has no VTA rows", n.name);
    return form->rows;
  }
  if (n.lshift.empty()) return {};
  std::vector<int32_t> row;
  for (int8_t l : n.lshift) row.push_back(-int32_t{l});  // SHR by a negative amount shifts left
  return {row};
}

int requant_row_count(const Node& n) {
  if (!n.frqs.empty()) return float_requant_row_count(n.frqs);
  return n.lshift.empty() ? 0 : 1;
}

int requant_imm_ops(const Node& n) {
  return static_cast<int>(kept_fact(
      n, NodeFact::RequantOps, [](const Node& m) -> int64_t { return static_cast<int64_t>(requant_steps(m).size()); }));
}

}  // namespace vta::compiler
