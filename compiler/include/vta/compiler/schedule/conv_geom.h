#pragma once
// Geometry of a conv/dense layer in blocks (conv_geom.cpp), shared by the
// tile search, the cost formulas, fusion and codegen; and the geometry of the
// pools' own passes.
#include <algorithm>
#include <array>
#include <vector>

#include "vta/compiler/ir/network.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/isa/config.h"
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
  // A max pool fused into the epilogue (fused_pool()): its window, stride
  // and padding, its output rows and columns; pk 0: none. Tiles are whole
  // rows (tw = wo) of a multiple of ps conv rows, so a tile's pooled rows
  // read only its own rows and the pp = pk - ps rows above it: the last pp
  // rows of the tile before it (for_each_tile()), still in the other ACC half.
  // The conv's rows (ho) end at the last one a pooled row reads, so that
  // the last tile has pooled rows too.
  int64_t pk = 0, ps = 1, pp = 0, pho = 0, pwo = 0;
  // The pool runs on the accumulators and the requantization only on its
  // output (pool_before_requant()); else on the requantized tile.
  bool pool_first = false;
};
/// Dense is a 1x1 convolution over a 1x1 image of all flattened inputs;
/// `add`: the node fused into its epilogue, if any: a residual Add
/// (fused_add()) or a max pool (fused_pool()).
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
/// A fused max pool's uop banks (each toc ro uops in each ACC half): the
/// left border column's k - pp - 1 column offsets (pp > 0); the k - 1 column
/// offsets; the pooled rows alone; k row offsets, and for the pp rows above
/// the tile the first pooled row's offsets into the other half (its other
/// rows read this half from the second pooled row on); all twice with a left
/// border (its column 0 apart).
inline int64_t pool_banks(const ConvGeom& g) {
  if (g.pk == 0) return 0;
  return (g.pp > 0 ? g.pk - g.pp - 1 : 0) + (g.pk - 1) + 1 + (g.pk + g.pp) * (1 + (g.pp > 0 ? 1 : 0));
}
inline int64_t conv_uops(const Tile& t, const ConvGeom& g, bool residual = false) {
  return conv_banks(t, g).total +
         (4 + (residual || g.scratch ? 4 : 0) + (g.scratch ? 2 : 0) + (g.t_rows ? 4 : 2) * g.rows +
          (g.bias_gemm ? 4 : 0) + (g.skip_gemm ? 4 : 0) + (g.scratch2 ? 6 + 2 * g.rows : 0) +
          (g.scratch3 ? 6 + 2 * g.rows : 0) + 2 * pool_banks(g)) *
             t.toc * g.ro;
}
/// A fused pool's output rows from a tile of th conv rows (the last tile of
/// a column may be shorter; the pooled rows after it read padding only),
/// and at most from a tile of `t`: the rows of its pooled output in ACC.
inline int64_t pool_rows(const ConvGeom& g, int64_t th) { return std::min(g.pho, (th + g.pp) / g.ps); }
inline int64_t pool_rmax(const ConvGeom& g, const Tile& t) { return pool_rows(g, t.th); }
/// ACC elements of one channel block of a tile of `t`.
inline int64_t tile_area(const ConvGeom& g, const Tile& t) { return t.th * t.tw * g.ro; }
/// A fused pool's column pass: the output columns from x0 = pp (column 0
/// is the left border's) whose window column kw lies inside the conv's
/// columns; the vertical pass: the pooled rows of a tile of th conv rows
/// whose window row kh lies inside the tile.
inline int64_t pool_x_end(const ConvGeom& g, int64_t kw) {
  const int64_t last = g.wo - 1 + g.pp - kw;  // s x <= last
  return last < 0 ? 0 : std::min(g.pwo, last / g.ps + 1);
}
inline int64_t pool_y_end(const ConvGeom& g, int64_t th, int64_t kh) {
  const int64_t last = th - 1 - kh + g.pp;
  return last < 0 ? 0 : std::min(pool_rows(g, th), last / g.ps + 1);
}
/// Whether a th x tw tile of tile `t` moves its toc channel blocks in one
/// STORE (and a fused Add's operand in one LOAD): full rows (tw =
/// wo) of a full-height tile (th = t.th), so that each block is one run of
/// th wo positions in DRAM and in SRAM, ho wo and t.th t.tw positions apart
/// (a 16-bit x_stride).
/// With a fused pool: the pooled rows of every channel block in one STORE,
/// where the tile has the most pooled rows.
inline bool whole_rows(const ConvGeom& g, const Tile& t, int64_t th, int64_t tw) {
  if (g.pk) return pool_rows(g, th) == pool_rmax(g, t) && g.pho * g.pwo * g.ro < (int64_t{1} << 16);
  return tw == g.wo && th == t.th && g.ho * g.wo * g.ro < (int64_t{1} << 16);
}
/// A fused Add's operand by GEMM, deferred (defers_epilogue()): tile k's
/// operand and its identity are loaded with tile k+1's first step, after that
/// step's inputs (and bias lanes) in the same INP and WGT halves, so that the
/// load tokens keep their order: that step's GEMM pops the token, and the
/// operand's GEMM (after the next tile's first GEMM, with the conv's
/// requantization before it) pushes the half's token instead of it. The
/// last tile's operand takes a step of its own at the same place in its half.
/// Whether both fit beside the step: the first INP and WGT elements they take.
struct OperandAt {
  int64_t inp = 0, wgt = 0;
};
inline OperandAt operand_at(const ConvGeom& g, const Tile& t) {
  const int64_t ih = (t.th - 1) * g.s + g.k, iw = (t.tw - 1) * g.s + g.k, bias = g.bias_gemm ? 1 : 0;
  return {(g.dw ? t.toc : t.tic) * g.ri * ih * iw + bias, t.toc * g.ro * (t.tic * g.ri * g.k * g.k + bias)};
}
inline bool operand_rides(const ConvGeom& g, const Tile& t, const Config& c) {
  const OperandAt at = operand_at(g, t);
  return g.skip_gemm && at.inp + t.toc * g.ri * t.th * t.tw <= c.derived.inp_depth / 2 &&
         at.wgt + 1 <= c.derived.wgt_depth / 2;
}
/// With alu.concurrent: a conv step whose WGT half already holds its
/// weights (the step two back, the last in that half, loaded the same
/// output and input channel blocks) loads only its inputs, and a tile's
/// first step its bias lanes only where its weights are new
/// (weights_key()). With one group of output blocks (toc = cob, or a fused
/// pool's tiles of one channel group) and one or two steps a tile, that is
/// every step after the first two: ResNet-18's stem on vta-1x32x32 then
/// reads its 12 KiB of weights and bias rows once, not once a tile. Off, every step loads them (the
/// serial machine's figures stay as they were).
inline bool reuses_weights(const Config& c) { return c.alu.concurrent; }
/// The weights a conv step loads: its first output block, first input
/// block and their counts.
using WeightsKey = std::array<int64_t, 4>;
inline WeightsKey weights_key(int64_t ob0, int64_t c0, int64_t toc, int64_t tic) { return {ob0, c0, toc, tic}; }
/// With alu.concurrent (docs/timing.md, "Concurrent ALU"): whether
/// emit_conv() emits each tile's epilogue and stores after the next tile's
/// first GEMM step, so that the ALU pipe runs them beside it (tiles alternate
/// ACC halves, the two banks). Only for tiles of several steps (with one, the
/// store would wait for the next tile's whole GEMM, rule C4, and the tile
/// after it for that store) or with a fused pool (its passes outweigh that
/// wait), and not for a depthwise conv (one step). A fused pool's pooled
/// rows are reset, and its first pooled row started from the rows above the
/// tile (window rows kh < pp, in the other half), after the tile's last GEMM
/// step, before the next tile's GEMM overwrites them; the rest of its passes
/// touch only the tile's half. A fused Add only with its operand by GEMM (an
/// ACC_8BIT load drains both pipes) and where the operand rides with the
/// next tile's first step (operand_rides()).
inline bool defers_pool(const ConvGeom& g, const Config& c) { return c.alu.concurrent && g.pk > 0 && !g.dw; }
inline bool defers_epilogue(const ConvGeom& g, const Tile& t, const Config& c, bool fused_add) {
  if (g.pk) return defers_pool(g, c);
  return c.alu.concurrent && !g.dw && g.cib > t.tic && (!fused_add || operand_rides(g, t, c));
}
/// With deferred epilogues (defers_epilogue()), a bias by GEMM, no fused
/// pool and no requantization rows in ACC: a tile's accumulators are cleared by the ALU pipe (SHR by 32, which
/// yields 0) instead of the reset GEMM, beside the previous tile's last
/// GEMM steps, so that the GEMM pipe runs only bias and conv GEMMs. Only
/// for kernels of k > 1, whose later steps outlast the clear and the store
/// it waits for (a 1x1 kernel's second step is as short as the clear).
inline bool zeroes_by_alu(const ConvGeom& g, const Tile& t, const Config& c, bool fused_add) {
  return defers_epilogue(g, t, c, fused_add) && !g.pk && g.bias_gemm && g.rows == 0 && g.k > 1;
}
/// A deferred fused Add (operand_rides()): tile k's requantization and
/// stores follow the first part of tile k+1's second GEMM step, its first
/// store_split() OUT element columns of toc ro (0: not split), so that the
/// stores run beside the second part (rule C4) and tile k+2 need not wait
/// for them. Half: on ResNet-18 a split sized to outlast the requantization
/// (so that the second part's issue never waits) measured slower on
/// vta-1x32x32's conv3/5 (148 k cycles against 137 k).
inline int64_t store_split(const ConvGeom& g, int64_t toc) { return toc * g.ro / 2; }
/// Calls f(nb, oh0, ow0, ob0) for every output tile of `t` in emit_conv()'s
/// order: rows, columns, then channel blocks; with a fused pool, channel
/// blocks, then rows (each tile right after the one above it, whose last
/// rows its pool reads from the other ACC half).
template <class F>
void for_each_tile(const ConvGeom& g, const Tile& t, F f) {
  for (int64_t nb = 0; nb < g.nb; ++nb)
    if (g.pk)
      for (int64_t ob0 = 0; ob0 < g.cob; ob0 += t.toc)
        for (int64_t oh0 = 0; oh0 < g.ho; oh0 += t.th) f(nb, oh0, int64_t{0}, ob0);
    else
      for (int64_t oh0 = 0; oh0 < g.ho; oh0 += t.th)
        for (int64_t ow0 = 0; ow0 < g.wo; ow0 += t.tw)
          for (int64_t ob0 = 0; ob0 < g.cob; ob0 += t.toc) f(nb, oh0, ow0, ob0);
}
/// The output tiles of a layer by shape: `count` tiles of th x tw positions
/// and toc output channel blocks, each accumulated in steps[0] steps of tic[0]
/// input channel blocks, then steps[1] of tic[1] (depthwise: one step of
/// toc blocks). Remainder classes first appear where `t` does not divide.
struct TileClass {
  int64_t count = 0, th = 0, tw = 0, toc = 0;
  int64_t steps[2] = {0, 0}, tic[2] = {0, 0};
};
/// The classes of a tile: at most eight (a full and a remainder size in
/// rows, columns and channel blocks), held in place, as the tile search asks
/// for them once per candidate tile.
struct TileClasses {
  TileClass at[8];
  size_t n = 0;
  const TileClass* begin() const { return at; }
  const TileClass* end() const { return at + n; }
  size_t size() const { return n; }
  const TileClass& operator[](size_t i) const { return at[i]; }
};
TileClasses tile_classes(const ConvGeom& g, const Tile& t);
/// ALU immediates of residual Add `add` fused into a conv (-1: none);
/// `skip_gemm`: its operand added by the GEMM core (ConvGeom::skip_gemm),
/// the conv's own shift and the requantization.
int residual_imm_ops(const Node* add, bool skip_gemm = false);
/// Whether conv `n`'s requantization is non-decreasing over every
/// accumulator it can produce (immediate steps on the tile alone, MUL by a
/// positive factor, and no step leaving 32 bits for int8 inputs and its
/// weights and bias), so that max(requantize(x)) = requantize(max(x)): a
/// fused max pool then pools the accumulators and requantizes only its
/// output (ConvGeom::pool_first).
bool pool_before_requant(const Node& n);

