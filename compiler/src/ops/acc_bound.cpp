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
      sum += 128 * std::abs(static_cast<int64_t>(n.weight[static_cast<size_t>((set * outs + o) * per_out + i)]));
    bound = std::max(bound, sum);
  }
  return bound;
}

}  // namespace vta::compiler
