#pragma once
// Accumulator bounds of a conv/dense node (acc_bound.cpp): the range every
// requantization form must hold exactly.
#include <cstdint>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// The largest |accumulator| of a Conv2d / Dense node over all int8 inputs
/// (symmetric: no zero points), bias included.
int64_t acc_bound(const Node& n);
/// The same of one output channel.
int64_t acc_bound(const Node& n, int64_t channel);

}  // namespace vta::compiler