/// A max pool with stride >= k - 1 runs separably (emit_pool(): each input
/// row's k columns, then the output rows' k input rows), any other pool by
/// folding the k x k window into each output.
inline bool separable_pool(const Node& n) { return n.op == Op::MaxPool && n.pool >= 2 && n.pool_stride >= n.pool - 1; }
/// Uops of a max or average pool (both ACC halves): per half, k - 1 column
/// and k row offsets (separable) or k x k window offsets, and one for the
/// output rows alone, each out_per_pos() uops.
inline int64_t pool_uops(const Node& n, const Config& c) {
  const int64_t offsets = separable_pool(n) ? 2 * n.pool - 1 : n.pool * n.pool;
  return 2 * (offsets + 1) * out_per_pos(c);
}

/// Throws vta::Error naming layer `n` when `uops` uops (loaded once per
/// layer) do not fit the UOP buffer. The analytic estimate and codegen ask
/// the same question (pool_band(), check_add_fits()), so that a sweep's
/// stage 1 refuses a design that codegen could not build, naming the layer,
/// instead of a LOAD UOP failing in the cycle model (conv and dense layers:
/// tile_fits() counts their uops).
inline void check_layer_uops(const Node& n, int64_t uops, const Config& c) {
  if (uops > c.derived.uop_depth)
    fail(
        "layer {}: its {} needs {} uops ({} bytes), more than the UOP buffer of config {} holds (buffers.uop = {} "
        "bytes, {} uops)",
        n.name, op_name(n.op), uops, uops * c.derived.uop_elem_bytes, c.name, c.buffers.uop, c.derived.uop_depth);
}

