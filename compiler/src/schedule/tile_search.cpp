// Per-layer tile search. A tile is th x tw output positions of toc output
// channel blocks, accumulated over the input channels in steps of tic blocks;
// none of the four need divide the layer (the last tile of a row, column or
// channel range and the last step of a tile are smaller: tile_classes(), with
// their own uop banks where the uops would differ: conv_banks()).
// Each SRAM is split in two halves (double buffering: two virtual threads
// alternate so that the loads of one step overlap the GEMM of the other), so
// a tile must fit half of each buffer. Among the tiles that fit, the cost
// model picks the cheapest: the load, compute and store modules' timelines
// over the layer's steps and tiles under the rules of docs/timing.md
// (tile_timeline()), evaluated where a bound (tile_bound()) could beat the
// best so far. Results are memoised by the layer's shape and the knobs the
// search reads (search_knobs()), so designs that differ only in knobs it
// does not read share them; the tiles that fit (fit_candidates()) by the
// shape and the knobs that choose them, their bounds (kept_bounds()) by
// every search knob but the GEMM pipeline depth, floors under the bounds
// (fastest_memory()) by every search knob but the depth, the memory's and
// the clock, and the bounds at a sweep's lowest clock as floors for its
// higher clocks (lowest_clock()), so that a sweep's designs share the parts
// of the search their knobs do not change.
#include "vta/compiler/schedule/tile_search.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "schedule/lanes.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/memory_time.h"
#include "vta/isa/config_key.h"
#include "vta/isa/error.h"
#include "vta/sim/dram/config.h"

namespace vta::compiler {

namespace {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

// The last few results of a pure function of integer arguments: the
// timeline asks the same questions tile after tile (the tiles of a row share
// their rows inside the image, the tiles of a channel range their shape),
// and the answers cost divisions and DRAM table lookups.
template <int N, int K, class V = double>
class Recent {
 public:
  template <class F>
  V get(const std::array<int64_t, K>& key, F f) {
    for (int i = 0; i < used_; ++i)
      if (keys_[i] == key) return values_[i];
    const V v = f();
    keys_[next_] = key, values_[next_] = v;
    next_ = (next_ + 1) % N, used_ = std::min(used_ + 1, N);
    return v;
  }

