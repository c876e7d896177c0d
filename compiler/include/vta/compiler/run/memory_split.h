#pragma once
// Where a layer's cycles go to the DRAM behind the memory port, by cause:
// bandwidth and latency, row misses, refresh. Counterfactual timing-only
// SystemC runs of the same compiled program, each removing one cause from
// the one before (docs/timing.md, "The memory split"):
//   ideal  memory.dram = fixed with no latency: the port's own beats only
//   rows   the preset with refresh off and activate/precharge one cycle
//          (memory.dram_row_timing = false)
//   norefr the preset with refresh off
//   real   the run being reported
// bandwidth = rows - ideal, row misses = norefr - rows, refresh = real -
// norefr, per layer. An interaction of two causes counts with the later
// one; a part can be negative where removing a cause reorders the DRAM's
// commands for the worse (the table prints what it measured).
#include <string>

#include "vta/compiler/run/report.h"

namespace vta::compiler {

/// True when `c`'s memory has a DRAM device to split (memory.dram is a
/// preset); with `fixed` there is nothing to split.
bool memory_split_applies(const Config& c);

/// Fills every row's mem_bw / mem_row / mem_refresh (and the total's) and
/// r.memory_basis from three timing-only SystemC runs of `net` on variants
/// of `c`. `real` is the reported run's result on `c` (any cycle model:
/// they are cycle-identical). A vta::Error when c has no DRAM preset.
void add_memory_split(Report& r, const CompiledNetwork& net, const Config& c, const NetworkResult& real,
                      const Tensor& input);

}  // namespace vta::compiler
