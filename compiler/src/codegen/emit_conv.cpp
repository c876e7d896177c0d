// A conv/dense layer with its fused epilogue (emit_conv.h).
#include "codegen/emit_conv.h"

#include <algorithm>

#include "vta/compiler/ir/network.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/schedule/bias_gemm.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/tile_search.h"
#include "vta/isa/error.h"

namespace vta::compiler::codegen {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

void emit_conv(Emitter& e, const Node& n, const ConvGeom& g, const Tile& t, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout, const Node* fused) {
  const Node* pool = fused && fused->op == Op::MaxPool ? fused : nullptr;
  const Node* add = pool ? nullptr : fused;
  const auto& d = c.derived;
  const int64_t kk = g.k * g.k, ri = g.ri, ro = g.ro;
  const int64_t ih = (t.th - 1) * g.s + g.k, iw = (t.tw - 1) * g.s + g.k;
  const int64_t inp_half = d.inp_depth / 2, wgt_half = d.wgt_depth / 2, acc_half = d.acc_depth / 2;
  const int64_t TO = t.toc * ro;         // OUT element columns of a tile
  const int64_t area = tile_area(g, t);  // ACC elements of one output channel block
  const int64_t W = t.tw * ro;           // ACC elements of one of its rows
  auto inpb = [&](int64_t sp) { return sp * inp_half; };
  auto wgtb = [&](int64_t sp) { return sp * wgt_half; };
  auto accb = [&](int64_t ap) { return ap * acc_half; };
  auto biasb = [&](int64_t ap) { return ap * acc_half + acc_half - TO; };
  // Operand rows (requant_rows()) below the bias row; a bias by GEMM has no
  // bias row and no operand rows (conv_geom()).
  auto rowb = [&](int64_t ap, int64_t r) { return ap * acc_half + acc_half - (2 + r) * TO; };
  // A bias by GEMM: the constant INP element after the full tile's input
  // blocks, the bias WGT rows after its weights, in each step half.
  const int64_t bias_inp_at = (g.dw ? t.toc : t.tic) * ri * ih * iw, bias_wgt_at = TO * t.tic * ri * kk;
  // Uop banks: conv (class, step parity, acc parity), then the epilogue's (ap * TO within each).
  auto put = [&](int64_t dst, int64_t src, int64_t wgt) { uops.push_back(layout.encode_uop(uop(dst, src, wgt))); };
  // GEMM banks (conv_banks()): per (width, channel) class, the row pitch of
  // its INP tile and its WGT columns; INP channel blocks keep the full pitch.
  const ConvBanks gemm = conv_banks(t, g);
  for (int wc = 0; wc < 2; ++wc)
    for (int cc = 0; cc < 2; ++cc) {
      if (gemm.size[wc][cc] == 0 || (wc == 1 && g.k == 1)) continue;
      const int64_t iwc = (gemm.width[wc] - 1) * g.s + g.k, TIc = gemm.chans[cc] * ri;
      for (int64_t sp = 0; sp < 2; ++sp)
        for (int64_t ap = 0; ap < 2; ++ap) {
          for (int64_t o = 0; o < TO; ++o)
            for (int64_t ci = 0; ci < TIc; ++ci)
              for (int64_t kh = 0; kh < g.k; ++kh)
                for (int64_t kw = 0; kw < g.k; ++kw)
                  put(accb(ap) + o / ro * area + o % ro,
                      inpb(sp) + (g.dw ? o : ci / ri) * ri * ih * iw + (kh * iwc + kw) * ri + ci % ri,
                      wgtb(sp) + ((o * TIc + ci) * g.k + kh) * g.k + kw);
        }
    }
  for (int64_t ap = 0; ap < 2; ++ap)
    for (int64_t o = 0; o < TO; ++o) put(accb(ap) + o / ro * area + o % ro, biasb(ap) + o, 0);
  for (int64_t ap = 0; ap < 2; ++ap)
    for (int64_t o = 0; o < TO; ++o) put(accb(ap) + o / ro * area + o % ro, 0, 0);
  // Fused Add: its operand's tile follows the conv's tile in each ACC half;
  // the scratch tile of half-to-even rounding is the same tile, used before.
  auto skipb = [&](int64_t ap) { return accb(ap) + t.toc * area; };
  if (add || g.scratch) {
    for (int64_t ap = 0; ap < 2; ++ap)
      for (int64_t o = 0; o < TO; ++o) put(accb(ap) + o / ro * area + o % ro, skipb(ap) + o / ro * area + o % ro, 0);
    for (int64_t ap = 0; ap < 2; ++ap)
      for (int64_t o = 0; o < TO; ++o) put(skipb(ap) + o / ro * area + o % ro, 0, 0);
  }
  if (g.scratch)
    for (int64_t ap = 0; ap < 2; ++ap)
      for (int64_t o = 0; o < TO; ++o) put(skipb(ap) + o / ro * area + o % ro, accb(ap) + o / ro * area + o % ro, 0);
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t ap = 0; ap < 2; ++ap)
      for (int64_t o = 0; o < TO; ++o) put(accb(ap) + o / ro * area + o % ro, rowb(ap, r) + o, 0);
  if (g.t_rows)
    for (int64_t r = 0; r < g.rows; ++r)
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o) put(skipb(ap) + o / ro * area + o % ro, rowb(ap, r) + o, 0);
  // alu.concurrent: a tile's epilogue and stores after the next tile's first
  // GEMM step (defers_epilogue()); every token queue keeps its order of pops
  // and pushes, and the two touch different ACC halves. A fused Add's
  // operand rides with the next tile's first step (operand_at()).
  const bool defer = defers_epilogue(g, t, c, add != nullptr), ride = defer && add != nullptr;
  const OperandAt op_at = ride ? operand_at(g, t) : OperandAt{};
  const bool splits = ride && splits_stores(g, t, c, true), zeroes = zeroes_by_alu(g, t, c, add != nullptr);
  if (g.skip_gemm)  // the operand's INP tile at the start of its step's half (or after a step's), the identity after it
    for (int64_t sp = 0; sp < 2; ++sp)
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o)
          put(accb(ap) + o / ro * area + o % ro, inpb(sp) + op_at.inp + o / ro * t.th * t.tw * ri + o % ro,
              wgtb(sp) + op_at.wgt);
  if (g.bias_gemm)
    for (int64_t sp = 0; sp < 2; ++sp)
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o)
          put(accb(ap) + o / ro * area + o % ro, inpb(sp) + bias_inp_at, wgtb(sp) + bias_wgt_at + o);
  // The second scratch tile U after T (three-word per-channel forms):
  // U alone, U by A, T by U, U by each row.
  auto ub = [&](int64_t ap) { return accb(ap) + 2 * t.toc * area; };
  if (g.scratch2) {
    const auto bank = [&](auto dst, auto src) {
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o) put(dst(ap) + o / ro * area + o % ro, src(ap, o), 0);
    };
    bank(ub, [](int64_t, int64_t) { return int64_t{0}; });
    bank(ub, [&](int64_t ap, int64_t o) { return accb(ap) + o / ro * area + o % ro; });
    bank(skipb, [&](int64_t ap, int64_t o) { return ub(ap) + o / ro * area + o % ro; });
    for (int64_t r = 0; r < g.rows; ++r) bank(ub, [&](int64_t ap, int64_t o) { return rowb(ap, r) + o; });
  }
  // The third scratch tile V after U (two three-word lines): V by A, V by T,
  // A by V, V by each row.
  auto vb = [&](int64_t ap) { return accb(ap) + 3 * t.toc * area; };
  if (g.scratch3) {
    const auto bank = [&](auto dst, auto src) {
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o) put(dst(ap) + o / ro * area + o % ro, src(ap, o), 0);
    };
    const auto at = [&](auto tile) {
      return [&, tile](int64_t ap, int64_t o) { return tile(ap) + o / ro * area + o % ro; };
    };
    bank(vb, at(accb));
    bank(vb, at(skipb));
    bank(accb, at(vb));
    for (int64_t r = 0; r < g.rows; ++r) bank(vb, [&](int64_t ap, int64_t o) { return rowb(ap, r) + o; });
  }
  // A fused pool's banks (pool_banks()): rowb0, the first row of a channel
  // block; pblk, its pooled rows (RB elements a block) after the tiles.
  // vert_banks[part][kh] (part: 0 all pooled rows of this half's rows; for
  // a row above the tile, kh < pp: 1 the first pooled row's, in the other
  // half, 2 the others', from the second pooled row), vert0_banks the same
  // for column 0 where the left border makes it apart.
  const int64_t RB = g.pk ? pool_rmax(g, t) * g.pwo * ro : 0, x0 = g.pp, col0 = g.ps * x0 - g.pp;
  auto rowb0 = [&](int64_t ap, int64_t o) { return accb(ap) + o / ro * area + o % ro; };
  auto pblk = [&](int64_t ap, int64_t o) {
    return accb(ap) + (1 + (g.scratch ? 1 : 0) + (g.scratch2 ? 1 : 0) + (g.scratch3 ? 1 : 0)) * t.toc * area +
           o / ro * RB + o % ro;
  };
  auto pool_bank = [&](auto dst, auto src) {
    const auto at = static_cast<int64_t>(uops.size());
    for (int64_t ap = 0; ap < 2; ++ap)
      for (int64_t o = 0; o < TO; ++o) put(dst(ap, o), src(ap, o), 0);
    return at;
  };
  int64_t out_bank = 0;
  const auto kn = static_cast<size_t>(g.pk + 1);
  std::vector<int64_t> border_banks(kn), col_banks(kn);
  std::vector<std::vector<int64_t>> vert_banks(3, std::vector<int64_t>(kn)), vert0_banks = vert_banks;
  if (pool) {
    if (g.pp > 0)
      for (int64_t j = 1; j < g.pk - g.pp; ++j)
        border_banks[static_cast<size_t>(j)] =
            pool_bank(rowb0, [&](int64_t ap, int64_t o) { return rowb0(ap, o) + j * ro; });
    for (int64_t kw = 1; kw < g.pk; ++kw)
      col_banks[static_cast<size_t>(kw)] =
          pool_bank([&](int64_t ap, int64_t o) { return rowb0(ap, o) + col0 * ro; },
                    [&](int64_t ap, int64_t o) { return rowb0(ap, o) + (col0 + kw) * ro; });
    out_bank = pool_bank(pblk, [](int64_t, int64_t) { return int64_t{0}; });
    for (int64_t x = x0; x >= 0; --x)  // x0, then column 0 where it is apart
      for (int64_t kh = 0; kh < g.pk; ++kh)
        for (int part = 0; part < (kh < g.pp ? 3 : 1); ++part) {
          if (kh < g.pp && part == 0) continue;
          const int64_t col = x == 0 && x0 > 0 ? 0 : col0, y = part == 2 ? 1 : 0;
          // The window row of pooled row y, from this half's first row (part 1: the other half's).
          const int64_t row = part == 1 ? t.th - g.pp + kh : g.ps * y + kh - g.pp;
          auto& banks = x == x0 ? vert_banks : vert0_banks;
          banks[static_cast<size_t>(part)][static_cast<size_t>(kh)] =
              pool_bank([&](int64_t ap, int64_t o) { return pblk(ap, o) + (y * g.pwo + x) * ro; },
                        [&](int64_t ap, int64_t o) { return rowb0(part == 1 ? 1 - ap : ap, o) + row * W + col * ro; });
        }
  }
  if (static_cast<int64_t>(uops.size()) != conv_uops(t, g, add != nullptr))
    fail("layer {}: {} uops where conv_uops() counts {}", n.name, uops.size(), conv_uops(t, g, add != nullptr));
  const int64_t conv_end = gemm.total;
  const int64_t epi_bank = conv_end, reset_bank = conv_end + 2 * TO;
  const int64_t sum_bank = conv_end + 4 * TO, skip_bank = conv_end + 6 * TO;
  const int64_t copy_bank = conv_end + 8 * TO;
  const int64_t row_bank = conv_end + (4 + (add || g.scratch ? 4 : 0) + (g.scratch ? 2 : 0)) * TO;
  const int64_t skip_gemm_bank = row_bank + (g.t_rows ? 4 : 2) * g.rows * TO;
  const int64_t bias_bank = skip_gemm_bank + (g.skip_gemm ? 4 : 0) * TO;
  const int64_t u_bank = bias_bank + (g.bias_gemm ? 4 : 0) * TO;           // U alone, U by A, T by U, U by the rows
  const int64_t v_bank = u_bank + (g.scratch2 ? 6 + 2 * g.rows : 0) * TO;  // V by A, V by T, A by V, V by the rows
  // The shifts of the conv's output and of the other operand (Add::shift_a applies to inputs[0]).
  const int shift_conv = add ? conv_shift(*add, a.self) : 0;
  const int shift_skip = add ? operand_shift(*add, a.self) : 0;

  // All uops of the layer in one load (compute module), before any GEMM.
  e.emit(
      mem(Opcode::LOAD, MemId::UOP, 0, a.uop, 1, static_cast<int64_t>(uops.size()), static_cast<int64_t>(uops.size())));

  std::vector<Insn> pending;  // the previous tile's epilogue, deferred
  // A deferred fused Add (ride): the previous tile's operand loads (in the
  // form of a step of their own), and its epilogue after its operand GEMM
  // (at sg in `pending`): the Add's requantization and stores, emitted after
  // the next tile's second GEMM step.
  std::vector<Insn> rider, pending_b;
  // The rider as part of a step: no token of its own; its GEMM pushes the step's.
  auto ride_along = [&]() {
    if (rider.front()[Member::pop_next]) rider.front()[Member::pop_next] = 0, ++e.c2l;
    rider.back()[Member::push_next] = 0;
    pending.back()[Member::pop_prev] = 0;
  };
  int64_t q = 0, tile = 0;
  WeightsKey held[2] = {{-1, -1, -1, -1}, {-1, -1, -1, -1}};  // what each WGT half holds (reuses_weights())
  for_each_tile(g, t, [&](int64_t nb, int64_t oh0, int64_t ow0, int64_t ob0) {
    const int64_t th = std::min(t.th, g.ho - oh0), toc = std::min(t.toc, g.cob - ob0);
    // A narrower last tile of the row: its own row pitch (tw, iwc) and, for k > 1, uop bank.
    const int64_t tw = std::min(t.tw, g.wo - ow0), iwc = (tw - 1) * g.s + g.k;
    const int wc = tw < t.tw;
    const bool whole = whole_rows(g, t, th, tw);  // one STORE (and operand LOAD) for all toc blocks
    const int64_t ap = tile % 2;
    const int64_t steps = g.dw ? 1 : (g.cib + t.tic - 1) / t.tic;
    for (int64_t j = 0; j < steps; ++j, ++q) {
      const int64_t sp = q % 2, c0 = j * t.tic;
      const int64_t tic = g.dw ? 1 : std::min(t.tic, g.cib - c0), TI = tic * ri;
      const int cc = tic < t.tic;
      // load
      const int64_t ih0 = oh0 * g.s - g.p, ih1 = ih0 + (th - 1) * g.s + g.k;
      const int64_t iw0 = ow0 * g.s - g.p, iw1 = iw0 + iwc;
      const int64_t yp0 = std::max<int64_t>(0, -ih0), yp1 = std::max<int64_t>(0, ih1 - g.h);
      const int64_t xp0 = std::max<int64_t>(0, -iw0), xp1 = std::max<int64_t>(0, iw1 - g.w);
      const int64_t ys = ih1 - yp1 - (ih0 + yp0), xs = iw1 - xp1 - (iw0 + xp0);
      if (ys <= 0 || xs <= 0 || yp0 > 15 || yp1 > 15 || xp0 * ri > 15 || xp1 * ri > 15)
        fail("layer {}: a tile lies entirely in padding or needs more than 15 pad elements", n.name);
      // Input channel blocks of this step: tic from c0, or (depthwise) the output blocks.
      const int64_t in_blocks = g.dw ? toc : tic, in_first = g.dw ? ob0 : c0;
      for (int64_t ci = 0; ci < in_blocks; ++ci) {
        Insn l = mem(Opcode::LOAD, MemId::INP, inpb(sp) + ci * ri * ih * iw,
                     a.in + (((nb * g.cib + in_first + ci) * g.h + ih0 + yp0) * g.w + iw0 + xp0) * ri, ys, xs * ri,
                     g.w * ri);
        l[Member::y_pad_0] = static_cast<uint32_t>(yp0);
        l[Member::y_pad_1] = static_cast<uint32_t>(yp1);
        l[Member::x_pad_0] = static_cast<uint32_t>(xp0 * ri);
        l[Member::x_pad_1] = static_cast<uint32_t>(xp1 * ri);
        if (ci == 0 && q >= 2) l[Member::pop_next] = 1, --e.c2l;
        e.emit(l);
      }
      // WGT elements in DRAM: [cob ro][cib ri][k][k]; depthwise: one input block per output block.
      const int64_t wgt_cols = g.dw ? 1 : g.cib * ri;
      Insn w = mem(Opcode::LOAD, MemId::WGT, wgtb(sp), a.wgt + (ob0 * ro * wgt_cols + (g.dw ? 0 : c0 * ri)) * kk,
                   toc * ro, TI * kk, wgt_cols * kk);
      const WeightsKey key = weights_key(ob0, c0, toc, tic);
      const bool held_here = reuses_weights(c) && held[sp] == key;  // then the bias lanes too (j = 0, same ob0)
      held[sp] = key;
      if (g.bias_gemm && j == 0 && !held_here) {  // the bias lanes: constant INP element, the toc blocks' bias WGT rows
        e.emit(mem(Opcode::LOAD, MemId::INP, inpb(sp) + bias_inp_at, a.bias_inp, 1, 1, 1));
        e.emit(mem(Opcode::LOAD, MemId::WGT, wgtb(sp) + bias_wgt_at, a.bias + ob0 * ro, 1, toc * ro, toc * ro));
      }
      w[Member::push_next] = 1;
      if (j == 0 && !rider.empty()) {
        ride_along();
        for (const Insn& i : rider) e.emit(i);
        rider.clear();
      }
      if (held_here)
        e.insns.back()[Member::push_next] = 1;  // the step's last load
      else
        e.emit(w);
      // compute
      // Immediates only with a bias by GEMM: the reset bank's uops (dst alone).
      const Insn epi =
          loop(Opcode::ALU, (g.bias_gemm ? reset_bank : epi_bank) + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
      EpilogueBanks banks{loop(Opcode::ALU, skip_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0),
                          loop(Opcode::ALU, sum_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro),
                          loop(Opcode::ALU, copy_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro),
                          {},
                          {},
                          {},
                          {},
                          {},
                          {},
                          {},
                          {},
                          {},
                          {}};
      for (int64_t r = 0; r < g.rows; ++r)
        banks.rows.push_back(loop(Opcode::ALU, row_bank + (2 * r + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
      if (g.t_rows)
        for (int64_t r = 0; r < g.rows; ++r)
          banks.t_rows.push_back(
              loop(Opcode::ALU, row_bank + (2 * (g.rows + r) + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
      if (g.scratch2) {
        banks.u = loop(Opcode::ALU, u_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
        banks.u_by_a = loop(Opcode::ALU, u_bank + (2 + ap) * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro);
        banks.t_by_u = loop(Opcode::ALU, u_bank + (4 + ap) * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro);
        for (int64_t r = 0; r < g.rows; ++r)
          banks.u_rows.push_back(
              loop(Opcode::ALU, u_bank + (6 + 2 * r + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
      }
      if (g.scratch3) {
        banks.v_by_a = loop(Opcode::ALU, v_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro);
        banks.v_by_t = loop(Opcode::ALU, v_bank + (2 + ap) * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro);
        banks.a_by_v = loop(Opcode::ALU, v_bank + (4 + ap) * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro);
        for (int64_t r = 0; r < g.rows; ++r)
          banks.v_rows.push_back(
              loop(Opcode::ALU, v_bank + (6 + 2 * r + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
      }
      bool popped = false;  // load->compute of this step
      if (j == 0) {
        bool s2c_popped = tile < 2;
        if (!g.bias_gemm) {
          Insn b = mem(Opcode::LOAD, MemId::ACC, biasb(ap), a.bias + ob0 * ro, 1, toc * ro, toc * ro);
          if (!s2c_popped) b[Member::pop_next] = 1, --e.s2c, s2c_popped = true;
          e.emit(b);
        }
        for (int64_t r = 0; r < g.rows; ++r)
          e.emit(mem(Opcode::LOAD, MemId::ACC, rowb(ap, r), a.row + r * a.row_pitch + ob0 * ro, 1, toc * ro, toc * ro));
        // The reset's uops name only ACC rows (the epilogue's bias row is no INP index).
        Insn r = loop(Opcode::GEMM, reset_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
        r[Member::reset] = 1;
        if (zeroes)
          r = alu(AluOp::SHR, true, 32, loop(Opcode::ALU, reset_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
        if (!s2c_popped) r[Member::pop_next] = 1, --e.s2c;
        e.emit(r);
        if (g.bias_gemm) {
          Insn bg = loop(Opcode::GEMM, bias_bank + (sp * 2 + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
          bg[Member::pop_prev] = 1;
          popped = true;
          e.emit(bg);
        }
      }
      // A deferred fused Add's second part (pending_b) splits the second
      // step's GEMM by output columns (store_split()): its stores then
      // follow the first part (C4) and run beside the second.
      const int64_t bank0 = gemm.at[wc][cc] + (sp * 2 + ap) * gemm.size[wc][cc];
      const int64_t split = splits && j == 1 && !pending_b.empty() ? store_split(g, toc) : 0;
      auto gemm_part = [&](int64_t o0, int64_t o1) {
        return loop(Opcode::GEMM, bank0 + o0 * TI * kk, (o1 - o0) * TI * kk, th, tw, tw * ro, ro, g.s * iwc * ri,
                    g.s * ri);
      };
      Insn gm = gemm_part(split, toc * ro);
      gm[Member::pop_prev] = popped ? 0 : 1;
      const bool rides = j == 0 && ride && !pending_b.empty();  // the operand GEMM in `pending` pushes instead
      gm[Member::push_prev] = rides ? 0 : 1;
      e.c2l += rides ? 0 : 1;
      if (split > 0) {
        Insn first = gemm_part(0, split);
        first[Member::pop_prev] = gm[Member::pop_prev];
        gm[Member::pop_prev] = 0;
        e.emit(first);
        for (const Insn& i : pending_b) e.emit(i);
        pending_b.clear();
      }
      e.emit(gm);
      if (j == 0) {
        for (const Insn& i : pending) e.emit(i);
        pending.clear();
      }
      if (j == 1) {
        for (const Insn& i : pending_b) e.emit(i);
        pending_b.clear();
      }
      // A deferred fused pool: this tile's pooled rows reset and its first
      // pooled row started from the rows above it (window rows kh < pp, the
      // first ADD, in the other half) before the next tile's GEMM.
      if (pool && defer && j == steps - 1) {
        Insn r = loop(Opcode::GEMM, out_bank + ap * TO, toc * ro, pool_rows(g, th), g.pwo, g.pwo * ro, ro, 0, 0);
        r[Member::reset] = 1;
        e.emit(r);
        for (int64_t kh = 0; kh < g.pp && oh0 > 0; ++kh) {
          const AluOp op = kh == 0 ? AluOp::ADD : AluOp::MAX;
          const auto ki = static_cast<size_t>(kh);
          if (g.pwo > x0)
            e.emit(alu(op, false, 0,
                       loop(Opcode::ALU, vert_banks[1][ki] + ap * TO, toc * ro, 1, g.pwo - x0, g.pwo * ro, ro, g.ps * W,
                            g.ps * ro)));
          if (x0 > 0)
            e.emit(alu(op, false, 0,
                       loop(Opcode::ALU, vert0_banks[1][ki] + ap * TO, toc * ro, 1, 1, g.pwo * ro, 0, g.ps * W, 0)));
        }
      }
      // A residual operand by GEMM: step q + 1 loads its toc blocks of th x tw positions and the identity.
      const int64_t sq = (q + 1) % 2;
      const bool operand_step = j == steps - 1 && add && g.skip_gemm;
      const size_t operand_from = e.insns.size();
      if (operand_step) {
        const int64_t blk = t.th * t.tw * ri;  // an operand block's INP elements in SRAM
        const int64_t loads = whole ? 1 : toc;
        for (int64_t o = 0; o < loads; ++o) {
          Insn l = whole
                       ? mem(Opcode::LOAD, MemId::INP, inpb(sq) + op_at.inp,
                             a.in2 + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ri, toc, th * tw * ri, g.ho * g.wo * ri)
                       : mem(Opcode::LOAD, MemId::INP, inpb(sq) + op_at.inp + o * blk,
                             a.in2 + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ri, th, tw * ri, g.wo * ri);
          if (o == 0 && q + 1 >= 2) l[Member::pop_next] = 1, --e.c2l;
          e.emit(l);
        }
        Insn w1 = mem(Opcode::LOAD, MemId::WGT, wgtb(sq) + op_at.wgt, a.identity, 1, 1, 1);
        w1[Member::push_next] = 1;
        e.emit(w1);
      }
      const size_t epilogue_at = e.insns.size();
      size_t sg_end = 0, passes_end = 0;  // after the operand GEMM; after a fused pool's passes
      if (j == steps - 1) {
        if (!g.bias_gemm) e.emit(alu(AluOp::ADD, false, 0, epi));  // + bias row of each channel block
        if (!g.pool_first) emit_requant(e, epi, n, add == nullptr && pool == nullptr, &banks);
        if (add) {
          if (shift_conv > 0) e.emit(alu(AluOp::SHR, true, -shift_conv, epi));
          if (g.skip_gemm) {
            Insn sg =
                loop(Opcode::GEMM, skip_gemm_bank + (sq * 2 + ap) * TO, toc * ro, th, tw, tw * ro, ro, tw * ri, ri);
            sg[Member::pop_prev] = 1;
            sg[Member::push_prev] = 1;
            ++e.c2l;
            e.emit(sg);
            sg_end = e.insns.size();
          } else if (whole)
            e.emit(mem(Opcode::LOAD, MemId::ACC_8BIT, skipb(ap), a.in2 + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ro,
                       toc, th * tw * ro, g.ho * g.wo * ro));
          else
            for (int64_t o = 0; o < toc; ++o)
              e.emit(mem(Opcode::LOAD, MemId::ACC_8BIT, skipb(ap) + o * area,
                         a.in2 + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ro, th, tw * ro, g.wo * ro));
          if (!g.skip_gemm) {
            const Insn skip = loop(Opcode::ALU, skip_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
            if (shift_skip > 0) e.emit(alu(AluOp::SHR, true, -shift_skip, skip));
            e.emit(alu(AluOp::ADD, false, 0,
                       loop(Opcode::ALU, sum_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro)));
          }
          emit_requant(e, epi, *add);
        }
        if (operand_step && !ride) {              // the operand's step (riding: the next tile's first step)
          held[sq] = WeightsKey{-1, -1, -1, -1};  // its identity at the start of the WGT half
          ++q;
        }
        if (pool) {
          const int64_t R = pool_rows(g, th);
          auto pl = [&](int64_t bank, int64_t io, int64_t ii, int64_t dfo, int64_t dfi, int64_t sfo, int64_t sfi) {
            return loop(Opcode::ALU, bank + ap * TO, toc * ro, io, ii, dfo, dfi, sfo, sfi);
          };
          std::vector<Insn> ops;
          for (int64_t b = std::min(g.pk - g.pp, g.wo) - 1; b >= 1 && g.pp > 0; --b)
            ops.push_back(alu(AluOp::MAX, false, 0, pl(border_banks[static_cast<size_t>(b)], th, 1, W, 0, W, 0)));
          for (int64_t kw = g.pk - 1; kw >= 1; --kw) {
            const int64_t cols = pool_x_end(g, kw) - x0;
            if (cols > 0)
              ops.push_back(alu(AluOp::MAX, false, 0,
                                pl(col_banks[static_cast<size_t>(kw)], th, cols, W, g.ps * ro, W, g.ps * ro)));
          }
          Insn r = loop(Opcode::GEMM, out_bank + ap * TO, toc * ro, R, g.pwo, g.pwo * ro, ro, 0, 0);
          r[Member::reset] = 1;
          if (!defer) ops.push_back(r);  // deferred: before the next tile's GEMM
          // Window row pp first (every pooled row has it, ADD), then the others
          // (MAX). Deferred below the top tile: window row 0 first (every
          // pooled row has it too), its first pooled row's op (part 1) made
          // before the next tile's GEMM.
          const bool cross = defer && oh0 > 0;
          for (int64_t i = 0; i < g.pk; ++i) {
            const int64_t kh = cross ? i : (g.pp + i) % g.pk, prows = pool_y_end(g, th, kh);
            const AluOp op = i == 0 ? AluOp::ADD : AluOp::MAX;
            for (int part = 0; part < 3; ++part) {
              if ((kh < g.pp) == (part == 0) || (part == 1 && (oh0 == 0 || cross))) continue;  // the top: padding
              const int64_t nrows = part == 1 ? 1 : prows - (part == 2 ? 1 : 0);
              if (nrows <= 0) continue;
              const size_t pi = static_cast<size_t>(part), ki = static_cast<size_t>(kh);
              if (g.pwo > x0)
                ops.push_back(
                    alu(op, false, 0, pl(vert_banks[pi][ki], nrows, g.pwo - x0, g.pwo * ro, ro, g.ps * W, g.ps * ro)));
              if (x0 > 0)
                ops.push_back(alu(op, false, 0, pl(vert0_banks[pi][ki], nrows, 1, g.pwo * ro, 0, g.ps * W, 0)));
            }
          }
          if (!g.pool_first) ops.back()[Member::push_next] = 1;
          for (const Insn& i : ops) e.emit(i);
          passes_end = e.insns.size();
          // Pooled accumulators: requantized now, over the pooled rows alone.
          if (g.pool_first)
            emit_requant(e, loop(Opcode::ALU, out_bank + ap * TO, toc * ro, R, g.pwo, g.pwo * ro, ro, 0, 0), n);
          // The pooled rows: one run of R pwo positions a block, or one STORE for all (whole_rows()).
          const int64_t run = R * g.pwo * ro, pitch = g.pho * g.pwo * ro;
          const int64_t at = a.out + ((nb * g.cob + ob0) * g.pho + oh0 / g.ps) * g.pwo * ro;
          const int64_t stores = whole ? 1 : toc;
          for (int64_t o = 0; o < stores; ++o) {
            Insn s = whole ? mem(Opcode::STORE, MemId::OUT, pblk(ap, 0), at, toc, run, pitch)
                           : mem(Opcode::STORE, MemId::OUT, pblk(ap, 0) + o * RB, at + o * pitch, 1, run, run);
            if (o == 0) s[Member::pop_prev] = 1;
            if (o == stores - 1) s[Member::push_prev] = 1, ++e.s2c;
            e.emit(s);
          }
        } else {
          // store: one per channel block, or one for all (whole_rows())
          const int64_t stores = whole ? 1 : toc;
          for (int64_t o = 0; o < stores; ++o) {
            Insn s =
                whole ? mem(Opcode::STORE, MemId::OUT, accb(ap), a.out + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ro,
                            toc, th * tw * ro, g.ho * g.wo * ro)
                      : mem(Opcode::STORE, MemId::OUT, accb(ap) + o * area,
                            a.out + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ro, th, tw * ro, g.wo * ro);
            if (o == 0) s[Member::pop_prev] = 1;
            if (o == stores - 1) s[Member::push_prev] = 1, ++e.s2c;
            e.emit(s);
          }
        }
      }
      if (defer && j == steps - 1) {
        const auto at = [&](size_t i) { return e.insns.begin() + static_cast<std::ptrdiff_t>(i); };
        if (ride) {
          rider.assign(at(operand_from), at(epilogue_at));
          pending.assign(at(epilogue_at), at(sg_end));
          pending_b.assign(at(sg_end), e.insns.end());
          e.insns.resize(operand_from);
        } else if (pool && steps >= 2) {
          // A fused pool: its passes follow the next tile's first GEMM step,
          // its requantization and stores the second (before that tile's
          // pooled rows' reset), so that the second step need not wait for
          // the whole epilogue's issue.
          pending.assign(at(epilogue_at), at(passes_end));
          pending_b.assign(at(passes_end), e.insns.end());
          e.insns.resize(epilogue_at);
        } else {
          pending.assign(at(epilogue_at), e.insns.end());
          e.insns.resize(epilogue_at);
        }
      }
    }
    ++tile;
  });
  // The last tile's: a fused Add's operand in a step of its own.
  for (const auto* v : {&rider, &pending, &pending_b})
    for (const Insn& i : *v) e.emit(i);
}

}  // namespace vta::compiler::codegen
