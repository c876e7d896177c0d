#pragma once
// The "partition" pass (partition.cpp): which node runs where.
#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

/// Marks every node the config's VTA can run as Device::Vta (the rest stay
/// on the host): placement() of schedule/placement.h for each node.
Graph partition(const Graph& g, const Config& c);

}  // namespace vta::compiler