 private:
  std::array<std::array<int64_t, K>, N> keys_{};
  std::array<V, N> values_{};
  int used_ = 0, next_ = 0;
};

// The cost model's parts of one tile shape (docs/timing.md rules, bytes over
// the bus): a step's loads (load module) and GEMM, and per tile the compute
// module's head (bias row load or bias GEMM, reset GEMM) and tail (the epilogue's ALU
// passes, a fused Add's operand loads), and the store. V: double, or Lanes
// (lanes.h) of GEMM pipeline depths P: the parts that take P cycles a GEMM
// instruction are V, the rest double (the same for every lane).
template <class V>
struct Parts {
  const ConvGeom& g;
  const Config& c;
  int requant_ops, residual_ops;
  MemoryTime mem;  // the port's and the DRAM's time (memory_time.h)
  double B, rl, wl, groups;
  V P;  // gemm.pipeline_depth
  Parts(const ConvGeom& geo, const Config& cfg, int rq, int res)
      : Parts(geo, cfg, rq, res, V(static_cast<double>(cfg.gemm.pipeline_depth))) {}
  Parts(const ConvGeom& geo, const Config& cfg, int rq, int res, const V& depths)
      : g(geo),
        c(cfg),
        requant_ops(rq),
        residual_ops(res),
        mem(cfg),
        B(mem.bus()),
        rl(mem.read_latency()),
        wl(mem.write_latency()),
        groups(static_cast<double>((cfg.gemm.batch * cfg.gemm.block_out + cfg.alu.lanes - 1) / cfg.alu.lanes)),
        P(depths) {}
  // (oh0, ow0): the tile's first output row and column; -1: any tile of
  // this shape, at its cheapest (for tile_bound()).
  double load(int64_t th, int64_t tw, int64_t toc, int64_t tic, int64_t oh0 = -1, int64_t ow0 = -1) const {
    // Rules 9 and 11: the load module's LOADs run one after another, each
    // an issue cycle, the read latency and its rows' beats.
    const std::array<int64_t, 7> key{th, tw, toc, tic, inside(oh0, th, g.h), inside(ow0, tw, g.w), oh0 < 0};
    return loads_.get(key, [&] {
      return inp_load(th, tw, toc, tic, oh0, ow0) + dma(toc * g.ro, tic * g.ri * g.k * g.k * c.derived.wgt_elem_bytes);
    });
  }
  mutable Recent<4, 7> loads_;
  // The input rows (or columns) inside the image of the window of `n`
  // output rows from `o0` over `extent` input rows; o0 < 0: the fewest.
  int64_t inside(int64_t o0, int64_t n, int64_t extent) const {
    const int64_t span = (n - 1) * g.s + g.k;
    if (o0 < 0) return std::max<int64_t>(0, std::min(span, extent) - 2 * g.p);
    const int64_t lo = std::max<int64_t>(0, o0 * g.s - g.p), hi = std::min(extent, o0 * g.s - g.p + span);
    return std::max<int64_t>(0, hi - lo);
  }
  // The INP part of a step's loads (before its WGT load): the rows inside
  // the image from DRAM, the padding zero-filled at pad_elems_per_cycle
  // (rule 9; free in the bound).
  double inp_load(int64_t th, int64_t tw, int64_t toc, int64_t tic, int64_t oh0 = -1, int64_t ow0 = -1) const {
    const int64_t ih = (th - 1) * g.s + g.k, iw = (tw - 1) * g.s + g.k;
    const int64_t rows = inside(oh0, th, g.h), cols = inside(ow0, tw, g.w);
    const int64_t in_blocks = g.dw ? toc : tic;
    const double pads = oh0 < 0 ? 0.0
                                : std::ceil(static_cast<double>((ih * iw - rows * cols) * g.ri) /
                                            static_cast<double>(c.memory.pad_elems_per_cycle));
    return static_cast<double>(in_blocks) * (pads + dma(rows, cols * g.ri * c.derived.inp_elem_bytes));
  }
  // Beats of the read bursts granted while the INP loads stream: up to
  // outstanding_reads bursts of an INP row (rules 11 to 13).
  double inp_granted_beats(int64_t th, int64_t tw) const {
    const int64_t ih = (th - 1) * g.s + g.k, iw = (tw - 1) * g.s + g.k;
    const double row = std::ceil(static_cast<double>(iw * g.ri * c.derived.inp_elem_bytes) / B);
    return static_cast<double>(std::min<int64_t>(c.memory.outstanding_reads, ih)) *
           std::min(row, static_cast<double>(c.memory.max_burst));
  }
  double dma(int64_t rows, int64_t row_bytes) const {
    return 1.0 + rl + mem.rows(static_cast<double>(rows), static_cast<double>(row_bytes));
  }
  // Beats of the read bursts a streaming load module has in flight: up to
  // outstanding_reads bursts of a WGT row (rules 11 to 13).
  double granted_beats(int64_t toc, int64_t tic) const {
    const double row = std::ceil(static_cast<double>(tic * g.ri * g.k * g.k * c.derived.wgt_elem_bytes) / B);
    const double burst = std::min(row, static_cast<double>(c.memory.max_burst));
    return static_cast<double>(std::min<int64_t>(c.memory.outstanding_reads, toc * g.ro)) * burst;
  }
  V gemm(int64_t th, int64_t tw, int64_t toc, int64_t tic) const {
    return static_cast<double>(toc * g.ro * tic * g.ri * g.k * g.k * th * tw) + P;
  }
  double area(int64_t th, int64_t tw, int64_t toc) const { return static_cast<double>(toc * g.ro * th * tw); }
  // The reset GEMM, the bias row's ACC load unless the bias is a GEMM, and
  // one ACC load per operand row.
  V head(int64_t th, int64_t tw, int64_t toc) const {
    return heads_.get({th, tw, toc}, [&] { return head_of(th, tw, toc); });
  }
  mutable Recent<2, 3, V> heads_;
  V head_of(int64_t th, int64_t tw, int64_t toc) const {
    const double row = mem.bytes(static_cast<double>(toc * g.ro * c.derived.acc_elem_bytes)) + rl;
    return area(th, tw, toc) + P + (g.bias_gemm ? 0.0 : row) + static_cast<double>(g.rows) * (1.0 + row);
  }
  // zeroes_by_alu(): the ALU pipe's clear of a tile's accumulators (SHR by 32).
  double zero(int64_t th, int64_t tw, int64_t toc) const {
    return area(th, tw, toc) * groups * static_cast<double>(c.alu.ii_imm) + static_cast<double>(c.alu.latency);
  }
  // A bias by GEMM: its loads (load module, a tile's first step) and its
  // GEMM (after the first step's loads, before its conv GEMM).
  double bias_load(int64_t toc) const {
    return g.bias_gemm ? dma(1, c.derived.inp_elem_bytes) + dma(1, toc * g.ro * c.derived.wgt_elem_bytes) : 0.0;
  }
  V bias_gemm(int64_t th, int64_t tw, int64_t toc) const { return g.bias_gemm ? area(th, tw, toc) + P : V(0.0); }
  // ALU instructions of the conv's own epilogue: the bias ADD (unless a GEMM) and the requantization.
  int64_t epilogue_ops() const { return (g.bias_gemm ? 0 : 1) + requant_ops; }
  // `whole`: whole_rows(), one ACC_8BIT load and one STORE for all toc blocks.
  V tail(int64_t th, int64_t tw, int64_t toc, bool whole) const {
    return tails_.get({th, tw, toc, whole}, [&] { return tail_of(th, tw, toc, whole); });
  }
  mutable Recent<2, 4, V> tails_;
  V tail_of(int64_t th, int64_t tw, int64_t toc, bool whole) const {
    const double ar = area(th, tw, toc);
    // A fused pool on the accumulators: the requantization over its output only.
    const double rq = g.pool_first ? static_cast<double>(toc * g.ro * pool_rows(g, th) * g.pwo) : ar;
    double e = ar * groups * static_cast<double>(g.bias_gemm ? 0 : c.alu.ii_vector) +
               rq * groups *
                   static_cast<double>(requant_ops * c.alu.ii_imm + g.vector_steps * (c.alu.ii_vector - c.alu.ii_imm)) +
               static_cast<double>(epilogue_ops() + 1) * static_cast<double>(c.alu.latency);
    // A fused Add's operand by GEMM (operand_load(), operand_gemm()): its immediates.
    if (skip())
      e += ar * groups * static_cast<double>(residual_ops * c.alu.ii_imm) +
           static_cast<double>(residual_ops) * static_cast<double>(c.alu.latency);
    // A fused Add's operand: one ACC_8BIT load per channel block, its ADD and
    // immediates. The loads share the read port with the next steps' INP and
    // WGT loads (rule 14, round robin per burst), which hold it for the bursts
    // already granted and then yield part of it: about two thirds of its
    // bandwidth (fitted on the fused layers of ResNet-18/50 on the three
    // presets: 1.5 beats a beat; 2 overestimated them by up to 12 %).
    else if (residual_ops >= 0)
      e += static_cast<double>(whole ? 1 : toc) * (1.0 + rl) +
           mem.bytes(1.5 * ar * static_cast<double>(c.derived.out_elem_bytes)) +
           ar * groups * static_cast<double>(c.alu.ii_vector + residual_ops * c.alu.ii_imm) +
           static_cast<double>(1 + residual_ops) * static_cast<double>(c.alu.latency);
    return e + pool_tail(th, toc);
  }
  // A fused max pool's passes (emit_conv()): the column pass (the left
  // border column's first), the pooled rows' reset GEMM and the vertical
  // pass, each ALU op a vector op over its loop.
  V pool_tail(int64_t th, int64_t toc) const {
    if (g.pk == 0) return V(0.0);
    const double to = static_cast<double>(toc * g.ro);
    auto op = [&](int64_t iters) {
      return iters > 0 ? static_cast<double>(c.alu.latency) +
                             static_cast<double>(iters) * to * groups * static_cast<double>(c.alu.ii_vector)
                       : 0.0;
    };
    const int64_t R = pool_rows(g, th), x0 = g.pp;
    V e = to * static_cast<double>(R * g.pwo) + P;
    if (g.pp > 0)
      for (int64_t j = 1; j < std::min(g.pk - g.pp, g.wo); ++j) e += op(th);
    for (int64_t kw = 1; kw < g.pk; ++kw) e += op(th * (pool_x_end(g, kw) - x0));
    for (int64_t kh = 0; kh < g.pk; ++kh) {
      // A row above the tile: the first pooled row's op apart (none for the top tile; counted).
      const int64_t y = pool_y_end(g, th, kh), parts = kh < g.pp ? 2 : 1;
      e += op(y * (g.pwo - x0)) + (x0 > 0 ? op(y) : 0.0) +
           static_cast<double>((parts - 1) * (1 + x0)) * static_cast<double>(c.alu.latency);
    }
    return e;
  }
  int64_t pool_insns() const { return pool_banks(g); }
  // The pooled rows' reset GEMM (part of pool_tail()).
  V pool_reset(int64_t th, int64_t toc) const { return static_cast<double>(toc * g.ro * pool_rows(g, th) * g.pwo) + P; }
  // Deferred (defers_pool()): the first pooled row's ops on the rows above the tile (window rows kh < pp).
  double pool_cross(int64_t toc) const {
    const double to = static_cast<double>(toc * g.ro), A = static_cast<double>(c.alu.latency);
    const double iiv = groups * static_cast<double>(c.alu.ii_vector);
    return static_cast<double>(g.pp) *
           (A + static_cast<double>(g.pwo - g.pp) * to * iiv + (g.pp > 0 ? A + to * iiv : 0.0));
  }
  // The last op of a fused pool's passes (the deferred epilogue's): the
  // requantization's last immediate over the pooled rows, or the vertical
  // pass's last op (column 0's where the left border makes it apart).
  double pool_last_op(int64_t th, int64_t toc, bool requant = true) const {
    const double to = static_cast<double>(toc * g.ro), R = static_cast<double>(pool_rows(g, th));
    if (requant && g.pool_first && requant_ops > 0)
      return to * R * static_cast<double>(g.pwo) * groups * static_cast<double>(c.alu.ii_imm) +
             static_cast<double>(c.alu.latency);
    return to * R * static_cast<double>(g.pp > 0 ? 1 : g.pwo) * groups * static_cast<double>(c.alu.ii_vector) +
           static_cast<double>(c.alu.latency);
  }
  // A fused pool on the accumulators: its requantization over the pooled rows (part of tail()).
  double pool_requant(int64_t th, int64_t toc) const {
    if (!g.pool_first) return 0.0;
    const double rq = static_cast<double>(toc * g.ro * pool_rows(g, th) * g.pwo);
    return rq * groups *
               static_cast<double>(requant_ops * c.alu.ii_imm + g.vector_steps * (c.alu.ii_vector - c.alu.ii_imm)) +
           static_cast<double>(requant_ops) * static_cast<double>(c.alu.latency);
  }
  // One STORE per output channel block (rule 10: issue, beats, WL each).
  double store_one(int64_t th, int64_t tw) const {
    return 2.0 + mem.rows(static_cast<double>(th), static_cast<double>(tw * g.ro * c.derived.out_elem_bytes)) + wl;
  }
  double store(int64_t th, int64_t tw, int64_t toc, bool whole) const {
    return stores_.get({th, tw, toc, whole}, [&] { return store_of(th, tw, toc, whole); });
  }
  mutable Recent<2, 4> stores_;
  double store_of(int64_t th, int64_t tw, int64_t toc, bool whole) const {
    if (g.pk) {  // the pooled rows: one run of R pwo positions per block
      const double run = mem.rows(1, static_cast<double>(pool_rows(g, th) * g.pwo * g.ro * c.derived.out_elem_bytes));
      return whole ? 2.0 + static_cast<double>(toc) * run + wl : static_cast<double>(toc) * (2.0 + run + wl);
    }
    if (!whole) return static_cast<double>(toc) * store_one(th, tw);
    return 2.0 + mem.rows(static_cast<double>(toc), static_cast<double>(th * tw * g.ro * c.derived.out_elem_bytes)) +
           wl;
  }
  // Instructions the compute module queues after a tile's last GEMM.
  int64_t tail_insns(int64_t toc, bool whole) const {
    if (skip()) return epilogue_ops() + 1 + residual_ops;
    return epilogue_ops() + (residual_ops >= 0 ? 1 + residual_ops + (whole ? 1 : toc) : 0) + pool_insns();
  }
  // A fused Add's operand by GEMM: its step's loads (INP blocks, the identity) and GEMM.
  bool skip() const { return residual_ops >= 0 && g.skip_gemm; }
  double operand_load(int64_t th, int64_t tw, int64_t toc, bool whole) const {
    const int64_t e = g.ri * c.derived.inp_elem_bytes;
    return (whole ? dma(toc, th * tw * e) : static_cast<double>(toc) * dma(th, tw * e)) +
           dma(1, c.derived.wgt_elem_bytes);
  }
  V operand_gemm(int64_t th, int64_t tw, int64_t toc) const { return area(th, tw, toc) + P; }
};

// A bound no schedule of tile `t` beats (its classes [begin, end)), from
// the modules' busy cycles and what cannot overlap them:
//  - the load module loads every step; after its last load, at least a
//    step's GEMM (or a fused Add's operand GEMM), and (the epilogue neither
//    deferred nor split around an operand GEMM) a tile's epilogue, and a
//    store follow;
//  - the compute module's first GEMM waits for the first step's loads (only
//    a tile's head may run beside them), and a store follows its last
//    instruction. Its busy cycles are every head, GEMM and epilogue; with
//    the epilogues deferred to the ALU pipe (defers_epilogue(),
//    defers_pool()), the GEMM pipe's alone (heads, GEMMs, a deferred pool's
//    reset GEMM), as the epilogues run beside them;
//  - the ALU pipe runs the deferred epilogues one after another.
// The minimum over the classes stands for "a step", "a tile": whichever
// comes last.
template <class V>
struct BoundSides {
  V load = 0, compute = 0, alu = 0;
};
template <class V>
BoundSides<V> tile_bound(const Parts<V>& p, const Tile& t, const TileClass* begin, const TileClass* end) {
  const bool pipes = defers_pool(p.g, p.c), defer = pipes || defers_epilogue(p.g, t, p.c, p.residual_ops >= 0);
  const bool zeroes = zeroes_by_alu(p.g, t, p.c, p.residual_ops >= 0);
  // reuses_weights(): steps may find their weights held where a position's
  // steps load at most two sets of weights (tile_timeline()'s `held`: the
  // two WGT halves alternate, so each set then stays in its half), or one
  // channel group's at a time (a fused pool's tiles, channel group outermost).
  const int64_t sets = p.g.dw ? 1 : (p.g.cib + t.tic - 1) / t.tic, groups = (p.g.cob + t.toc - 1) / t.toc;
  const bool held = reuses_weights(p.c) && sets <= 2 && (p.g.pk || groups * sets <= 2);
  double loads = 0, first_load = kNoLimit, last_store = kNoLimit;
  V compute = 0, alu = 0, head = 0, last_gemm = kNoLimit, last_tail = kNoLimit;
  for (const TileClass* it = begin; it != end; ++it) {
    const TileClass& tc = *it;
    const double n = static_cast<double>(tc.count);
    const bool whole = whole_rows(p.g, t, tc.th, tc.tw);
    const V hd = p.head(tc.th, tc.tw, tc.toc) - (zeroes ? p.area(tc.th, tc.tw, tc.toc) + p.P : V(0.0));
    const V tail = p.tail(tc.th, tc.tw, tc.toc, whole);
    if (zeroes) alu += n * p.zero(tc.th, tc.tw, tc.toc);
    const V reset = pipes ? p.pool_reset(tc.th, tc.toc) : V(0.0);
    compute += n * (hd + p.bias_gemm(tc.th, tc.tw, tc.toc) + (defer ? reset : tail));
    if (defer) alu += n * (tail - reset);
    head = vmax(head, hd);
    last_tail = vmin(last_tail, tail);
    last_store = std::min(last_store, p.store(tc.th, tc.tw, tc.toc, whole));
    loads += held ? 0.0 : n * p.bias_load(tc.toc);
    if (p.skip()) {  // the last load may be an operand's, its GEMM the last, and part of the epilogue before it
      const V og = p.operand_gemm(tc.th, tc.tw, tc.toc);
      compute += n * og, loads += n * p.operand_load(tc.th, tc.tw, tc.toc, whole);
      last_gemm = vmin(last_gemm, og);
    }
    for (int j = 0; j < 2; ++j) {
      if (tc.steps[j] == 0) continue;
      const double steps = n * static_cast<double>(tc.steps[j]);
      const double load = held ? p.inp_load(tc.th, tc.tw, tc.toc, tc.tic[j]) : p.load(tc.th, tc.tw, tc.toc, tc.tic[j]);
      const V gemm = p.gemm(tc.th, tc.tw, tc.toc, tc.tic[j]);
      loads += steps * load;
      compute += steps * gemm;
      first_load = std::min(first_load, load);
      last_gemm = vmin(last_gemm, gemm);
    }
  }
  return {loads + last_gemm + (defer || p.skip() ? V(0.0) : last_tail) + last_store,
          first_load + compute - head + last_store, alu};
}

// The layer's cycles with tile `t`: the three modules' timelines over the
// steps and tiles in emit_conv()'s order, with its tokens (a step's load
// waits for the GEMM two steps back to free its half; a tile's first GEMM
// waits for the store two tiles back; the store for the tile's epilogue).
template <class V>
V tile_timeline(const Parts<V>& p, const Tile& t) {
  const ConvGeom& g = p.g;
  const int64_t depth = p.c.queues.command_depth;
  V load_free = 0, compute_free = 0, gemm_end[2] = {0, 0}, store_end[2] = {0, 0};
  int64_t q = 0, tile = 0;
  const int64_t steps = g.dw ? 1 : (g.cib + t.tic - 1) / t.tic;
  // With one step a tile and no fused Add, emit_conv() writes each tile as
  // its loads, then its compute instructions (bias row, reset, GEMM, the
  // epilogue's ALU ops), then its store; in-order fetch dispatches tile k's
  // loads once tile k-1's compute instructions fit the compute queue beside
  // what is left of tile k-2's epilogue. The epilogue of the last two tiles:
  // its start and area; dispatch(k): the earliest start of tile k's loads.
  const bool ordered = steps == 1 && p.residual_ops < 0 && g.pk == 0;
  // alu.concurrent with defers_epilogue(): tile k's epilogue follows tile k+1's
  // first GEMM step in the program and runs on the ALU pipe beside it (rules
  // C1, C2: from the cycle after that GEMM issues, and not before tile k's
  // last GEMM ends); the next GEMM issues once the epilogue's last op has
  // (in-order issue); the store waits for that GEMM too (C4, in-order
  // pushes); a tile's head (its ACC loads drain both pipes, C3) waits for
  // the ALU pipe.
  // A fused Add's operand by GEMM (ride, operand_rides()): its loads join
  // the next tile's first step; the conv's ALU ops (part A) and the operand
  // GEMM follow that step's GEMM, the rest of the epilogue (part B) and the
  // store its second; the first step's half is free once the operand GEMM ends.
  // A fused pool (defers_pool()): after the tile's last GEMM step and the
  // previous tile's epilogue, its pooled rows' reset on the GEMM pipe, then
  // (below the top tile) its first pooled row's ops on the rows above it, on
  // the ALU pipe (they read the other half); the deferred epilogue is the
  // rest of the pool's passes.
  const bool defer = defers_epilogue(g, t, p.c, p.residual_ops >= 0), ride = defer && p.skip();
  const bool splits = ride && splits_stores(g, t, p.c, true), zeroes = zeroes_by_alu(g, t, p.c, p.residual_ops >= 0);
  // A deferred fused pool of two steps or more: its passes (part A) beside
  // the next tile's first GEMM step, its requantization and stores beside
  // the second.
  const bool pool_split = defer && g.pk && steps >= 2;
  // reuses_weights(): what each WGT half holds, as emit_conv() tracks it.
  const bool reuse = reuses_weights(p.c);
  WeightsKey held[2] = {{-1, -1, -1, -1}, {-1, -1, -1, -1}};
  struct Pending {
    bool any = false;
    V ready = 0, alu = 0;
    double last_op = 0, store = 0;
    int64_t insns = 0, stores = 0, th = 0, tw = 0;
    int64_t parity = 0;
    V part_a = 0;  // ride: the conv's ALU ops before the operand GEMM; pool_split: the passes
    double operand_load = 0;
    V operand_gemm = 0;
    double last_a = 0;  // pool_split: the passes' last op
  } pend;
  V alu_end = 0;
  // Runs the pending epilogue from `from`; its store waits for `gemm_done`. Returns when its last op issues.
  auto run_pending = [&](const V& from, const V& gemm_done) {
    const V start = vmax(pend.ready, from), end = start + pend.alu;
    alu_end = end;
    const V store_start = vmax(vmax(store_end[(pend.parity + 1) % 2], end), gemm_done);
    store_end[pend.parity] = store_start + pend.store;
    const int64_t alu_over = pend.insns - depth, store_over = pend.stores - depth;
    if (alu_over > 0)
      load_free = vmax(load_free, start + pend.alu * static_cast<double>(alu_over) / static_cast<double>(pend.insns));
    if (store_over > 0)
      load_free = vmax(load_free, store_start + static_cast<double>(store_over) * p.store_one(pend.th, pend.tw));
    pend.any = false;
    return V(end - pend.last_op);
  };
  V tail_at[2] = {0, 0};
  double tail_area[2] = {0, 0};
  auto dispatch = [&](int64_t k) {
    if (!ordered || k < 2) return V(0.0);
    const int64_t insns = p.tail_insns(1, false), need = std::min(insns, insns - (depth - (3 + insns)));
    if (need <= 0) return V(0.0);
    // The need-th epilogue instruction of tile k-2 issues after the ones before it: the bias ADD (a vector
    // op; none with a bias GEMM), then immediates.
    const double ar = tail_area[k % 2] * p.groups, a = static_cast<double>(p.c.alu.latency);
    const int64_t vec = p.g.bias_gemm ? 0 : 1, before = need - 1;
    return V(tail_at[k % 2] +
             static_cast<double>(std::min(before, vec)) * (ar * static_cast<double>(p.c.alu.ii_vector) + a) +
             static_cast<double>(std::max<int64_t>(0, before - vec)) * (ar * static_cast<double>(p.c.alu.ii_imm) + a));
  };
  // A step's loads and GEMM: every step but the last has tic blocks
  // (depthwise: one), the last what is left.
  const int64_t tic_last = g.dw ? 1 : g.cib - (steps - 1) * t.tic, tic_full = g.dw ? 1 : t.tic;
  const int64_t tic0 = g.dw ? 1 : std::min(t.tic, g.cib);
  // A tile's parts, kept while the next tiles share them (the tiles of a
  // channel range, innermost in for_each_tile(), share their position and
  // mostly their shape): the Parts' own values, only asked for less often.
  struct Shaped {  // by the tile's shape
    int64_t th = -1, tw = -1, toc = -1;
    bool whole = false;
    V head = 0, tail = 0, gemm[2] = {0, 0}, bias_gemm = 0;
    double store = 0, area = 0;
    int64_t insns = 0;
  } sh;
  struct Placed {  // by its position and output channel blocks (its shape follows from them)
    int64_t oh0 = -1, ow0 = -1, toc = -1;
    double load[2] = {0, 0}, inp[2] = {0, 0}, inp0 = 0, bias = 0;
  } pl;
  for_each_tile(g, t, [&](int64_t, int64_t oh0, int64_t ow0, int64_t ob0) {
    const int64_t th = std::min(t.th, g.ho - oh0), tw = std::min(t.tw, g.wo - ow0);
    const int64_t toc = std::min(t.toc, g.cob - ob0);
    if (th != sh.th || tw != sh.tw || toc != sh.toc) {
      sh.th = th, sh.tw = tw, sh.toc = toc;
      sh.whole = whole_rows(g, t, th, tw);
      sh.head = p.head(th, tw, toc), sh.tail = p.tail(th, tw, toc, sh.whole);
      sh.gemm[0] = p.gemm(th, tw, toc, tic_full), sh.gemm[1] = p.gemm(th, tw, toc, tic_last);
      sh.bias_gemm = p.bias_gemm(th, tw, toc);
      sh.store = p.store(th, tw, toc, sh.whole), sh.area = p.area(th, tw, toc);
      sh.insns = p.tail_insns(toc, sh.whole);
    }
    if (oh0 != pl.oh0 || ow0 != pl.ow0 || toc != pl.toc) {
      pl.oh0 = oh0, pl.ow0 = ow0, pl.toc = toc;
      pl.load[0] = p.load(th, tw, toc, tic_full, oh0, ow0), pl.load[1] = p.load(th, tw, toc, tic_last, oh0, ow0);
      pl.bias = p.bias_load(toc);
      if (reuse)
        pl.inp[0] = p.inp_load(th, tw, toc, tic_full, oh0, ow0),
        pl.inp[1] = p.inp_load(th, tw, toc, tic_last, oh0, ow0);
      if (steps == 1 && !g.bias_gemm) pl.inp0 = p.inp_load(th, tw, toc, tic0, oh0, ow0);
    }
    // A step's loads wait for the GEMM two steps back, so the first two
    // steps of this tile load before its head; the bias row's ACC load
    // (compute module) then waits for the read data of the bursts
    // already granted to the streaming load module (rule 13): up to
    // outstanding_reads bursts of a WGT row.
    V load_end[2] = {0, 0};
    const V* const step_gemm = sh.gemm;
    auto last = [&](int64_t j) { return j + 1 == steps ? 1 : 0; };
    // Step j's loads into WGT half `half`: its inputs alone where the half holds its weights.
    auto loads = [&](int64_t j, int64_t half) {
      const int64_t tic = last(j) ? tic_last : tic_full;
      const WeightsKey key = weights_key(ob0, j * t.tic, toc, tic);
      const bool kept = reuse && held[half] == key;
      held[half] = key;
      return kept ? pl.inp[last(j)] : pl.load[last(j)] + (j == 0 ? pl.bias : 0.0);
    };
    load_free = vmax(load_free, dispatch(tile));
    for (int64_t j = 0; j < std::min<int64_t>(2, steps); ++j) {
      load_free = vmax(load_free, gemm_end[(q + j) % 2]) + loads(j, (q + j) % 2) +
                  (j == 0 && pend.any && ride ? pend.operand_load : 0.0);
      load_end[j] = load_free;
    }
    V head_at = vmax(vmax(compute_free, store_end[tile % 2]), alu_end);
    if (zeroes) {  // the clear on the ALU pipe after the store two tiles back; the bias GEMM waits for it
      alu_end = vmax(alu_end, store_end[tile % 2]) + p.zero(th, tw, toc);
      head_at = vmax(compute_free, alu_end);
    }
    // With one step a tile, the next tile's load (waiting only for this
    // tile's predecessor's GEMM; its dims taken as this tile's) may be
    // streaming its INP rows at the head: the bias row then waits for
    // up to outstanding_reads INP row bursts (the strided depthwise
    // layers of MobileNet-v1). Once that load is in its WGT rows, the
    // SystemC model shows the head going first (fetch dispatches the
    // WGT load after it), so only the INP phase counts. A bias by GEMM
    // has no bias row at the head, so nothing waits there.
    V queued = g.bias_gemm ? V(0.0) : vmin(vmax(0.0, load_free - head_at), p.granted_beats(toc, t.tic));
    if (steps == 1 && !g.bias_gemm) {
      const V next_from = vmax(vmax(load_free, gemm_end[(q + 1) % 2]), dispatch(tile + 1));
      const V inp_end = next_from + pl.inp0;
      queued = pick(head_at >= next_from && head_at < inp_end,
                    vmax(queued, vmin(inp_end - head_at, p.inp_granted_beats(th, tw))), queued);
    }
    compute_free = head_at + queued + sh.head - (zeroes ? sh.area + p.P : V(0.0));
    V last_issue = 0;  // the previous tile's deferred epilogue: when its last op issues
    for (int64_t j = 0; j < steps; ++j, ++q) {
      // The middle steps (after the first two, before the last): a full
      // step's loads and GEMM and nothing else. Their WGT half never holds
      // their weights (it holds those of the step two back), so their loads
      // are whole: the general path's sums without its terms of zero.
      for (; j >= 2 && j + 1 < steps; ++j, ++q) {
        if (reuse) held[q % 2] = weights_key(ob0, j * t.tic, toc, tic_full);
        load_free = vmax(load_free, gemm_end[q % 2]) + pl.load[0];
        compute_free = vmax(compute_free, load_free) + step_gemm[0];
        gemm_end[q % 2] = compute_free;
      }
      if (j >= 2) load_free = vmax(load_free, gemm_end[q % 2]) + loads(j, q % 2);
      const V gemm_at = vmax(compute_free, j < 2 ? load_end[j] : load_free);
      compute_free = gemm_at + step_gemm[last(j)] + (j == 0 ? sh.bias_gemm : V(0.0));
      gemm_end[q % 2] = compute_free;
      if (j == 0 && pend.any && ride) {  // part A, then the operand GEMM on the GEMM pipe
        const V a_end = vmax(pend.ready, gemm_at + 1.0) + pend.part_a;
        compute_free = vmax(compute_free, a_end) + pend.operand_gemm;
        gemm_end[q % 2] = compute_free;
        pend.ready = compute_free;
      } else if (const int64_t split = j == 1 && splits && pend.any ? store_split(g, toc) : 0; split > 0) {
        // Part B and the stores after the step's first part (store_split()), beside its second.
        const double cols = static_cast<double>(toc * g.ro), first = static_cast<double>(split);
        const V work = step_gemm[last(j)] - p.P;
        const V first_end = gemm_at + work * first / cols + p.P;
        last_issue = run_pending(gemm_at + 1.0, first_end);
        const double scan = (cols - first) * static_cast<double>((last(j) ? tic_last : tic_full) * g.ri * g.k * g.k);
        compute_free = vmax(first_end, last_issue + 1.0 + scan) + work * (cols - first) / cols + p.P;
        gemm_end[q % 2] = compute_free;
      } else if (j == 0 && pend.any && pool_split) {  // part A; the next GEMM issues once its last op has
        alu_end = pend.ready = vmax(pend.ready, gemm_at + 1.0) + pend.part_a;
        compute_free = vmax(compute_free, alu_end - pend.last_a + 1.0);
      } else if ((j == 0 && pend.any) || ((j == 1 && (ride || pool_split)) && pend.any)) {
        last_issue = run_pending(gemm_at + 1.0, compute_free);
        if (j + 1 < steps) compute_free = vmax(compute_free, last_issue + 1.0);
      }
    }
    const bool whole = sh.whole;
    if (defer && g.pk) {
      compute_free = vmax(compute_free, last_issue + 1.0) + p.pool_reset(th, toc);
      if (oh0 > 0 && g.pp > 0) {
        alu_end = vmax(alu_end, compute_free) + p.pool_cross(toc);
        compute_free = alu_end;
      }
    }
    if (defer) {
      const double ar = sh.area;
      // ride: the conv's own epilogue ALU ops before the operand GEMM (as the serial path's conv_alu)
      const double part_a = ride ? ar * p.groups * static_cast<double>(p.epilogue_ops() - (g.bias_gemm ? 0 : 1)) *
                                           static_cast<double>(p.c.alu.ii_imm) +
                                       (g.bias_gemm ? 0.0 : ar * p.groups * static_cast<double>(p.c.alu.ii_vector))
                                 : 0.0;
      pend = {true,
              compute_free,
              sh.tail,
              p.requant_ops > 0
                  ? ar * p.groups * static_cast<double>(p.c.alu.ii_imm) + static_cast<double>(p.c.alu.latency)
                  : 0.0,
              sh.store,
              sh.insns,
              whole ? 1 : toc,
              th,
              tw,
              tile % 2,
              part_a,
              ride ? p.operand_load(th, tw, toc, whole) : 0.0,
              ride ? p.operand_gemm(th, tw, toc) : V(0.0),
              0.0};
      pend.alu -= part_a;
      if (g.pk)
        pend.alu -= p.pool_reset(th, toc) + (oh0 > 0 ? p.pool_cross(toc) : 0.0), pend.last_op = p.pool_last_op(th, toc);
      if (pool_split) {  // part A: the passes; the rest: the requantization over the pooled rows
        const double rq = p.pool_requant(th, toc);
        pend.part_a = pend.alu - rq, pend.last_a = p.pool_last_op(th, toc, false);
        pend.alu = rq, pend.last_op = rq > 0 ? p.pool_last_op(th, toc) : 0.0;
      }
      ++tile;
      return;
    }
    const V tail_start = compute_free;
    if (p.skip()) {  // the operand's step: its loads, then its GEMM between the conv's and the Add's immediates
      load_free = vmax(load_free, gemm_end[q % 2]) + p.operand_load(th, tw, toc, whole);
      const double conv_alu =
          p.area(th, tw, toc) * p.groups * static_cast<double>(p.epilogue_ops() - (g.bias_gemm ? 0 : 1)) *
              static_cast<double>(p.c.alu.ii_imm) +
          (g.bias_gemm ? 0.0 : p.area(th, tw, toc) * p.groups * static_cast<double>(p.c.alu.ii_vector));
      compute_free = vmax(compute_free + conv_alu, load_free) + p.operand_gemm(th, tw, toc);
      gemm_end[q % 2] = compute_free;
      held[q % 2] = WeightsKey{-1, -1, -1, -1};  // the identity at the start of the WGT half
      ++q;
      compute_free += sh.tail - conv_alu;
    } else {
      compute_free += sh.tail;
    }
    tail_at[tile % 2] = tail_start, tail_area[tile % 2] = sh.area;
    const V store_start = vmax(store_end[(tile + 1) % 2], compute_free);
    store_end[tile % 2] = store_start + sh.store;
    // In-order fetch: the next tile's loads are dispatched only once
    // the epilogue's instructions and the tile's stores fit their
    // command queues (D entries each).
    const int64_t insns = sh.insns;
    const int64_t alu_over = insns - depth, store_over = (whole ? 1 : toc) - depth;
    if (alu_over > 0)
      load_free = vmax(load_free, tail_start + (compute_free - tail_start) * static_cast<double>(alu_over) /
                                                   static_cast<double>(insns));
    if (store_over > 0)
      load_free = vmax(load_free, store_start + static_cast<double>(store_over) * p.store_one(th, tw));
    ++tile;
  });
  if (pend.any && ride) {  // the last tile's operand: a step of its own
    load_free = vmax(load_free, gemm_end[q % 2]) + pend.operand_load;
    pend.ready = vmax(vmax(compute_free, pend.ready + pend.part_a), load_free) + pend.operand_gemm;
    compute_free = pend.ready;
  }
  if (pend.any && pool_split) pend.alu += pend.part_a;  // the last tile's: the passes not yet run
  if (pend.any) run_pending(V(0.0), compute_free);
  return vmax(store_end[0], store_end[1]);
}

}  // namespace

bool splits_stores(const ConvGeom& g, const Tile& t, const Config& c, bool fused_add) {
  return fused_add && g.skip_gemm && defers_epilogue(g, t, c, true) && g.ho * g.wo >= 28 * 28;
}

double tile_pool_cycles(const ConvGeom& g, int64_t th, int64_t toc, const Config& c) {
  return Parts<double>(g, c, 0, -1).pool_tail(th, toc);
}

double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops, int residual_ops) {
  return tile_timeline(Parts<double>(g, c, requant_ops, residual_ops), t);
}

