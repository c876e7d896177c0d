#pragma once
// Geometry of a conv/dense layer in blocks, shared by tiling and codegen.
#include "vta/compiler/compile.h"

namespace vta::compiler {

struct ConvGeom {
  int64_t nb = 1, cib = 1, cob = 1;  // batch blocks, input and output channel blocks
  int64_t h = 1, w = 1, ho = 1, wo = 1;
  int64_t k = 1, s = 1, p = 0;
  bool dw = false;  // depthwise: output block o reads only input block o (tic is 1)
};
/// Dense is a 1x1 convolution over a 1x1 image of all flattened inputs.
ConvGeom conv_geom(const Node& n, const Shape& in, const Config& c);
bool tile_fits(const ConvGeom& g, const Tile& t, const Config& c);
/// The cost model's cycles of the whole layer with tile `t`; `requant_ops` ALU
/// immediates per output tile in the epilogue (requant_imm_ops()).
double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops);

}  // namespace vta::compiler