/// The uops of a residual Add run as its own pass (emit_add(): two per ACC
/// half), and the ACC elements of one of its chunks (a quarter of the ACC
/// buffer: two operands in each half).
inline constexpr int64_t kAddUops = 4;
inline int64_t add_chunk(const Config& c) { return c.derived.acc_depth / 4; }
/// Throws vta::Error naming Add `n` when its uops do not fit the UOP buffer
/// or a chunk of it has no ACC element (one element per operand in each
/// half needs 4).
inline void check_add_fits(const Node& n, const Config& c) {
  check_layer_uops(n, kAddUops, c);
  if (add_chunk(c) < 1)
    fail(
        "layer {}: its {} needs 4 ACC elements (an operand in each half of the buffer), more than the ACC buffer of "
        "config {} holds (buffers.acc = {} bytes, {} elements)",
        n.name, op_name(n.op), c.name, c.buffers.acc, c.derived.acc_depth);
}

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
  check_layer_uops(n, pool_uops(n, c), c);
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

/// With alu.concurrent (docs/scheduling.md, "Max pools"): whether
/// emit_pool() loads a separable max pool's input bands as INP elements in
/// the load module and copies them into ACC with a GEMM by the identity
/// (square arrays, one element a position, the band within an INP half,
/// its two more uops within the UOP buffer), so that the loads and the GEMM
/// pipe run beside the previous band's ALU passes; an ACC_8BIT load would
/// drain both pipes (rule C3).
inline bool pool_by_gemm(const Node& n, const Config& c) {
  if (!c.alu.concurrent || !separable_pool(n) || c.gemm.block_in != c.gemm.block_out || inp_per_pos(c) != 1 ||
      out_per_pos(c) != 1 || c.dtype.inp_bits != c.dtype.out_bits || pool_uops(n, c) + 2 > c.derived.uop_depth)
    return false;
  const PoolBand b = pool_band(n, c);
  return ((b.th - 1) * n.pool_stride + n.pool) * b.iw <= c.derived.inp_depth / 2;
}
/// Uops emit_pool() loads: pool_uops(), and with pool_by_gemm() one copy uop per half.
inline int64_t pool_layer_uops(const Node& n, const Config& c) {
  return pool_uops(n, c) + (pool_by_gemm(n, c) ? 2 : 0);
}

}  // namespace vta::compiler
