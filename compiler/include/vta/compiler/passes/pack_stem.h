#pragma once
// The "pack_stem" pass (pack_stem.cpp): stem packing.
#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

/// Every conv of the network input whose channels would mostly be block
/// padding reads an im2col of its input (a host Op::Im2col node named
/// "<conv>.im2col") and becomes 1x1. Returns `g` when nothing is packed.
Graph pack_stem(const Graph& g, const Config& c);

}  // namespace vta::compiler