namespace {

// The layer's shape in blocks and its epilogue: what tile_key() and the
// memo key of choose_tile() say of the layer. Depthwise or not is part of
// the shape (a depthwise layer loads toc input blocks per step, not tic); a
// fused pool: its window, stride and output shape.
std::array<int64_t, 23> layer_shape(const ConvGeom& g, const Node& n, const Node* add) {
  return {static_cast<int64_t>(n.op),
          g.dw,
          g.nb,
          g.cib,
          g.h,
          g.w,
          g.cob,
          g.ho,
          g.wo,
          g.k,
          g.s,
          g.p,
          requant_imm_ops(n),
          residual_imm_ops(add, g.skip_gemm),
          g.scratch + 2 * g.scratch2 + 4 * g.scratch3,
          g.rows * (g.t_rows ? 2 : 1),
          g.vector_steps,
          g.bias_gemm + 2 * g.skip_gemm,
          g.pk,
          g.ps,
          g.pho,
          g.pwo,
          g.pool_first};
}

// layer_shape() as text (tile_key(): kept in tuning caches, tune.h).
std::string layer_shape_key(const ConvGeom& g, const Node& n, const Node* add) {
  const auto f = layer_shape(g, n, add);
  const std::string pool = f[18] ? fmt::format("m{}s{}>{}x{}{}", f[18], f[19], f[20], f[21], f[22] ? "f" : "") : "";
  return fmt::format("{}{}:{}x{}x{}x{}>{}x{}x{}k{}s{}p{}r{}a{}t{}w{}v{}b{}{}|", op_name(n.op), f[1] ? "dw" : "", f[2],
                     f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17],
                     pool);
}

