#pragma once
// The analytical estimate of a network on a design: per layer, the cycles and
// DRAM bytes the compiled program would take, from the tile search's cost
// model (docs/timing.md rules with loads overlapping GEMMs) and closed forms
// of the ALU-only layers, without generating a single instruction. It is the
// first, cheapest stage of a sweep; the sweep report states its error against
// the SystemC model per layer. Tested in tests/test_sweep.cpp (SweepStages.Analytic*),
// tests/test_analytic_dram.cpp and tests/test_compiler.cpp.
#include <cstdint>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/passes/pass.h"
#include "vta/compiler/schedule/layer_cost.h"
#include "vta/isa/config.h"

namespace vta::compiler {

struct NetworkEstimate {
  std::vector<LayerEstimate> layers;  // in node order, the input excluded
  double cycles = 0;                  // sum over the VTA layers
  double host_us = 0;                 // the host model over the host layers and device copies
  double bytes = 0;
  int64_t macs = 0;      // every layer
  int64_t vta_macs = 0;  // the VTA layers
};

/// Runs the graph passes of the pipeline on `g` for `c` (with the options'
/// host ops) and estimates every layer. Throws vta::Error when a layer cannot
/// be compiled for `c` (the same errors as compile()).
NetworkEstimate estimate_network(const Graph& g, const Config& c, const CompileOptions& o = {});
/// The same estimate of a graph the passes already ran on (run_graph_passes())
/// for a config with the same graph_pass_knobs() as `c`.
NetworkEstimate estimate_passed(const Graph& passed, const Config& c);

}  // namespace vta::compiler
