#pragma once
// The GEMM instruction's loop nest on the datapath's SRAM arrays (private to
// vta_model): acc[b][o] += sum_k inp[b][k] * wgt[o][k], the accumulator
// wrapping around at dtype.acc_bits, OUT taking its low dtype.out_bits
// (both sign-extended; docs/design.md, "Data types"). The INP, WGT and OUT
// buffers hold one int16 per value, whatever the width.
//
// The weights are held packed in pairs of int16 (packed[e][k/2][o][2] =
// wgt[e][o][k], wgt[e][o][k+1]; a missing k+1 is 0), so that one
// multiply-add of int16 pairs into int32 lanes (x86's pmaddwd, or VNNI's
// vpdpwssd, which also adds) does two MACs per output channel. Operands of
// up to 16 bits: each product fits int32 and the pair's sum is exact modulo
// 2^32 (only -32768 x -32768 twice reaches 2^31, which wraps as an int32
// accumulator does), so the result is exact at every accumulator width.
#include <cstdint>

#include "vta/model/datapath.h"

namespace vta::model::gemm {

/// The operands of one GEMM instruction's loop nest.
struct Loop {
  const Uop* uop;
  uint32_t bgn, end, io, ii, dfo, dfi, sfo, sfi, wfo, wfi;
  int32_t* acc;          // ACC buffer
  int16_t* out;          // OUT buffer
  const int16_t* inp;    // INP buffer
  const int16_t* wpack;  // packed WGT buffer (packed_elems() per element)
  int64_t batch, bi, bo;
  int acc_shift, out_shift;  // 32 - dtype.acc_bits, 32 - dtype.out_bits
};

/// int16 values per packed WGT element.
inline int64_t packed_elems(int64_t block_in, int64_t block_out) { return (block_in + 1) / 2 * 2 * block_out; }

/// Packs `count` WGT elements of `wgt` (block_out rows of block_in values) into `packed`.
void pack(const int16_t* wgt, int16_t* packed, uint64_t count, int64_t block_in, int64_t block_out);

using Fn = void (*)(const Loop&);
/// A loop nest compiled for the shape where it is a common one (the widest
/// SIMD registers the build's target has), a generic one otherwise.
/// `acc_shift`, `out_shift`: Loop's; upstream's widths (0, 24) get kernels
/// with the shifts as constants.
Fn pick(int64_t block_in, int64_t block_out, int acc_shift, int out_shift);

}  // namespace vta::model::gemm