// layer_shape() as raw bytes (the memo keys of choose_tile(): a sweep asks for one per layer and design).
std::string layer_shape_bytes(const ConvGeom& g, const Node& n, const Node* add) {
  const auto f = layer_shape(g, n, add);
  return std::string(reinterpret_cast<const char*>(f.data()), sizeof f);
}

// The sections of config_knobs.def the search reads every knob of (search_knobs()).
constexpr bool searched(std::string_view section) {
  return section != "host" && section != "opencl" && section != "clock";
}

}  // namespace

std::string tile_key(const Node& n, const Shape& in, const Config& c, const Node* add) {
  return layer_shape_key(conv_geom(n, in, c, add), n, add) + c.hash();
}

std::string search_knobs(const Config& c) {
  std::string k;
  k.reserve(512);
  append_knobs(k, c, searched);
  // A DRAM preset's time is in ns, crossed into core cycles at the clock (MemoryTime).
  if (sim::dram::enabled(c)) append_value(k, c.clock.mhz);
  return k;
}

namespace {

// The tiles search() weighs for a layer, in its order, with their classes
// (tile_classes()): for every input channel step tic, output channel count
// toc and width tw (the balanced size of each count: a divisor where one
// gives that count) that fit at one row (or one pool stride), the largest
// th that fits, then the balanced one with the same tile count; with a
// fused pool, in multiples of its stride u (or the whole map). They depend
// on the layer's shape and the knobs tile_fits() reads (the GEMM shape,
// widths and buffers) only, so a sweep's designs that share those share
// them (fit_candidates()).
struct Candidates {
  std::vector<Tile> tiles;
  std::vector<TileClass> classes;  // tile i's: [first[i], first[i + 1])
  std::vector<uint32_t> first;
};

Candidates enumerate(const ConvGeom& g, const Config& c, bool residual) {
  // Candidate sizes: every distinct ceil(total / parts).
  auto splits = [](int64_t total) {
    std::vector<int64_t> v;
    for (int64_t parts = 1; parts <= total; ++parts) {
      const int64_t s = (total + parts - 1) / parts;
      if (v.empty() || v.back() != s) v.push_back(s);
    }
    return v;
  };
  Candidates out;
  const std::vector<int64_t> tics = g.dw ? std::vector<int64_t>{1} : splits(g.cib), tocs = splits(g.cob),
                             tws = g.pk ? std::vector<int64_t>{g.wo} : splits(g.wo);
  const int64_t u = g.pk ? g.ps : 1;
  auto rows = [&](int64_t m) { return std::min(m * u, g.ho); };
  for (int64_t tic : tics)
    for (int64_t toc : tocs)
      for (int64_t tw : tws) {
        Tile t{rows(1), tw, toc, tic, 0};
        if (!tile_fits(g, t, c, residual)) continue;
        int64_t lo = 1, hi = (g.ho + u - 1) / u;
        while (lo < hi) {
          const int64_t mid = (lo + hi + 1) / 2;
          t.th = rows(mid);
          if (tile_fits(g, t, c, residual))
            lo = mid;
          else
            hi = mid - 1;
        }
        const int64_t tiles = (g.ho + rows(lo) - 1) / rows(lo);
        t.th = std::min(g.ho, ((g.ho + tiles - 1) / tiles + u - 1) / u * u);
        out.first.push_back(static_cast<uint32_t>(out.classes.size()));
        for (const TileClass& tc : tile_classes(g, t)) out.classes.push_back(tc);
        out.tiles.push_back(t);
      }
  out.first.push_back(static_cast<uint32_t>(out.classes.size()));
  return out;
}

// enumerate()'s list for `fit` (the layer's shape and the knobs it reads),
// kept while the sweep is on designs that share them. Bounded: a list is a
// few hundred tiles, and a sweep meets thousands of shapes and buffer sets.
std::shared_ptr<const Candidates> fit_candidates(const std::string& fit, const ConvGeom& g, const Config& c,
                                                 bool residual) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const Candidates>> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(fit); it != memo.end()) return it->second;
  }
  auto list = std::make_shared<const Candidates>(enumerate(g, c, residual));
  std::lock_guard<std::mutex> lock(mu);
  if (memo.size() >= 4096) memo.clear();
  memo.emplace(fit, list);
  return list;
}

