// Geometry of a conv/dense layer in blocks (conv_geom.h): its channel
// blocks, epilogue needs and fused pool, which tiles fit the SRAM halves, and
// the classes of tiles a tile shape cuts a layer into.
#include "vta/compiler/schedule/conv_geom.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "vta/compiler/ir/node_facts.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/schedule/bias_gemm.h"

namespace vta::compiler {
ConvGeom conv_geom(const Node& n, const Shape& in, const Config& c, const Node* add) {
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
  g.scratch2 = needs_scratch2(n);
  g.scratch3 = needs_scratch3(n);
  g.rows = requant_row_count(n);
  if (g.rows > 0 || g.scratch) {
    using On = AluStep::On;
    const std::vector<AluStep> steps = requant_steps(n);
    g.t_rows = std::any_of(steps.begin(), steps.end(), [](const AluStep& s) { return s.on == On::TbyRow; });
    g.vector_steps = static_cast<int>(std::count_if(
        steps.begin(), steps.end(), [](const AluStep& s) { return s.on != On::A && s.on != On::T && s.on != On::U; }));
  }
  // The GEMM epilogues (bias_gemm.h) only where no operand rows share the
  // ACC half: a layer with per-channel rows keeps its ACC bias row and ALU
  // ADD, and a fused Add's operand its ACC_8BIT load.
  g.bias_gemm = g.rows == 0 && bias_by_gemm(n, c);
  const bool pool = add && add->op == Op::MaxPool;
  g.skip_gemm = g.rows == 0 && add && !pool && residual_by_gemm(*add, c);
  if (pool) {
    g.pk = add->pool, g.ps = add->pool_stride, g.pp = add->pool_pad;
    g.pho = add->out.h, g.pwo = add->out.w;
    g.ho = std::min(g.ho, g.ps * g.pho);
    g.pool_first = pool_before_requant(n);
  }
  return g;
}

bool tile_fits(const ConvGeom& g, const Tile& t, const Config& c, bool residual) {
  const auto& d = c.derived;
  const int64_t ih = (t.th - 1) * g.s + g.k, iw = (t.tw - 1) * g.s + g.k;
  const int64_t kk = g.k * g.k;
  if (g.dw && t.tic != 1) return false;
  const int64_t in_blocks = g.dw ? t.toc : t.tic;      // input channel blocks a step loads
  const int64_t to = t.toc * g.ro, ti = t.tic * g.ri;  // OUT and INP elements per position
  const int64_t bias = g.bias_gemm ? 1 : 0;            // the constant INP element, the bias WGT rows
  if (in_blocks * g.ri * ih * iw + bias > d.inp_depth / 2) return false;
  if (to * ti * kk + bias * to > d.wgt_depth / 2) return false;
  if (residual && g.skip_gemm && t.toc * g.ri * t.th * t.tw > d.inp_depth / 2) return false;  // the operand's step
  // A fused pool: whole rows, a multiple of its stride high (or the whole map), its output after the tiles.
  if (g.pk && (t.tw != g.wo || (t.th % g.ps != 0 && t.th < g.ho))) return false;
  const int64_t area = t.toc * tile_area(g, t), pooled = g.pk ? to * pool_rmax(g, t) * g.pwo : 0;
  if (((residual && !g.skip_gemm) || g.scratch ? 2 : 1) * area + (g.scratch2 ? area : 0) + (g.scratch3 ? area : 0) +
          (1 - bias + g.rows) * to + pooled >
      d.acc_depth / 2)
    return false;
  if (conv_uops(t, g, residual) > d.uop_depth) return false;
  // GEMM factors: src out s * iw * ri, dst out tw * ro.
  if (g.s * iw * g.ri >= (int64_t{1} << d.log_inp_depth) || t.tw * g.ro >= (int64_t{1} << d.log_acc_depth))
    return false;
  if (t.th > 16383 || t.tw > 16383 || t.th * t.tw > 16383) return false;
  return true;
}

int residual_imm_ops(const Node* add, bool skip_gemm) {
  if (!add || add->op != Op::Add) return -1;  // none, or a fused pool
  // By GEMM: the conv's shift (the later input's, fused_into()) and the requantization.
  if (skip_gemm) {
    const int own = add->inputs[0] > add->inputs[1] ? add->shift_a : add->shift_b;
    return (own > 0) + requant_imm_ops(*add);
  }
  return (add->shift_a > 0) + (add->shift_b > 0) + requant_imm_ops(*add);
}

TileClasses tile_classes(const ConvGeom& g, const Tile& t) {
  const int64_t hs[2] = {t.th, g.ho % t.th}, ws[2] = {t.tw, g.wo % t.tw}, os[2] = {t.toc, g.cob % t.toc};
  const int64_t nh[2] = {g.ho / t.th, 1}, nw[2] = {g.wo / t.tw, 1}, no[2] = {g.cob / t.toc, 1};
  TileClass steps;
  if (g.dw) {
    steps.steps[0] = 1, steps.tic[0] = 1;
  } else {
    steps.steps[0] = g.cib / t.tic, steps.tic[0] = t.tic;
    if (g.cib % t.tic != 0) steps.steps[1] = 1, steps.tic[1] = g.cib % t.tic;
  }
  TileClasses v;
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2; ++w)
      for (int o = 0; o < 2; ++o) {
        if (hs[h] == 0 || ws[w] == 0 || os[o] == 0 || nh[h] * nw[w] * no[o] == 0) continue;
        TileClass tc = steps;
        tc.count = g.nb * nh[h] * nw[w] * no[o], tc.th = hs[h], tc.tw = ws[w], tc.toc = os[o];
        v.at[v.n++] = tc;
      }
  return v;
}

