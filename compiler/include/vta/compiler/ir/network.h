#pragma once
// The compiled network: what the passes after the graph passes add to the
// partitioned graph, each its own part (passes/pass.h): DRAM buffers at fixed
// physical addresses (layout), device runs (segments), per-layer tiles
// (tiling), and the instructions, uops and constants (codegen).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"

namespace vta::compiler {

/// A tile of one layer: th x tw output positions, toc output and tic input
/// channel blocks per step.
struct Tile {
  int64_t th = 1, tw = 1, toc = 1, tic = 1;
  double est_cycles = 0;  // the cost model's estimate for the layer
};

/// A DRAM buffer of the compiled network, at a fixed physical address.
struct Buffer {
  std::string name;
  isa::MemId mem;  // element type, for dram_base arithmetic
  uint64_t bytes = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> init;  // weights, biases, uops, instructions (empty: zero / runtime data)
  int node = -1;              // activation of this node, or -1
};

/// One VTA run: consecutive VTA nodes, synchronised with the host only at
/// its ends.
struct Segment {
  std::vector<int> nodes;
  int insn_buffer = -1;  // index into CompiledNetwork::buffers
  uint32_t insn_count = 0;
  std::vector<Region> regions;  // one per node, named after it
};

struct LayerInfo {
  int node = -1;
  Tile tile;
  uint64_t insns = 0, uops = 0;
  std::string key;  // conv/dense: tile_key() of the layer
  // conv/dense: the cost model's pick (choose_tile()); not `tile` where CompileOptions::tiles forced one.
  Tile model;
};

struct CompiledNetwork {
  Graph graph;  // partitioned
  std::vector<Buffer> buffers;
  std::map<int, int> activation;  // node -> buffer index
  std::vector<Segment> segments;
  std::map<int, LayerInfo> layers;  // VTA nodes
  double compile_seconds = 0;
  std::string config_hash;
};

}  // namespace vta::compiler
