#pragma once
// Energy per layer beside cycles: the activity counters every backend
// publishes per region (MACs, ALU lane operations, SRAM bytes per buffer,
// DRAM bytes, cycles) through the estimate library's technology table.
// Here, above both, because the compiler and the estimate sit side by side.
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/estimate/energy.h"
#include "vta/model/stats.h"

namespace vta::sweeps {

/// The activity one region's stats record (missing counters count 0).
estimate::Activity activity_of(const Stats& s);

/// Sets each VTA layer's energy_uj and the total's from the layers' stats
/// (host layers keep -1: not estimated). Static energy (static_w x cycles /
/// clock) is included when static_w > 0 and the backend counted cycles.
void add_energy(compiler::Report& r, const compiler::NetworkResult& res, const Config& c,
                const estimate::TechTable& tech, double static_w);

}  // namespace vta::sweeps