// No tile of the layer fits `c`: the error, naming the layer and what does not fit.
[[noreturn]] void no_tile_fits(const ConvGeom& g, const Node& n, const Config& c, const Node* add) {
  // The smallest tile (one position, or the whole rows a fused pool
  // needs): when its uops are what does not fit, say so (a sweep over
  // buffers.uop meets this first).
  const bool residual = add && add->op == Op::Add;
  const Tile least{g.pk ? std::min(g.ps, g.ho) : 1, g.pk ? g.wo : 1, 1, 1, 0};
  const int64_t uops = conv_uops(least, g, residual);
  if (uops > c.derived.uop_depth)
    fail(
        "layer {}: no tile of {} fits config {}: the smallest needs {} uops, more than the UOP buffer holds "
        "(buffers.uop = {} bytes, {} uops)",
        n.name, op_name(n.op), c.name, uops, c.buffers.uop, c.derived.uop_depth);
  fail(
      "layer {}: no tile of {} fits the SRAM buffers of config {} (a single output position needs more than half "
      "of a buffer)",
      n.name, op_name(n.op), c.name);
}

// The best `count` tiles of `list` (cheapest first; the first of equal ones
// first), timing a tile only where its bound could beat the worst kept.
std::vector<Tile> search(const ConvGeom& g, const Node& n, const Config& c, const Node* add, int count,
                         const Candidates& list) {
  if (list.tiles.empty()) no_tile_fits(g, n, c, add);
  const Parts<double> parts(g, c, requant_imm_ops(n), residual_imm_ops(add, g.skip_gemm));
  const auto want = static_cast<size_t>(std::max(count, 1));
  std::vector<Tile> best;  // cheapest first, at most `want`
  for (size_t i = 0; i < list.tiles.size(); ++i) {
    Tile t = list.tiles[i];
    if (best.size() == want) {
      const BoundSides<double> b =
          tile_bound(parts, t, list.classes.data() + list.first[i], list.classes.data() + list.first[i + 1]);
      if (std::max({b.load, b.compute, b.alu}) >= best.back().est_cycles) continue;
    }
    t.est_cycles = tile_timeline(parts, t);
    if (best.size() == want && t.est_cycles >= best.back().est_cycles) continue;
    auto at = std::upper_bound(best.begin(), best.end(), t.est_cycles,
                               [](double e, const Tile& x) { return e < x.est_cycles; });
    best.insert(at, t);
    if (best.size() > want) best.pop_back();
  }
  return best;
}

