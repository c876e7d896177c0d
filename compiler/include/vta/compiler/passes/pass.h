#pragma once
// The pass interface: every pass of the pipeline (pipeline.def) is a free
// function in its own file passes/NAME.cpp,
//   CompiledNetwork NAME_pass(CompiledNetwork net, const Config& c, const CompileOptions& o);
//   std::string NAME_dump(const CompiledNetwork& net);
// The first takes the network as the earlier passes left it and returns it
// with its own part added (a graph pass rewrites net.graph only); the second
// is the text `vta run --dump-after NAME` prints after it. pipeline.h
// declares both of every pass from pipeline.def, so a new pass is its file
// and its line there. This header holds what every pass reads.
#include <map>
#include <string>
#include <vector>

#include "vta/compiler/ir/network.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// What the passes read besides the graph and the config.
struct CompileOptions {
  std::string dump_after;  // a pass after which the network is printed to stderr (pass_names(); empty: none)
  // The op kinds pinned to the host (the pin_host_ops pass, `--host-ops`).
  std::vector<std::string> host_ops;
  // Tiles to use instead of the cost model's pick, by tile_key(): the hook of
  // schedule tuning (sweeps/tune.h measures candidates on a cycle model; the
  // compiler itself never runs a backend). A forced tile that does not fit
  // its layer is an error naming the layer (the tiling pass).
  std::map<std::string, Tile> tiles;
};

}  // namespace vta::compiler
