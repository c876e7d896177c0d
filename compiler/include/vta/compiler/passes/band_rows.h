#pragma once
// The "band_rows" pass (band_rows.cpp): batch rows for batch-1 networks.
#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

/// On a config with gemm.batch B > 1, each VTA conv, pool and add of a
/// batch-1 image computes B row bands of its output at once, one per batch
/// row, so that they share the weights; host Op::Bands nodes cut the inputs
/// into bands (with the rows the windows overlap). Returns `g` when nothing
/// is banded. Test: Zoo/BatchRows.* in tests/test_compiler.cpp.
Graph band_rows(const Graph& g, const Config& c);

}  // namespace vta::compiler