// The bounds (tile_bound()) of a candidate list on the designs that share
// every search knob but the GEMM pipeline depth P. Each side of a bound is
// affine in P (each GEMM instruction takes P more cycles): side + slope P,
// kept per candidate and filled where a search first needs it (fill()), so
// that a sweep over P bounds each tile at most once.
struct Bounds {
  std::vector<double> load, load_slope, compute, compute_slope, alu, alu_slope;
  // Per candidate: 0 not filled yet; 1 affine (checked at three depths); 2 not (bounded on each design).
  std::vector<uint8_t> state;
  explicit Bounds(size_t n) : load(n), load_slope(n), compute(n), compute_slope(n), alu(n), alu_slope(n), state(n, 0) {}
  // Candidate i from `parts` (fill_parts(): depths p0, p0 + 1, p0 + 2).
  void fill(size_t i, const Parts<Lanes>& parts, double p0, const Candidates& list) {
    const BoundSides<Lanes> s =
        tile_bound(parts, list.tiles[i], list.classes.data() + list.first[i], list.classes.data() + list.first[i + 1]);
    const double ls = s.load[1] - s.load[0], cs = s.compute[1] - s.compute[0], as = s.alu[1] - s.alu[0];
    const bool affine = std::abs(s.load[2] - s.load[1] - ls) <= 1e-6 * s.load[2] &&
                        std::abs(s.compute[2] - s.compute[1] - cs) <= 1e-6 * s.compute[2] &&
                        std::abs(s.alu[2] - s.alu[1] - as) <= 1e-6 * s.alu[2];
    load[i] = s.load[0] - ls * p0, load_slope[i] = ls;
    compute[i] = s.compute[0] - cs * p0, compute_slope[i] = cs;
    alu[i] = s.alu[0] - as * p0, alu_slope[i] = as;
    state[i] = affine ? 1 : 2;
  }
  // Candidate i's bound at depth P (filled, affine).
  double at(size_t i, double P) const {
    return std::max({load[i] + load_slope[i] * P, compute[i] + compute_slope[i] * P, alu[i] + alu_slope[i] * P});
  }
};

