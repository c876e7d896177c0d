#pragma once
// The blocked DRAM layout of activations (blocked_layout.cpp): NCHW <->
// [N/batch][C/block][H][W][batch][block], block = act_block().
#include <algorithm>
#include <cstdint>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// Channels per blocked position of an activation: max(block_in, block_out).
/// With block_in != block_out (batch 1 only) one position is act_block /
/// block_in INP elements and act_block / block_out OUT (and ACC_8BIT)
/// elements, one after another.
inline int64_t act_block(const Config& c) { return std::max(c.gemm.block_in, c.gemm.block_out); }
/// INP and OUT elements per blocked position.
inline int64_t inp_per_pos(const Config& c) { return act_block(c) / c.gemm.block_in; }
inline int64_t out_per_pos(const Config& c) { return act_block(c) / c.gemm.block_out; }

/// Blocked DRAM layout of an activation: [N/batch][C/block][H][W] positions,
/// each batch x block values of dtype.inp_bits (= dtype.out_bits) packed as
/// elem_pack.h packs them (block = act_block(); square arrays: an INP, OUT
/// or ACC_8BIT element).
struct Blocked {
  int64_t nb, cb, h, w;  // element grid
  int64_t batch, block;  // element shape
  int bits = 8;          // bits a value
  int64_t elems() const { return nb * cb * h * w; }
  int64_t bytes() const { return elems() * batch * block * bits / 8; }
};
Blocked blocked(const Shape& s, const Config& c);
/// NCHW values -> blocked bytes (zero padding) and back.
std::vector<uint8_t> pack(const Tensor& t, const Config& c);
Tensor unpack(const std::vector<uint8_t>& bytes, const Shape& s, const Config& c);

}  // namespace vta::compiler
