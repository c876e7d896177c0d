#pragma once
// The constants of a conv/dense layer in their DRAM layouts (constants.cpp).
#include <cstdint>
#include <functional>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/config.h"

namespace vta::compiler::codegen {

// WGT elements [cob ro][cib ri][k][k] (block_out x block_in each); depthwise
// (square arrays only): [cob][k][k], each block diagonal.
std::vector<uint8_t> pack_weights(const Node& n, const Shape& in, const ConvGeom& g, const Config& c);
// One int32 per output channel as ACC elements (the bias, the shift row).
std::vector<uint8_t> pack_channels(const Node& n, const ConvGeom& g, const Config& c,
                                   const std::function<int32_t(int64_t)>& value);

}  // namespace vta::compiler::codegen
