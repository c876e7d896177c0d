#pragma once
// A max or average pool as its own pass (emit_pool.cpp).
#include <cstdint>
#include <vector>

#include "codegen/emitter.h"
#include "vta/compiler/ir/graph.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/config.h"
#include "vta/isa/fields.h"

namespace vta::compiler::codegen {

// Max or average pooling, per (batch block, channel block) plane in bands of
// th output rows of tw columns (pool_band(): whole rows while one fits an
// ACC half): the band's input rows go into ACC through ACC_8BIT loads
// (zero padding), and the output rows after them. Compute and store only,
// with the store->compute protocol of emit_add. A position is ro ACC_8BIT
// elements (out_per_pos()), folded alike.
//   Average pooling (and a max pool with s < k - 1): the output rows are
// initialised (-128 for max, 0 for average), and one ALU instruction with a
// uop per window offset folds the window in (MAX or ADD); average pooling
// then requantizes.
//   Max pooling with s >= k - 1 (ResNet's 3x3 stride 2) is separable, in
// fewer ALU passes: each input row's column s x takes the max of its k
// columns in place (one MAX per kw from k - 1 down: a source column is
// either never a destination, or the destination of a later iteration of
// the same instruction, so every source is read before it is written); the
// output rows then copy the row s y (reset and ADD) and take the MAX of rows
// s y + 1 .. s y + k - 1. Per output: 2 k + 2 (k - 1) (ih / th) ALU cycles
// against 2 k k + 2. pool_uops() counts the uops of either form.
//   With alu.concurrent, a separable max pool whose band fits an INP half
// (pool_by_gemm()) loads its bands as INP elements in the load module and
// copies them into ACC by an identity GEMM, one band ahead of the ALU
// passes (two more uops: pool_layer_uops()).
void emit_pool(Emitter& e, const Node& n, const Shape& in, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout);

}  // namespace vta::compiler::codegen
