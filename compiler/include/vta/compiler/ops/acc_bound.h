#pragma once
// Accumulator bounds of a conv/dense node (acc_bound.cpp): the range every
// requantization form must hold exactly.
#include <cstdint>
#include <optional>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// The largest |accumulator| of a Conv2d / Dense node over all inputs of
/// n.bits bits (int8 for every imported node; symmetric: no zero points),
/// bias included.
int64_t acc_bound(const Node& n);
/// The same of one output channel.
int64_t acc_bound(const Node& n, int64_t channel);

/// The largest |value| an ACC element holds while VTA computes node `n`
/// (Conv2d, Dense, Add, AvgPool, MaxPool) over all inputs of n.bits bits:
/// the accumulation (every partial sum is bounded by the sum of the
/// absolute terms), the rounding constant of the requantization and its
/// shifts. nullopt when n's requantization is not the plain rounding shift
/// (zero points, multipliers, per-channel rows, half to even), whose ALU
/// steps are written for 32-bit accumulators. A design whose
/// dtype.acc_bits holds this runs the node on VTA exactly; placement()
/// sends the others to the host (docs/design.md, "Data types").
std::optional<int64_t> acc_peak(const Node& n);

}  // namespace vta::compiler
