#pragma once
// Geometry of a conv/dense layer in blocks, shared by tiling and codegen.
#include <vector>

#include "vta/compiler/compile.h"
#include "vta/isa/error.h"

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
  // per-channel operand rows (requant_rows(): Node::lshift, Node::frqs) in ACC.
  bool scratch = false;
  bool scratch2 = false;  // a second scratch tile U (needs_scratch2(): three-word per-channel forms)
  bool scratch3 = false;  // a third scratch tile V (needs_scratch3(): two three-word lines)
  int rows = 0;
  bool t_rows = false;  // the rows are operands of steps on T too (AluStep::On::TbyRow)
  // Epilogue steps with a tile operand (T, a row): vector-vector ALU ops,
  // ii_vector each where an immediate op takes ii_imm.
  int vector_steps = 0;
  // The bias accumulates through a GEMM (bias_by_gemm()): each step-0 load
  // adds the constant INP element after the tile's input blocks and toc ro
  // bias WGT elements after its weights; no bias row in ACC, no ALU ADD.
  bool bias_gemm = false;
  // A fused residual Add whose operand the GEMM core adds (residual_by_gemm()):
  // one more step per tile loads it as INP elements (toc th tw) and one WGT
  // element; no ACC tile of its own.
  bool skip_gemm = false;
};
/// Dense is a 1x1 convolution over a 1x1 image of all flattened inputs;
/// `add`: the residual Add fused into it, if any.
ConvGeom conv_geom(const Node& n, const Shape& in, const Config& c, const Node* add = nullptr);
/// `residual`: a fused Add's operand takes a second tile of ACC.
bool tile_fits(const ConvGeom& g, const Tile& t, const Config& c, bool residual = false);
/// The conv GEMM uop banks of tile `t`. A tile need not divide its layer:
/// the last tile of a row of tiles may be narrower (width g.wo % t.tw) and the
/// last step of a tile may take fewer input channel blocks (g.cib % t.tic).
/// Uops name SRAM rows, so each (width, channel) class a layer uses has its
/// own bank of (toc ro) x (tic' ri) x k x k uops in each of the four parities
/// (step, ACC half) - except that a 1x1 kernel's uops never name the INP row
/// pitch, so there a narrower tile shares the full tile's bank. An INP channel
/// block keeps the full tile's pitch (ri ih iw) and an ACC channel block its
/// area (th tw ro) in every class; only the row pitch follows the width.
struct ConvBanks {
  int64_t width[2] = {0, 0}, chans[2] = {0, 0};  // the classes' widths and input channel blocks; 0: none
  int64_t at[2][2] = {}, size[2][2] = {};        // [width][channel class]: first uop, uops per parity
  int64_t total = 0;                             // uops of every conv bank
};
inline ConvBanks conv_banks(const Tile& t, const ConvGeom& g) {
  ConvBanks b;
  b.width[0] = t.tw, b.width[1] = g.wo % t.tw;
  b.chans[0] = t.tic, b.chans[1] = g.dw ? 0 : g.cib % t.tic;
  for (int w = 0; w < 2; ++w)
    for (int ch = 0; ch < 2; ++ch) {
      if (b.width[w] == 0 || b.chans[ch] == 0) continue;
      if (w == 1 && g.k == 1) {  // shares the full width's bank
        b.at[1][ch] = b.at[0][ch], b.size[1][ch] = b.size[0][ch];
        continue;
      }
      b.at[w][ch] = b.total;
      b.size[w][ch] = t.toc * g.ro * b.chans[ch] * g.ri * g.k * g.k;
      b.total += 4 * b.size[w][ch];
    }
  return b;
}
/// Uops of a conv/dense layer with tile `t` (emit_conv): the GEMM banks
/// (conv_banks()), and per ACC half toc ro epilogue uops (dst, bias row) and
/// toc ro reset uops (dst only: a reset GEMM must not name an INP or WGT
/// element, and the bias row is an ACC address); with a fused residual Add
/// per ACC half toc ro uops (dst, its operand) and toc ro (its operand alone),
/// the same two banks for the scratch tile T (A by T, T alone) and toc ro (T
/// by A); per operand row toc ro (dst, the row), twice with t_rows (T, the
/// row); with the bias by GEMM toc ro (dst, the constant INP element, a bias
/// WGT element) in each of the four parities (step, ACC half), and with the
/// operand by GEMM toc ro (dst, its INP element, the identity) in each; with
/// the second scratch tile U per ACC half toc ro each of U alone, U by A, T by
/// U, and U by each row; with the third, V, V by A, V by T, A by V and V by
/// each row.
inline int64_t conv_uops(const Tile& t, const ConvGeom& g, bool residual = false) {
  return conv_banks(t, g).total + (4 + (residual || g.scratch ? 4 : 0) + (g.scratch ? 2 : 0) +
                                   (g.t_rows ? 4 : 2) * g.rows + (g.bias_gemm ? 4 : 0) + (g.skip_gemm ? 4 : 0) +
                                   (g.scratch2 ? 6 + 2 * g.rows : 0) + (g.scratch3 ? 6 + 2 * g.rows : 0)) *
                                      t.toc * g.ro;
}
/// Whether a th x tw tile of tile `t` moves its toc channel blocks in one
/// STORE (and a fused Add's operand in one LOAD): full rows (tw =
/// wo) of a full-height tile (th = t.th), so that each block is one run of
/// th wo positions in DRAM and in SRAM, ho wo and t.th t.tw positions apart
/// (a 16-bit x_stride).
inline bool whole_rows(const ConvGeom& g, const Tile& t, int64_t th, int64_t tw) {
  return tw == g.wo && th == t.th && g.ho * g.wo * g.ro < (int64_t{1} << 16);
}
/// The output tiles of a layer by shape: `count` tiles of th x tw positions
/// and toc output channel blocks, each accumulated in steps[0] steps of tic[0]
/// input channel blocks, then steps[1] of tic[1] (depthwise: one step of
/// toc blocks). Remainder classes first appear where `t` does not divide.
struct TileClass {
  int64_t count = 0, th = 0, tw = 0, toc = 0;
  int64_t steps[2] = {0, 0}, tic[2] = {0, 0};
};
std::vector<TileClass> tile_classes(const ConvGeom& g, const Tile& t);
/// The cost model's cycles of the whole layer with tile `t`; `requant_ops` ALU
/// immediates per output tile in the epilogue (requant_imm_ops());
/// `residual_ops` >= 0: a fused residual Add with that many ALU immediates
/// (its input shifts and requantization) after its operand's load and ADD.
double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops, int residual_ops = -1);
/// ALU immediates of residual Add `add` fused into a conv (-1: none);
/// `skip_gemm`: its operand added by the GEMM core (ConvGeom::skip_gemm),
/// the conv's own shift and the requantization.
int residual_imm_ops(const Node* add, bool skip_gemm = false);

