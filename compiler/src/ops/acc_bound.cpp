// Accumulator bounds of a conv/dense node (acc_bound.h).
#include "vta/compiler/ops/acc_bound.h"

#include <algorithm>
#include <cstdlib>

namespace vta::compiler {

int64_t acc_bound(const Node& n) {
  int64_t bound = 0;
  for (int64_t o = 0; o < n.out.c; ++o) bound = std::max(bound, acc_bound(n, o));
  return bound;
}

int64_t acc_bound(const Node& n, int64_t o) {
  const int64_t outs = n.out.c, per_out = outs > 0 ? static_cast<int64_t>(n.weight.size()) / (outs * n.weight_sets) : 0;
  int64_t bound = 0;
  for (int64_t set = 0; set < n.weight_sets; ++set) {
    int64_t sum = n.bias.empty() ? 0 : std::abs(static_cast<int64_t>(n.bias[static_cast<size_t>(o)]));
    for (int64_t i = 0; i < per_out; ++i)
      sum += (int64_t{1} << (n.bits - 1)) *
             std::abs(static_cast<int64_t>(n.weight[static_cast<size_t>((set * outs + o) * per_out + i)]));
    bound = std::max(bound, sum);
  }
  return bound;
}

std::optional<int64_t> acc_peak(const Node& n) {
  // The plain rounding shift: no zero point or multiplier (asymmetric()),
  // none of the exact float forms, no per-channel shift rows, half up.
  const bool plain = !n.asymmetric() && !n.frq.on && n.frqs.empty() && n.fmults.empty() && n.lshift.empty() &&
                     n.vta_rq.m == 0 && !n.round_even;
  if (!plain) return std::nullopt;
  const int64_t amax = int64_t{1} << (n.bits - 1);
  // The rounding constant 2^(s-1) (s capped at 15: a longer shift truncates
  // first), added to the bias of a conv / dense, after the sum otherwise.
  const int64_t round = n.shift > 0 ? int64_t{1} << (std::min(n.shift, 15) - 1) : 0;
  switch (n.op) {
    case Op::Conv2d:
    case Op::Dense:
      return acc_bound(n) + round;
    case Op::Add:
      return (amax << n.shift_a) + (amax << n.shift_b) + round;
    case Op::AvgPool:
      return n.pool * n.pool * amax + round;
    case Op::MaxPool:
      return amax;
    default:
      return std::nullopt;
  }
}

}  // namespace vta::compiler
