// The per-layer formulas of the analytical estimate (layer_cost.h). Conv/Dense layers take the tile the
// compiler would choose and its cost-model cycles; their DRAM bytes follow
// the loads and stores emit_conv() makes for that tile. Add and the pools
// (ALU-only, every DMA in the compute module except the store) are closed
// forms of the instruction sequences of emit_add() and emit_pool() under the
// rules of docs/timing.md: the compute module serialises its loads and ALU
// ops, and the store of one chunk overlaps the compute of the next.
#include "vta/compiler/schedule/layer_cost.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "vta/compiler/ops/requant.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/memory_time.h"
#include "vta/compiler/schedule/tile_search.h"

namespace vta::compiler {

namespace {

// Timing constants of one design, in the notation of docs/timing.md.
struct Rates {
  MemoryTime mem;  // the port's and the DRAM's time (memory_time.h)
  double RL, WL, P, A, groups, IIi, IIv;
  explicit Rates(const Config& c)
      : mem(c),
        RL(mem.read_latency()),
        WL(mem.write_latency()),
        P(static_cast<double>(c.gemm.pipeline_depth)),
        A(static_cast<double>(c.alu.latency)),
        groups(static_cast<double>((c.gemm.batch * c.gemm.block_out + c.alu.lanes - 1) / c.alu.lanes)),
        IIi(static_cast<double>(c.alu.ii_imm)),
        IIv(static_cast<double>(c.alu.ii_vector)) {}
  // Beats of `rows` rows of `bytes` each (rule 11).
  double beats(double rows, double bytes) const { return mem.rows(rows, bytes); }
  // One LOAD of `rows` x `bytes` (rule 9; no padding): issue, latency, beats.
  double load(double rows, double bytes) const { return 1 + RL + beats(rows, bytes); }
  double store(double rows, double bytes) const { return 2 + beats(rows, bytes) + WL; }
  // One ALU op over `iters` uop iterations (rule 8).
  double alu(double iters, bool imm) const { return A + iters * groups * (imm ? IIi : IIv); }
};

// pool_by_gemm(): the end of the last band's store, emit_pool()'s order
// timed band by band. Band t's load waits for band t - 2's copy; the GEMM
// pipe runs band 0's copy, then each band's output rows' reset (after band
// t - 2's store and passes) and band t + 1's copy (after its load and band
// t - 1's passes); band t's passes issue once band t + 1's copy has.
template <typename Band>
double pool_by_gemm_cycles(const std::vector<Band>& b) {
  const size_t n = b.size();
  std::vector<double> l_end(n), c_start(n), c_end(n), v_end(n), s_end(n);
  auto at = [](const std::vector<double>& v, size_t i, size_t back) { return i >= back ? v[i - back] : 0.0; };
  double g = 0;  // the GEMM pipe's end
  auto copy = [&](size_t i) {
    l_end[i] = std::max(at(l_end, i, 1), at(c_end, i, 2)) + b[i].ld;
    c_start[i] = std::max({g, l_end[i], at(v_end, i, 2)});
    g = c_end[i] = c_start[i] + b[i].copy;
  };
  copy(0);
  for (size_t t = 0; t < n; ++t) {
    g = std::max({g, at(s_end, t, 2), at(v_end, t, 2)}) + b[t].init;
    const double init_end = g;
    if (t + 1 < n) copy(t + 1);
    const double issue = t + 1 < n ? c_start[t + 1] : init_end;
    v_end[t] = std::max({at(v_end, t, 1), init_end, issue, c_end[t]}) + b[t].alu;
    s_end[t] = std::max(v_end[t], at(s_end, t, 1)) + b[t].st;
  }
  return s_end[n - 1];
}

}  // namespace

void estimate_conv(LayerEstimate& e, const Node& n, const Shape& in, const Config& c, const Node* fused) {
  const ConvGeom g = conv_geom(n, in, c, fused);
  const Tile t = choose_tile(n, in, c, fused);
  const Node* add = fused && fused->op == Op::Add ? fused : nullptr;
  const auto& d = c.derived;
  const Rates r(c);
  const double kk = static_cast<double>(g.k * g.k), ri = static_cast<double>(g.ri), ro = static_cast<double>(g.ro);
  e.cycles = t.est_cycles;
  // Per tile class (tile_classes(): the edge tiles of a layer the tile does not divide).
  for (const TileClass& tc : tile_classes(g, t)) {
    const double cnt = static_cast<double>(tc.count);
    const double ih = static_cast<double>((tc.th - 1) * g.s + g.k), iw = static_cast<double>((tc.tw - 1) * g.s + g.k);
    const double toc = static_cast<double>(tc.toc) * ro, area = toc * static_cast<double>(tc.th * tc.tw);
    for (int j = 0; j < 2; ++j) {
      if (tc.steps[j] == 0) continue;
      const double steps = cnt * static_cast<double>(tc.steps[j]);
      // INP element columns a step loads, INP element columns of the step.
      const double in_blocks = static_cast<double>(g.dw ? tc.toc : tc.tic[j]) * ri;
      const double tic = static_cast<double>(tc.tic[j]) * ri;
      e.bytes_inp += steps * in_blocks * ih * iw * static_cast<double>(d.inp_elem_bytes);
      e.bytes_wgt += steps * toc * tic * kk * static_cast<double>(d.wgt_elem_bytes);
      // One INP load per channel block (ri INP elements per position), one WGT load.
      e.load += steps * (in_blocks / ri * r.load(ih, iw * ri * static_cast<double>(d.inp_elem_bytes)) +
                         r.load(toc, tic * kk * static_cast<double>(d.wgt_elem_bytes)));
      e.gemm += steps * (toc * tic * kk * static_cast<double>(tc.th * tc.tw) + r.P);
    }
    // A fused pool on the accumulators: the requantization over its output only.
    const double rq_area = g.pool_first ? toc * static_cast<double>(pool_rows(g, tc.th) * g.pwo) : area;
    if (g.bias_gemm) {  // the constant INP element and the bias WGT rows, their GEMM
      e.bytes_inp += cnt * static_cast<double>(d.inp_elem_bytes);
      e.bytes_wgt += cnt * toc * static_cast<double>(d.wgt_elem_bytes);
      e.load += cnt * (r.load(1, static_cast<double>(d.inp_elem_bytes)) +
                       r.load(1, toc * static_cast<double>(d.wgt_elem_bytes)));
      e.gemm += cnt * (area + r.P);
      e.alu += cnt * requant_imm_ops(n) * r.alu(rq_area, true);
    } else {
      e.bytes_acc += cnt * toc * static_cast<double>(d.acc_elem_bytes) * static_cast<double>(1 + g.rows);  // bias, rows
      e.alu += cnt * (r.alu(area, false) + requant_imm_ops(n) * r.alu(rq_area, false));
    }
    // One store per channel block (ro OUT elements per position), or one for all (whole_rows()).
    const bool whole = whole_rows(g, t, tc.th, tc.tw);
    const double rows = whole ? static_cast<double>(tc.toc) : static_cast<double>(tc.th);
    const double row_bytes = static_cast<double>((whole ? tc.th : 1) * tc.tw * d.out_elem_bytes) * ro;
    const double moves = whole ? 1.0 : toc / ro;
    if (g.pk) {  // a fused pool: its passes (ALU and the reset GEMM), one run of pooled rows a block
      const double pooled = static_cast<double>(pool_rows(g, tc.th) * g.pwo * d.out_elem_bytes) * ro;
      e.store += cnt * (whole ? r.store(static_cast<double>(tc.toc), pooled)
                              : static_cast<double>(tc.toc) * r.store(1, pooled));
      const double reset = toc * static_cast<double>(pool_rows(g, tc.th) * g.pwo) + r.P;
      e.gemm += cnt * reset;
      e.alu += cnt * (tile_pool_cycles(g, tc.th, tc.toc, c) - reset);
    } else {
      e.store += cnt * moves * r.store(rows, row_bytes);
    }
    if (add && g.skip_gemm) {  // the operand's INP loads and identity (load module), its GEMM, the immediates
      e.load += cnt * (moves * r.load(rows, row_bytes) + r.load(1, static_cast<double>(d.wgt_elem_bytes)));
      e.bytes_wgt += cnt * static_cast<double>(d.wgt_elem_bytes);
      e.gemm += cnt * (area + r.P);
      e.alu += cnt * residual_imm_ops(add, true) * r.alu(area, true);
    } else if (add) {  // the operand's ACC_8BIT loads (compute module), its ADD and immediates
      e.load += cnt * moves * r.load(rows, row_bytes);
      e.alu += cnt * (r.alu(area, false) + residual_imm_ops(add) * r.alu(area, true));
    }
  }
  e.bytes_uop = static_cast<double>(conv_uops(t, g, add != nullptr) * d.uop_elem_bytes);
  // Output positions beyond the layer (edge tiles) are not stored.
  e.bytes_out = static_cast<double>(g.nb * g.cob * g.ro * (g.pk ? g.pho * g.pwo : g.ho * g.wo) * d.out_elem_bytes);
  if (add) e.bytes_inp += e.bytes_out;
}

void estimate_add(LayerEstimate& e, const Node& n, const Config& c) {
  const Rates r(c);
  const double E = static_cast<double>(c.derived.out_elem_bytes);
  check_add_fits(n, c);  // what emit_add() needs, or the layer named (a zero chunk would never end)
  const int64_t total = blocked(n.out, c).elems() * out_per_pos(c), chunk = add_chunk(c);
  const int imm_ops = (n.shift_a > 0) + (n.shift_b > 0) + requant_imm_ops(n);
  double compute = 0, store = 0, last_store = 0;
  for (int64_t off = 0; off < total; off += chunk) {
    const double len = static_cast<double>(std::min(chunk, total - off));
    const double ld = 2 * r.load(1, len * E), alu = imm_ops * r.alu(len, true) + r.alu(len, false);
    e.load += ld, e.alu += alu;
    compute += ld + alu;
    last_store = r.store(1, len * E);
    store += last_store;
  }
  e.store = store;
  e.cycles = std::max(compute + last_store, store) + r.load(1, 16);
  e.bytes_inp = 2 * static_cast<double>(total) * E;  // two ACC_8BIT operands
  e.bytes_uop = 16;
  e.bytes_out = static_cast<double>(total) * E;
}

void estimate_pool(LayerEstimate& e, const Node& n, const Shape& in, const Config& c) {
  const Rates r(c);
  const Blocked L = blocked(in, c);
  const int64_t ro = out_per_pos(c);  // ACC_8BIT elements per position
  const double E = static_cast<double>(c.derived.out_elem_bytes * ro), Ro = static_cast<double>(ro);
  const int64_t k = n.pool, s = n.pool_stride, ho = n.out.h, wo = n.out.w;
  const PoolBand band = pool_band(n, c);  // the bands emit_pool() makes
  const int64_t th = band.th, tw = band.tw, iw = band.iw;
  const bool max = n.op == Op::MaxPool, by_gemm = pool_by_gemm(n, c);
  const int tail_ops = max ? 1 : requant_imm_ops(n);
  double compute = 0, store = 0, last_store = 0, rows_read = 0;
  struct Band {
    double ld, copy, init, alu, st;
  };
  std::vector<Band> bands;  // pool_by_gemm(): each band's durations, timed after the loop
  for (int64_t plane = 0; plane < L.nb * L.cb; ++plane)
    for (int64_t oh0 = 0; oh0 < ho; oh0 += th)
      for (int64_t ow0 = 0; ow0 < wo; ow0 += tw) {
        const int64_t rows = std::min(th, ho - oh0);
        const double ih = static_cast<double>((rows - 1) * s + k), out = static_cast<double>(rows * tw);
        const double in_rows = std::min<double>(ih, static_cast<double>(in.h));
        const double pads = Ro * (ih * static_cast<double>(iw) -
                                  in_rows * std::min<double>(static_cast<double>(iw), static_cast<double>(in.w)));
        const double ld =
            pads + r.load(in_rows, std::min<double>(static_cast<double>(iw), static_cast<double>(in.w)) * E);
        const double alu = separable_pool(n)
                               ? static_cast<double>(k - 1) * r.alu(ih * static_cast<double>(tw) * Ro, false) +
                                     static_cast<double>(k) * r.alu(out * Ro, false)
                               : (max ? r.alu(out * Ro, true) : 0) +
                                     r.alu(out * Ro * static_cast<double>(k * k), false) +
                                     tail_ops * r.alu(out * Ro, true);
        e.load += ld, e.alu += alu, e.gemm += r.P + out * Ro;
        compute += ld + r.P + out * Ro + alu;
        last_store = r.store(static_cast<double>(rows), static_cast<double>(tw) * E);
        store += last_store;
        rows_read += in_rows;
        if (by_gemm) {
          const double copy = 2 * (r.P + ih * static_cast<double>(iw));
          e.gemm += copy;
          bands.push_back(Band{ld, copy, r.P + out * Ro, alu, last_store});
        }
      }
  e.store = store;
  const double uop_bytes = static_cast<double>(pool_layer_uops(n, c) * c.derived.uop_elem_bytes);
  e.cycles = std::max(compute + last_store, store) + r.load(1, uop_bytes);
  if (by_gemm) e.cycles = pool_by_gemm_cycles(bands) + r.load(1, uop_bytes);
  e.bytes_inp = rows_read * std::min<double>(static_cast<double>(iw), static_cast<double>(in.w)) * E;
  e.bytes_uop = uop_bytes;
  if (by_gemm) e.bytes_wgt = static_cast<double>(c.derived.wgt_elem_bytes);  // the identity
  e.bytes_out = static_cast<double>(L.nb * L.cb * ho * wo) * E;
}

double pool_pass_cycles(const Node& n, const Shape& in, const Config& c) {
  LayerEstimate e;
  estimate_pool(e, n, in, c);
  return e.cycles;
}

}  // namespace vta::compiler
