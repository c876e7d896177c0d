#pragma once
// The "copies" pass (copies.cpp): explicit device copies.
#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

/// After partition(), an Op::DeviceCopy node wherever a value crosses
/// between the host and VTA, one per value and direction; a graph output
/// computed on VTA ends with a copy to the host. Test: Copies.* in
/// tests/test_placement.cpp.
Graph insert_copies(const Graph& g, const Config& c);

}  // namespace vta::compiler