namespace {

bool accumulators_clip_late(const Node& n) {
  if (n.op != Op::Conv2d || n.out.c <= 0 || n.weight.empty() || needs_scratch(n) || requant_row_count(n) > 0)
    return false;
  // Per output channel: |acc| <= 2^(A-1) sum |w| + |bias| (the bias with its folded step, packed_bias()).
  const int64_t top = -int64_t{elem_min(n.bits)};  // the largest input magnitude (A = the input's width too)
  const auto per = static_cast<int64_t>(n.weight.size()) / n.out.c;
  const std::vector<int32_t> biases = packed_biases(n);
  int64_t bound = 0;
  for (int64_t o = 0; o < n.out.c; ++o) {
    // sum |w| in 32-bit parts of 2^15 weights (|w| <= 2^15: no overflow), a loop the compiler vectorises.
    int64_t sum = 0;
    const int16_t* w = n.weight.data() + o * per;
    for (int64_t i0 = 0; i0 < per; i0 += int64_t{1} << 15) {
      int32_t part = 0;
      for (int64_t i = i0; i < std::min(per, i0 + (int64_t{1} << 15)); ++i)
        part += std::abs(static_cast<int32_t>(w[i]));
      sum += part;
    }
    bound = std::max<int64_t>(bound, std::llabs(static_cast<long long>(biases[static_cast<size_t>(o)])) + top * sum);
  }
  constexpr int64_t lo32 = std::numeric_limits<int32_t>::min(), hi32 = std::numeric_limits<int32_t>::max();
  int64_t lo = -bound, hi = bound;
  if (lo < lo32 || hi > hi32) return false;
  using isa::AluOp;
  for (const AluStep& st : requant_steps(n)) {
    if (st.on != AluStep::On::A) return false;
    const int64_t v = st.imm;
    switch (st.op) {
      case AluOp::ADD:
        lo += v, hi += v;
        break;
      case AluOp::SHR:
        if (v > 31) return false;
        if (v >= 0) {
          lo >>= std::min<int64_t>(v, 62), hi >>= std::min<int64_t>(v, 62);
        } else {
          if (-v > 31) return false;
          lo *= int64_t{1} << -v, hi *= int64_t{1} << -v;
        }
        break;
      case AluOp::MUL:
        if (v <= 0) return false;
        lo *= v, hi *= v;
        break;
      case AluOp::MAX:
        lo = std::max(lo, v), hi = std::max(hi, v);
        break;
      case AluOp::MIN:
        lo = std::min(lo, v), hi = std::min(hi, v);
        break;
      default:  // an op of opcodes.def this bound does not know (requant_steps() emits none): no proof
        return false;
    }
    if (lo < lo32 || hi > hi32) return false;
  }
  return true;
}

}  // namespace

bool pool_before_requant(const Node& n) {
  return kept_fact(n, NodeFact::PoolFirst, [](const Node& m) -> int64_t { return accumulators_clip_late(m); }) != 0;
}

}  // namespace vta::compiler
