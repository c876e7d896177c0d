#pragma once
// A conv/dense layer with its fused epilogue (emit_conv.cpp).
#include <cstdint>
#include <vector>

#include "codegen/emitter.h"
#include "vta/compiler/ir/network.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/config.h"
#include "vta/isa/fields.h"

namespace vta::compiler::codegen {

// Conv2d / Dense. Writes the layer's uops to `uops`. A channel block is
// g.ri INP and g.ro OUT elements per position, adjacent in SRAM as in DRAM.
// `add`: a residual Add fused into the epilogue (fused_add()): its other
// operand (at a.in2) is loaded into a second ACC tile after the conv's
// requantization, both are shifted to the common scale, added and
// requantized, and the tile is stored as the Add's output (a.out); with
// g.skip_gemm the operand is an INP tile that a GEMM by 2^shift I adds.
// Or `fused` is a max pool (fused_pool(), ConvGeom::pk): the tiles are whole
// rows, channel block columns first (for_each_tile()). After the
// requantization each conv row's columns are max-pooled in place as
// emit_pool()'s separable form does (the left border column, whose window is
// clipped, first); the pooled rows, after the tiles in ACC, are reset and
// take the ADD of their window row pp (always inside) and the MAX of the
// others (column 0 apart where it is the border's). The pp rows above a tile
// are the last rows of the tile before it, still in the other ACC half
// (compute is in order, and the tile after this one, which rewrites that
// half, comes later); above the top tile they are padding, which never wins.
// Where the requantization is non-decreasing (g.pool_first,
// pool_before_requant()) all this runs on the accumulators, before it, and
// only the pooled rows are requantized. Only the pooled rows are stored (at
// a.out, the pool's map).
void emit_conv(Emitter& e, const Node& n, const ConvGeom& g, const Tile& t, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout, const Node* fused);

}  // namespace vta::compiler::codegen