// What Bounds::fill() reads: `c` at P, P + 1 and P + 2 (the last lane
// repeats it), each lane as the scalar bound at its depth.
Parts<Lanes> fill_parts(const ConvGeom& g, const Config& c, int requant_ops, int residual_ops) {
  const double p0 = static_cast<double>(c.gemm.pipeline_depth);
  return Parts<Lanes>(g, c, requant_ops, residual_ops, Lanes(p0, p0 + 1, p0 + 2, p0 + 2));
}

// The Bounds of `key` (the layer's shape and every search knob but P), kept
// while a sweep visits its designs; `fill_all`: every candidate filled now.
std::shared_ptr<Bounds> kept_bounds(const std::string& key, const ConvGeom& g, const Config& c, int requant_ops,
                                    int residual_ops, const Candidates& list, bool fill_all) {
  thread_local std::unordered_map<std::string, std::shared_ptr<Bounds>> memo;
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  auto b = std::make_shared<Bounds>(list.tiles.size());
  if (fill_all) {
    const Parts<Lanes> parts = fill_parts(g, c, requant_ops, residual_ops);
    for (size_t i = 0; i < list.tiles.size(); ++i) b->fill(i, parts, static_cast<double>(c.gemm.pipeline_depth), list);
  }
  if (memo.size() >= 4096) memo.clear();  // about 4 buffer sets of ResNet-50 at a few thousand candidates each
  memo.emplace(key, b);
  return b;
}

// `c` with the fastest memory the cost model knows: no DRAM, no latency,
// config_knobs.def's widest bus. Each memory term of tile_bound() is a sum
// of latencies and beats (or DRAM time) that is at least its value there,
// and the bound's structure does not depend on the memory, so a bound there
// (a floor) bounds every design that differs from `c` only in the memory
// knobs and the clock: a sweep's floors are filled once for all of them.
Config fastest_memory(const Config& c) {
  static const auto widest = static_cast<int64_t>(find_knob("memory.bus_bits")->max);
  Config f = c;
  f.memory.dram = "fixed";
  f.memory.read_latency = f.memory.write_latency = 0;
  f.memory.bus_bits = widest;
  return f;
}

// The lowest clock of set_search_clocks(), 0 if none.
std::mutex clocks_mu;
double sweep_min_clock = 0;

// `c` at the sweep's lowest clock, where that is below c's and c has a DRAM
// preset (else the clock changes no memory time): a DRAM's latency and time
// per byte in core cycles only grow with the clock, and every memory term
// of tile_bound() with them, so a bound there (a clock floor) bounds the
// designs that differ from it only in the clock.
std::optional<Config> lowest_clock(const Config& c) {
  double mhz = 0;
  {
    std::lock_guard<std::mutex> lock(clocks_mu);
    mhz = sweep_min_clock;
  }
  if (mhz <= 0 || mhz >= c.clock.mhz || !sim::dram::enabled(c)) return std::nullopt;
  Config low = c;
  low.clock.mhz = mhz;
  return low;
}

// A search's bounds: the floors first (kept for every candidate), then,
// for a candidate its floor does not rule out, its clock floor if any,
// then its own bound (each filled on first use). A bound rules a tile out
// only above the best by more than kSlack of it, so rounding never changes
// the choice.
constexpr double kSlack = 1e-9;
struct SearchBounds {
  const ConvGeom& g;
  const Config& c;
  const Candidates& list;
  int requant_ops, residual_ops;
  std::shared_ptr<Bounds> own, floor, clock_floor;
  std::optional<Parts<Lanes>> fill_at;  // for `own`, made on first use
  std::optional<Config> low;            // `c` at the lowest clock (lowest_clock()), for `clock_floor`
  std::optional<Parts<Lanes>> low_fill_at;
  // Not affine: each depth's bound on its own design (a Config and its parts, made on first use).
  std::map<int64_t, std::pair<std::unique_ptr<Config>, std::unique_ptr<Parts<double>>>> designs;

  SearchBounds(const ConvGeom& geo, const Config& cfg, const Candidates& l, int rq, int res, const std::string& key,
               const std::string& floor_key, const std::string& shape)
      : g(geo), c(cfg), list(l), requant_ops(rq), residual_ops(res), low(lowest_clock(cfg)) {
    own = kept_bounds(key, g, c, rq, res, list, false);
    const Config fast = fastest_memory(c);
    floor = kept_bounds(floor_key, g, fast, rq, res, list, true);
    if (low) {
      low->gemm.pipeline_depth = 0;
      clock_floor = kept_bounds(shape + search_knobs(*low), g, *low, rq, res, list, false);
      low->gemm.pipeline_depth = c.gemm.pipeline_depth;
    }
  }
  double floor_at(size_t i, double P) const { return floor->state[i] == 1 ? floor->at(i, P) : 0.0; }
  double clock_floor_at(size_t i, double P) {
    if (!clock_floor) return 0.0;
    if (clock_floor->state[i] == 0) {
      if (!low_fill_at) low_fill_at.emplace(fill_parts(g, *low, requant_ops, residual_ops));
      clock_floor->fill(i, *low_fill_at, static_cast<double>(c.gemm.pipeline_depth), list);
    }
    return clock_floor->state[i] == 1 ? clock_floor->at(i, P) : 0.0;
  }
  double bound_at(size_t i, double P) {
    if (own->state[i] == 0) {
      if (!fill_at) fill_at.emplace(fill_parts(g, c, requant_ops, residual_ops));
      own->fill(i, *fill_at, static_cast<double>(c.gemm.pipeline_depth), list);
    }
    if (own->state[i] == 1) return own->at(i, P);
    auto& d = designs[static_cast<int64_t>(P)];
    if (!d.first) {
      d.first = std::make_unique<Config>(c);
      d.first->gemm.pipeline_depth = static_cast<int64_t>(P);
      d.second = std::make_unique<Parts<double>>(g, *d.first, requant_ops, residual_ops);
    }
    const BoundSides<double> s = tile_bound(*d.second, list.tiles[i], list.classes.data() + list.first[i],
                                            list.classes.data() + list.first[i + 1]);
    return std::max({s.load, s.compute, s.alu});
  }
  // Whether candidate i could beat `best` at depth P.
  bool could_beat(size_t i, double P, double best) {
    const double limit = best * (1 + kSlack);
    return floor_at(i, P) <= limit && clock_floor_at(i, P) <= limit && bound_at(i, P) <= limit;
  }
};

// The cheapest tile of `list` on `c` (the first of equal ones), and its
// index, by branch and bound: the timeline of `hint` (a candidate likely to
// be good: the last design's best) or of the candidate with the lowest
// floor first, then of every candidate whose floor and bound do not rule it
// out against the best so far (SearchBounds; keys `bounds_key` and
// `floor_key`). The same tile as timing every candidate, in fewer timelines.
std::pair<Tile, size_t> best_tile(const ConvGeom& g, const Node& n, const Config& c, const Node* add,
                                  const Candidates& list, std::optional<size_t> hint, const std::string& bounds_key,
                                  const std::string& floor_key, const std::string& shape) {
  if (list.tiles.empty()) no_tile_fits(g, n, c, add);
  const int requant_ops = requant_imm_ops(n), residual_ops = residual_imm_ops(add, g.skip_gemm);
  const Parts<double> parts(g, c, requant_ops, residual_ops);
  SearchBounds b(g, c, list, requant_ops, residual_ops, bounds_key, floor_key, shape);
  const double P = static_cast<double>(c.gemm.pipeline_depth);
  size_t lowest = 0;
  for (size_t i = 1; i < list.tiles.size(); ++i)
    if (b.floor_at(i, P) < b.floor_at(lowest, P)) lowest = i;
  double best = kNoLimit;
  size_t at = 0;
  const size_t first = hint && *hint < list.tiles.size() ? *hint : lowest;
  auto time = [&](size_t i) {
    const double cycles = tile_timeline(parts, list.tiles[i]);
    if (cycles < best || (cycles == best && i < at)) best = cycles, at = i;
  };
  time(first);
  for (size_t i = 0; i < list.tiles.size(); ++i)
    if (i != first && b.could_beat(i, P, best)) time(i);
  Tile t = list.tiles[at];
  t.est_cycles = best;
  return {t, at};
}

