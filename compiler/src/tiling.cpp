// Per-layer tile search. A tile is th x tw output positions of toc output
// channel blocks, accumulated over the input channels in steps of tic blocks;
// none of the four need divide the layer (the last tile of a row, column or
// channel range and the last step of a tile are smaller: tile_classes(), with
// their own uop banks where the uops would differ: conv_banks()).
// Each SRAM is split in two halves (double buffering: two virtual threads
// alternate so that the loads of one step overlap the GEMM of the other), so
// a tile must fit half of each buffer. Among the tiles that fit, the cost
// model (the rules of docs/timing.md, with loads overlapping GEMMs) picks
// the cheapest. Results are memoised by (layer shape, config hash).
#include <algorithm>
#include <map>
#include <mutex>

#include "vta/compiler/compile.h"
#include "vta/compiler/requant.h"
#include "vta/compiler/tiling_geom.h"
#include "vta/isa/error.h"

namespace vta::compiler {

ConvGeom conv_geom(const Node& n, const Shape& in, const Config& c) {
  ConvGeom g;
  const int64_t block = act_block(c);
  g.ri = inp_per_pos(c), g.ro = out_per_pos(c);
  g.nb = (in.n + c.gemm.batch - 1) / c.gemm.batch;
  if (n.op == Op::Dense) {
    g.cib = (in.c * in.h * in.w + block - 1) / block;
    g.h = g.w = g.ho = g.wo = g.k = g.s = 1;
    g.p = 0;
  } else {
    g.cib = (in.c + block - 1) / block;
    g.h = in.h, g.w = in.w, g.ho = n.out.h, g.wo = n.out.w;
    g.k = n.kernel, g.s = n.stride, g.p = n.pad;
    g.dw = n.groups > 1;
  }
  g.cob = (n.out.c + block - 1) / block;
  g.scratch = needs_scratch(n);
  g.row = !n.lshift.empty();
  return g;
}

bool tile_fits(const ConvGeom& g, const Tile& t, const Config& c, bool residual) {
  const auto& d = c.derived;
  const int64_t ih = (t.th - 1) * g.s + g.k, iw = (t.tw - 1) * g.s + g.k;
  const int64_t kk = g.k * g.k;
  if (g.dw && t.tic != 1) return false;
  const int64_t in_blocks = g.dw ? t.toc : t.tic;  // input channel blocks a step loads
  const int64_t to = t.toc * g.ro, ti = t.tic * g.ri;  // OUT and INP elements per position
  if (in_blocks * g.ri * ih * iw > d.inp_depth / 2) return false;
  if (to * ti * kk > d.wgt_depth / 2) return false;
  if ((residual || g.scratch ? 2 : 1) * to * t.th * t.tw + (g.row ? 2 : 1) * to > d.acc_depth / 2) return false;
  if (conv_uops(t, g, residual) > d.uop_depth) return false;
  // GEMM factors: src out s * iw * ri, dst out tw * ro.
  if (g.s * iw * g.ri >= (int64_t{1} << d.log_inp_depth) || t.tw * g.ro >= (int64_t{1} << d.log_acc_depth))
    return false;
  if (t.th > 16383 || t.tw > 16383 || t.th * t.tw > 16383) return false;
  return true;
}

int residual_imm_ops(const Node* add) {
  return add ? (add->shift_a > 0) + (add->shift_b > 0) + requant_imm_ops(*add) : -1;
}

std::vector<TileClass> tile_classes(const ConvGeom& g, const Tile& t) {
  const int64_t hs[2] = {t.th, g.ho % t.th}, ws[2] = {t.tw, g.wo % t.tw}, os[2] = {t.toc, g.cob % t.toc};
  const int64_t nh[2] = {g.ho / t.th, 1}, nw[2] = {g.wo / t.tw, 1}, no[2] = {g.cob / t.toc, 1};
  TileClass steps;
  if (g.dw) {
    steps.steps[0] = 1, steps.tic[0] = 1;
  } else {
    steps.steps[0] = g.cib / t.tic, steps.tic[0] = t.tic;
    if (g.cib % t.tic != 0) steps.steps[1] = 1, steps.tic[1] = g.cib % t.tic;
  }
  std::vector<TileClass> v;
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2; ++w)
      for (int o = 0; o < 2; ++o) {
        if (hs[h] == 0 || ws[w] == 0 || os[o] == 0 || nh[h] * nw[w] * no[o] == 0) continue;
        TileClass tc = steps;
        tc.count = g.nb * nh[h] * nw[w] * no[o], tc.th = hs[h], tc.tw = ws[w], tc.toc = os[o];
        v.push_back(tc);
      }
  return v;
}