/// A max pool with stride >= k - 1 runs separably (emit_pool(): each input
/// row's k columns, then the output rows' k input rows), any other pool by
/// folding the k x k window into each output.
inline bool separable_pool(const Node& n) { return n.op == Op::MaxPool && n.pool >= 2 && n.pool_stride >= n.pool - 1; }
/// The band of a max or average pool's output that one ACC half holds: th
/// output rows of tw output columns, with the (th - 1) s + k input rows of
/// (tw - 1) s + k columns they read (row pitch iw) before them. Whole rows
/// (tw = wo) while one fits; else one row of the widest tw that divides wo
/// (every band then has the same input pitch, which the uops encode). Throws
/// vta::Error when even one output column does not fit.
struct PoolBand {
  int64_t th = 1, tw = 1, iw = 1;
};
inline PoolBand pool_band(const Node& n, const Config& c) {
  const int64_t k = n.pool, s = n.pool_stride, ho = n.out.h, wo = n.out.w;
  const int64_t acc_half = c.derived.acc_depth / 2, ro = out_per_pos(c);
  auto fits = [&](int64_t th, int64_t tw) {
    return (((th - 1) * s + k) * ((tw - 1) * s + k) + th * tw) * ro <= acc_half;
  };
  PoolBand b;
  if (fits(1, wo)) {
    b.tw = wo;
    while (b.th < ho && fits(b.th + 1, wo)) ++b.th;
  } else {
    for (int64_t tw = wo - 1; tw >= 1 && b.tw == 1; --tw)
      if (wo % tw == 0 && fits(1, tw)) b.tw = tw;
    if (!fits(1, b.tw)) fail("layer {}: one output column of the pool does not fit half of the ACC buffer", n.name);
  }
  b.iw = (b.tw - 1) * s + k;
  return b;
}

/// Uops of a max or average pool (both ACC halves): per half, k - 1 column
/// and k row offsets (separable) or k x k window offsets, and one for the
/// output rows alone, each out_per_pos() uops.
inline int64_t pool_uops(const Node& n, const Config& c) {
  const int64_t offsets = separable_pool(n) ? 2 * n.pool - 1 : n.pool * n.pool;
  return 2 * (offsets + 1) * out_per_pos(c);
}

}  // namespace vta::compiler
