#pragma once
// From a quantized graph to VTA programs (compile.cpp): the passes of
// passes/pipeline.def, in order, each a free function in its own file
// (passes/pass.h): pin the user's host ops, pack the stem, band the rows,
// partition (which node runs where), insert device copies, then layout
// (blocked DRAM buffers), segments (device runs), tiling (per layer, within
// the SRAM halves of double buffering, by the cost model of docs/timing.md)
// and codegen (instructions, uops, DMA, dependency tokens, one region per
// layer).
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ir/network.h"
#include "vta/compiler/passes/pass.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// Compiles a graph for config `c` through every pass of the pipeline.
/// `dump_after` names a pass after which the network is printed to stderr
/// (pass_names(); empty: none).
CompiledNetwork compile(const Graph& g, const Config& c, const std::string& dump_after = "");
CompiledNetwork compile(const Graph& g, const Config& c, const CompileOptions& o);
/// The graph passes of the same pipeline alone (pipeline.def's stage
/// `graph`): the graph compile() builds the program for, which the analytic
/// estimate (analytic.h) estimates.
Graph run_graph_passes(const Graph& g, const Config& c, const CompileOptions& o = {});
/// The knobs the graph passes read, as a key: every knob but the clock's, the
/// memory system's, the OpenCL host's and the GEMM pipeline depth, which no
/// pass places, packs or bands a node by. Two configs with equal keys get
/// equal graphs from run_graph_passes() (Config.GraphPassKnobsLeaveOutWhatNoPassReads),
/// so a sweep runs the passes once for its designs that differ only in those.
std::string graph_pass_knobs(const Config& c);
/// The pipeline's pass names, in order.
std::vector<std::string> pass_names();
/// Throws vta::Error listing pass_names() unless `name` is one (or empty).
void check_pass_name(const std::string& name);

}  // namespace vta::compiler