double tile_cost(const ConvGeom& g, const Tile& t, const Config& c, int requant_ops, int residual_ops) {
  const auto& d = c.derived;
  const double B = static_cast<double>(c.memory.bus_bits) / 8.0;
  const double rl = static_cast<double>(c.memory.read_latency), wl = static_cast<double>(c.memory.write_latency);
  const int64_t kk = g.k * g.k;
  const double groups = static_cast<double>((c.gemm.batch * c.gemm.block_out + c.alu.lanes - 1) / c.alu.lanes);
  // One step of a th x tw x toc tile over tic input channel blocks: its loads, its GEMM.
  auto load = [&](int64_t th, int64_t tw, int64_t toc, int64_t tic) {
    const int64_t ih = (th - 1) * g.s + g.k, iw = (tw - 1) * g.s + g.k;
    const int64_t in_blocks = g.dw ? toc : tic;
    return static_cast<double>(in_blocks * g.ri * ih * iw * d.inp_elem_bytes) / B +
           static_cast<double>(toc * g.ro * tic * g.ri * kk * d.wgt_elem_bytes) / B + rl +
           2.0 * static_cast<double>(tic + 1);
  };
  auto gemm = [&](int64_t th, int64_t tw, int64_t toc, int64_t tic) {
    return static_cast<double>(toc * g.ro * tic * g.ri * kk * th * tw + c.gemm.pipeline_depth);
  };
  double total = 0;
  for (const TileClass& tc : tile_classes(g, t)) {
    double cycles = 0;
    for (int j = 0; j < 2; ++j)
      if (tc.steps[j] > 0)
        cycles += static_cast<double>(tc.steps[j]) *
                  std::max(load(tc.th, tc.tw, tc.toc, tc.tic[j]), gemm(tc.th, tc.tw, tc.toc, tc.tic[j]));
    const double area = static_cast<double>(tc.toc * g.ro * tc.th * tc.tw);
    double epilogue = area + static_cast<double>(c.gemm.pipeline_depth) +
                      area * groups * static_cast<double>(c.alu.ii_vector + requant_ops * c.alu.ii_imm) +
                      5.0 * static_cast<double>(c.alu.latency) +
                      static_cast<double>(tc.toc * g.ro * d.acc_elem_bytes) / B + rl;
    if (residual_ops >= 0)  // the operand's loads (one per channel block), its ADD and immediates
      epilogue += static_cast<double>(tc.toc) * (1.0 + rl) + area * static_cast<double>(d.out_elem_bytes) / B +
                  area * groups * static_cast<double>(c.alu.ii_vector + residual_ops * c.alu.ii_imm) +
                  static_cast<double>(1 + residual_ops) * static_cast<double>(c.alu.latency);
    const double store = area * static_cast<double>(d.out_elem_bytes) / B + wl;
    total += static_cast<double>(tc.count) * (cycles + std::max(epilogue, store));
  }
  // The first step's load is not overlapped.
  return total + load(t.th, t.tw, t.toc, t.tic);
}

Tile choose_tile(const Node& n, const Shape& in, const Config& c, const Node* add) {
  static std::mutex mu;
  static std::map<std::string, Tile> memo;
  const ConvGeom g = conv_geom(n, in, c);
  const int requant_ops = requant_imm_ops(n), residual_ops = residual_imm_ops(add);
  // Depthwise or not is part of the shape: a depthwise layer loads toc input blocks per step, not tic.
  const std::string key = fmt::format("{}{}:{}x{}x{}x{}>{}x{}x{}k{}s{}p{}r{}a{}t{}w{}|{}", op_name(n.op),
                                      g.dw ? "dw" : "", g.nb, g.cib, g.h, g.w, g.cob, g.ho, g.wo, g.k, g.s, g.p,
                                      requant_ops, residual_ops, g.scratch, g.row, c.hash());
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  // Candidate sizes: every distinct ceil(total / parts).
  auto splits = [](int64_t total) {
    std::vector<int64_t> v;
    for (int64_t parts = 1; parts <= total; ++parts) {
      const int64_t s = (total + parts - 1) / parts;
      if (v.empty() || v.back() != s) v.push_back(s);
    }
    return v;
  };
  Tile best;
  bool found = false;
  // Widths and input channel steps: the balanced size of each count (a
  // divisor where one gives that count).
  const std::vector<int64_t> tics = g.dw ? std::vector<int64_t>{1} : splits(g.cib);
  for (int64_t tic : tics) {
    for (int64_t toc : splits(g.cob)) {
      for (int64_t tw : splits(g.wo)) {
        // The largest th that fits, then the balanced one with the same tile count.
        Tile t{1, tw, toc, tic, 0};
        if (!tile_fits(g, t, c, add != nullptr)) continue;
        int64_t lo = 1, hi = g.ho;
        while (lo < hi) {
          const int64_t mid = (lo + hi + 1) / 2;
          t.th = mid;
          if (tile_fits(g, t, c, add != nullptr))
            lo = mid;
          else
            hi = mid - 1;
        }
        t.th = (g.ho + ((g.ho + lo - 1) / lo) - 1) / ((g.ho + lo - 1) / lo);
        t.est_cycles = tile_cost(g, t, c, requant_ops, residual_ops);
        if (!found || t.est_cycles < best.est_cycles) best = t, found = true;
      }
    }
  }
  if (!found)
    fail(
        "layer {}: no tile of {} fits the SRAM buffers of config {} (a single output position needs more than half "
        "of a buffer)",
        n.name, op_name(n.op), c.name);
  std::lock_guard<std::mutex> lock(mu);
  // A long sweep visits millions of configs, each with its own keys: bound the memo.
  if (memo.size() >= 100000) memo.clear();
  memo[key] = best;
  return best;
}

}  // namespace vta::compiler
