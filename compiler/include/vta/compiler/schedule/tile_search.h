#pragma once
// The per-layer tile search (tile_search.cpp): the cost model of one tile
// shape over a layer (docs/timing.md) and the cheapest tile that fits.
#include <string>
#include <vector>

#include "vta/compiler/ir/network.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// The cost model's cycles of the whole layer with tile `t`; `requant_ops` ALU
/// immediates per output tile in the epilogue (requant_imm_ops());
/// `residual_ops` >= 0: a fused residual Add with that many ALU immediates
/// (its input shifts and requantization) after its operand's load and ADD.
double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops, int residual_ops = -1);
/// Whether emit_conv() splits the GEMM step that a deferred fused Add's
/// second part follows (store_split(); the tile timeline follows): on maps
/// of at least 28x28 output positions (per batch band). Measured on
/// ResNet-18, the split pays on conv3/5 and conv8/10 (56x56, 28x28: up to
/// 7 %) and costs about 1 % on the 14x14 conv13/15 and on vta-4x16x16's
/// 7x28 bands of conv8/10 (likely: the stores then run beside the loads that
/// nearly bound those layers); the cost model predicts a gain on all of
/// them, so it cannot make the choice: an empirical rule.
bool splits_stores(const ConvGeom& g, const Tile& t, const Config& c, bool fused_add);
/// The cost model's cycles of a fused pool's passes over a tile of th conv
/// rows and toc channel blocks (its reset GEMM and ALU ops).
double tile_pool_cycles(const ConvGeom& g, int64_t th, int64_t toc, const Config& c);
/// The best tile for a conv/dense node on `c` (memoised by the layer's shape
/// and search_knobs(c));
/// `add`: the node fused into its epilogue (fused_epilogue()), if any.
Tile choose_tile(const Node& n, const Shape& in, const Config& c, const Node* add = nullptr);
/// The cost model's best `count` tiles for the same layer, cheapest first
/// (the first is choose_tile()'s); fewer where fewer fit. Not memoised.
std::vector<Tile> tile_candidates(const Node& n, const Shape& in, const Config& c, const Node* add, int count);
/// The key a layer's tile is chosen under: its shape in blocks, its epilogue
/// and the config hash (the memo key of choose_tile(), and of
/// CompileOptions::tiles).
std::string tile_key(const Node& n, const Shape& in, const Config& c, const Node* add = nullptr);
/// The knobs of `c` the search reads, as raw bytes (a memo key, not text):
/// every knob of config_knobs.def but the host's and the OpenCL target's
/// and, at a fixed-latency port (memory.dram = fixed), the clock: a DRAM
/// preset's time is in ns and the clock converts it to cycles, a fixed
/// port's is in cycles already. TileMemo.* (test_tile_memo.cpp) checks, knob
/// by knob of the table, that one left out changes no tile.
std::string search_knobs(const Config& c);
/// A sweep's GEMM pipeline depths (its gemm.pipeline_depth axis): where
/// choose_tile() misses its memo at one of them, it searches at up to three
/// more of them at once, each candidate's timeline computed for all in
/// lanes, and memoises each, for the designs that differ from `c` in the
/// depth alone. The tiles are those of searching at each depth on its own
/// (TileMemo.DepthLanesPickEachDepthsOwnTile). Empty (the default): none.
void set_search_depths(std::vector<int64_t> depths);
/// A sweep's clocks (its clock.mhz axis): the search keeps the bounds of
/// the designs at the lowest of them as floors under those of the designs
/// that differ from them in a higher clock alone, with a DRAM preset (whose
/// latency and time per byte in core cycles only grow with the clock), so
/// that most candidates are ruled out there once for every clock. The tiles
/// are those of searching each design on its own
/// (TileMemo.FloorsKeptAcrossMemoryKnobsPickTheSearchsTile). Empty (the
/// default): none.
void set_search_clocks(const std::vector<double>& mhz);

}  // namespace vta::compiler