// best_tile() at kDepthLanes GEMM pipeline depths at once (`depths`; `c`
// at any of them): each candidate's timeline computed for all in lanes
// (lanes.h), each lane's as the scalar timeline computes it. Lane l's tile is
// the cheapest on `c` at depths[l] (the first of equal ones), as best_tile()'s:
// a candidate is timed where it could beat the best so far of any lane, and
// counts in the lanes whose own best it could beat.
constexpr int kDepthLanes = Lanes::kCount;
using DepthArray = std::array<int64_t, kDepthLanes>;
std::array<std::pair<Tile, size_t>, kDepthLanes> best_tiles(const ConvGeom& g, const Node& n, const Config& c,
                                                            const Node* add, const Candidates& list,
                                                            std::optional<size_t> hint, const std::string& bounds_key,
                                                            const std::string& floor_key, const std::string& shape,
                                                            const DepthArray& depths) {
  using V = Lanes;
  if (list.tiles.empty()) no_tile_fits(g, n, c, add);
  const int requant_ops = requant_imm_ops(n), residual_ops = residual_imm_ops(add, g.skip_gemm);
  V P;
  for (int l = 0; l < kDepthLanes; ++l) P.set(l, static_cast<double>(depths[static_cast<size_t>(l)]));
  const Parts<V> parts(g, c, requant_ops, residual_ops, P);
  SearchBounds b(g, c, list, requant_ops, residual_ops, bounds_key, floor_key, shape);
  size_t lowest = 0;
  for (size_t i = 1; i < list.tiles.size(); ++i)
    if (b.floor_at(i, P[0]) < b.floor_at(lowest, P[0])) lowest = i;
  std::array<double, kDepthLanes> best;
  best.fill(kNoLimit);
  std::array<size_t, kDepthLanes> at{};
  auto time = [&](size_t i, const std::array<bool, kDepthLanes>& counts) {
    const V cycles = tile_timeline(parts, list.tiles[i]);
    for (int l = 0; l < kDepthLanes; ++l)
      if (counts[l] && (cycles[l] < best[l] || (cycles[l] == best[l] && i < at[l]))) best[l] = cycles[l], at[l] = i;
  };
  const size_t first = hint && *hint < list.tiles.size() ? *hint : lowest;
  std::array<bool, kDepthLanes> counts;
  counts.fill(true);
  time(first, counts);
  for (size_t i = 0; i < list.tiles.size(); ++i) {
    if (i == first) continue;
    bool any = false;
    for (int l = 0; l < kDepthLanes; ++l) any = (counts[l] = b.could_beat(i, P[l], best[l])) || any;
    if (any) time(i, counts);
  }
  std::array<std::pair<Tile, size_t>, kDepthLanes> out;
  for (int l = 0; l < kDepthLanes; ++l) {
    out[l] = {list.tiles[at[l]], at[l]};
    out[l].first.est_cycles = best[l];
  }
  return out;
}

// The depths of set_search_depths(), sorted and distinct.
std::mutex depths_mu;
std::vector<int64_t> sweep_depths;

// The kDepthLanes depths searched with `depth` (set_search_depths()): its
// run of kDepthLanes in the sorted list, the last repeated where the list
// ends; none where `depth` is not in the list or the list has one depth.
std::optional<DepthArray> depth_batch(int64_t depth) {
  std::lock_guard<std::mutex> lock(depths_mu);
  const auto it = std::lower_bound(sweep_depths.begin(), sweep_depths.end(), depth);
  if (sweep_depths.size() < 2 || it == sweep_depths.end() || *it != depth) return std::nullopt;
  const size_t from = static_cast<size_t>(it - sweep_depths.begin()) / kDepthLanes * kDepthLanes;
  DepthArray d;
  for (size_t l = 0; l < static_cast<size_t>(kDepthLanes); ++l)
    d[l] = sweep_depths[std::min(from + l, sweep_depths.size() - 1)];
  return d;
}

// The memo key of fit_candidates(): the layer's shape and the knobs that
// choose which tiles fit (search_knobs()' GEMM shape, widths and buffers).
std::string fit_key(const std::string& shape, const Config& c) {
  std::string fit = shape;
  append_knobs(fit, c, [](std::string_view s) { return s == "gemm" || s == "dtype" || s == "buffers"; });
  return fit;
}

}  // namespace

std::vector<Tile> tile_candidates(const Node& n, const Shape& in, const Config& c, const Node* add, int count) {
  const ConvGeom g = conv_geom(n, in, c, add);
  const Candidates list = enumerate(g, c, add && add->op == Op::Add);
  return search(g, n, c, add, count, list);
}

namespace {

// What the memo keys say of the design: search_knobs() of `c` without the
// GEMM pipeline depth (a key appends it: the depths of a batch share the
// rest) and of fastest_memory() (the floors'), kept while the calls are for
// one design, as a network's layers are, one after another.
struct DesignKeys {
  Config c;
  std::string flat, floor;
};
const DesignKeys& design_keys(const Config& c) {
  thread_local std::optional<DesignKeys> last;
  if (!last || !same_knobs(c, last->c, searched) || (sim::dram::enabled(c) && c.clock.mhz != last->c.clock.mhz)) {
    Config flat = c;
    flat.gemm.pipeline_depth = 0;
    last = DesignKeys{c, search_knobs(flat), search_knobs(fastest_memory(flat))};
  }
  return *last;
}

// The memo key of a layer of shape `shape` on the design of `keys` at GEMM pipeline depth `depth`.
std::string memo_key(const std::string& shape, const DesignKeys& keys, int64_t depth) {
  std::string key = shape + keys.flat;
  append_value(key, static_cast<double>(depth));
  return key;
}

}  // namespace

Tile choose_tile(const Node& n, const Shape& in, const Config& c, const Node* add) {
  static std::mutex mu;
  static std::unordered_map<std::string, Tile> memo;
  // The index of the last best tile of each layer shape and the knobs that
  // choose which tiles fit (fit_key()): the same candidates, so it is
  // likely good on `c` too, and timed first (best_tile()).
  static std::unordered_map<std::string, size_t> hints;
  const ConvGeom g = conv_geom(n, in, c, add);
  const std::string shape = layer_shape_bytes(g, n, add);
  const DesignKeys& design = design_keys(c);
  const std::string key = memo_key(shape, design, c.gemm.pipeline_depth);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  const std::string fit = fit_key(shape, c);
  std::optional<size_t> hint;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = hints.find(fit); it != hints.end()) hint = it->second;
  }
  const std::shared_ptr<const Candidates> list = fit_candidates(fit, g, c, add && add->op == Op::Add);
  const std::string bounds_key = shape + design.flat, floor_key = shape + design.floor;
  const std::optional<DepthArray> batch = depth_batch(c.gemm.pipeline_depth);
  if (!batch) {
    const auto [t, at] = best_tile(g, n, c, add, *list, hint, bounds_key, floor_key, shape);
    std::lock_guard<std::mutex> lock(mu);
    // A long sweep visits millions of configs, each with its own keys: bound the memos.
    if (memo.size() >= 100000) memo.clear();
    if (hints.size() >= 100000) hints.clear();
    memo[key] = t;
    hints[fit] = at;
    return t;
  }
  // The depths of the batch: each lane's tile under its own key.
  const auto tiles = best_tiles(g, n, c, add, *list, hint, bounds_key, floor_key, shape, *batch);
  std::array<std::string, kDepthLanes> keys;
  for (int l = 0; l < kDepthLanes; ++l) keys[l] = memo_key(shape, design, (*batch)[l]);
  const int mine = static_cast<int>(std::find(batch->begin(), batch->end(), c.gemm.pipeline_depth) - batch->begin());
  std::lock_guard<std::mutex> lock(mu);
  if (memo.size() >= 100000) memo.clear();
  if (hints.size() >= 100000) hints.clear();
  for (int l = 0; l < kDepthLanes; ++l) memo[keys[l]] = tiles[l].first;
  hints[fit] = tiles[mine].second;
  return tiles[mine].first;
}

void set_search_clocks(const std::vector<double>& mhz) {
  std::lock_guard<std::mutex> lock(clocks_mu);
  sweep_min_clock = mhz.empty() ? 0.0 : *std::min_element(mhz.begin(), mhz.end());
}

void set_search_depths(std::vector<int64_t> depths) {
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  std::lock_guard<std::mutex> lock(depths_mu);
  sweep_depths = std::move(depths);
}

}  // namespace vta::compiler
