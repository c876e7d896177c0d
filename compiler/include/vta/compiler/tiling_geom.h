#pragma once
// Geometry of a conv/dense layer in blocks, shared by tiling and codegen.
#include "vta/compiler/compile.h"

namespace vta::compiler {

struct ConvGeom {
  // Batch blocks, input and output channel blocks of act_block() channels
  // (a tile's tic and toc count these).
  int64_t nb = 1, cib = 1, cob = 1;
  // INP and OUT elements per channel block (inp_per_pos(), out_per_pos()):
  // a tile of toc x tic channel blocks multiplies toc * ro x tic * ri WGT
  // elements.
  int64_t ri = 1, ro = 1;
  int64_t h = 1, w = 1, ho = 1, wo = 1;
  int64_t k = 1, s = 1, p = 0;
  bool dw = false;  // depthwise: output block o reads only input block o (tic is 1)
  // The epilogue's scratch tile (half-to-even rounding, needs_scratch()) and
  // per-channel shift row (Node::lshift) in ACC.
  bool scratch = false, row = false;
};
/// Dense is a 1x1 convolution over a 1x1 image of all flattened inputs.
ConvGeom conv_geom(const Node& n, const Shape& in, const Config& c);
/// `residual`: a fused Add's operand takes a second tile of ACC.
bool tile_fits(const ConvGeom& g, const Tile& t, const Config& c, bool residual = false);
/// Uops of a conv/dense layer with tile `t` (emit_conv): four GEMM banks of
/// (toc ro) x (tic ri) x k x k (step and ACC parity), and per ACC half toc ro
/// epilogue uops (dst, bias row) and toc ro reset uops (dst only: a reset
/// GEMM must not name an INP or WGT element, and the bias row is an ACC
/// address); with a fused residual Add per ACC half toc ro uops (dst, its
/// operand) and toc ro (its operand alone), the same two banks for the
/// scratch tile T (A by T, T alone) and toc ro (T by A); with a shift row toc
/// ro (dst, the row).
inline int64_t conv_uops(const Tile& t, const ConvGeom& g, bool residual = false) {
  return 4 * t.toc * g.ro * t.tic * g.ri * g.k * g.k +
         (4 + (residual || g.scratch ? 4 : 0) + (g.scratch ? 2 : 0) + (g.row ? 2 : 0)) * t.toc * g.ro;
}
/// The cost model's cycles of the whole layer with tile `t`; `requant_ops` ALU
/// immediates per output tile in the epilogue (requant_imm_ops());
/// `residual_ops` >= 0: a fused residual Add with that many ALU immediates
/// (its input shifts and requantization) after its operand's load and ADD.
double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops, int residual_ops = -1);
/// ALU immediates of residual Add `add` fused into conv `conv` (-1: none).
int residual_imm_ops(const Node* add);

}  // namespace vta::compiler
