// Codegen: instructions, uops and dependency tokens for conv/dense (with a
// fused residual Add), add and pool layers: the pipeline's "codegen" pass.
//
// Token protocol (two virtual threads, see tile_search.cpp): step q of a layer
// uses the INP/WGT halves q % 2, output tile t the ACC/OUT half t % 2.
//   load    step q: pops compute->load when q >= 2 (compute is done with the
//           half), loads, pushes load->compute.
//   compute step q: pops load->compute, GEMMs, pushes compute->load. The
//           first step of tile t >= 2 pops store->compute (the store of tile
//           t-2 has drained the ACC half); the last step requantizes and
//           pushes compute->store. A bias by GEMM (bias_gemm.h) is the first
//           step's first GEMM, after the reset, and pops its load->compute.
//           A fused Add's operand by GEMM is one more step per tile (its
//           loads follow the last conv step's GEMM, its GEMM the conv's
//           requantization).
//   store   tile t: pops compute->store, stores, pushes store->compute.
// At a layer's end compute pops the outstanding store tokens (every output is
// in DRAM) and, when another layer follows, pushes compute->load; the next
// layer's load stream starts by popping every outstanding compute->load
// token. Every pop thus waits on an instruction emitted earlier, so no
// program can deadlock behind the in-order fetch, whatever the queue depths.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "schedule/planner.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/passes/pass.h"
#include "vta/compiler/schedule/bias_gemm.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/isa/error.h"
#include "vta/model/builders.h"

namespace vta::compiler {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

namespace {

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// LOAD or STORE (vta/model/builders.h) from the planner's 64-bit sizes.
Insn mem(Opcode o, MemId m, int64_t sram, int64_t dram, int64_t y, int64_t x, int64_t stride) {
  return o == Opcode::STORE ? build::store(u32(sram), u32(dram), u32(y), u32(x), u32(stride))
                            : build::load(m, u32(sram), u32(dram), u32(y), u32(x), u32(stride));
}

// A GEMM or ALU loop nest over uops [0, uops) of a bank at `bank`.
Insn loop(Opcode o, int64_t bank, int64_t uops, int64_t io, int64_t ii, int64_t dfo, int64_t dfi, int64_t sfo,
          int64_t sfi) {
  return o == Opcode::GEMM
             ? build::gemm(false, u32(bank), u32(bank + uops), u32(io), u32(ii), u32(dfo), u32(dfi), u32(sfo), u32(sfi))
             : build::alu(AluOp::MIN, false, 0, u32(bank), u32(bank + uops), u32(io), u32(ii), u32(dfo), u32(dfi),
                          u32(sfo), u32(sfi));
}

Insn alu(AluOp a, bool use_imm, int32_t imm, Insn shape) {
  shape[Member::opcode] = static_cast<uint32_t>(Opcode::ALU);
  shape[Member::alu_opcode] = static_cast<uint32_t>(a);
  shape[Member::use_imm] = use_imm ? 1 : 0;
  shape[Member::imm] = static_cast<uint32_t>(imm) & 0xffffu;
  shape[Member::reset] = 0;
  return shape;
}

// Collects a segment's instructions and keeps count of the tokens in flight.
class Emitter {
 public:
  std::vector<Insn> insns;
  int64_t c2l = 0, s2c = 0;  // outstanding compute->load and store->compute tokens

  void emit(Insn i) { insns.push_back(i); }
  // Token-only instructions of each module.
  void load_pop() {
    Insn i = mem(Opcode::LOAD, MemId::INP, 0, 0, 0, 0, 0);
    i[Member::pop_next] = 1;
    emit(i);
    --c2l;
  }
  void compute_token(bool pop_next, bool push_prev) {
    Insn i = mem(Opcode::LOAD, MemId::UOP, 0, 0, 0, 0, 0);
    i[Member::pop_next] = pop_next;
    i[Member::push_prev] = push_prev;
    emit(i);
    if (pop_next) --s2c;
    if (push_prev) ++c2l;
  }
  void begin_layer() {
    while (c2l > 0) load_pop();
  }
  void end_layer(bool more) {
    while (s2c > 0) compute_token(true, false);
    if (more) compute_token(false, true);
  }
};

// Requantization epilogue of node `n` on the ACC tile described by `shape`
// (an ALU loop over the epilogue uops): requant_steps(); the last
// instruction pushes compute->store.
// The loops of the steps on the scratch tile and the shift row (AluStep::On).
struct EpilogueBanks {
  Insn t, a_by_t, t_by_a;
  std::vector<Insn> rows, t_rows;  // by AluStep::row: A by the row, T by the row
  Insn u, u_by_a, t_by_u;          // the second scratch tile U (ConvGeom::scratch2)
  std::vector<Insn> u_rows;        // U by the row
  Insn v_by_a, v_by_t, a_by_v;     // the third scratch tile V (ConvGeom::scratch3)
  std::vector<Insn> v_rows;        // V by the row
};
void emit_requant(Emitter& e, const Insn& shape, const Node& n, bool push = true,
                  const EpilogueBanks* banks = nullptr) {
  using On = AluStep::On;
  const std::vector<AluStep> steps = requant_steps(n);
  for (size_t i = 0; i < steps.size(); ++i) {
    const On on = steps[i].on;
    if (on != On::A && !banks) fail("layer {}: its requantization needs a scratch tile", n.name);
    const Insn& sh = on == On::A        ? shape
                     : on == On::T      ? banks->t
                     : on == On::AbyT   ? banks->a_by_t
                     : on == On::TbyA   ? banks->t_by_a
                     : on == On::AbyRow ? banks->rows.at(static_cast<size_t>(steps[i].row))
                     : on == On::TbyRow ? banks->t_rows.at(static_cast<size_t>(steps[i].row))
                     : on == On::U      ? banks->u
                     : on == On::UbyA   ? banks->u_by_a
                     : on == On::TbyU   ? banks->t_by_u
                     : on == On::VbyA   ? banks->v_by_a
                     : on == On::VbyT   ? banks->v_by_t
                     : on == On::AbyV   ? banks->a_by_v
                     : on == On::VbyRow ? banks->v_rows.at(static_cast<size_t>(steps[i].row))
                                        : banks->u_rows.at(static_cast<size_t>(steps[i].row));
    Insn insn = alu(steps[i].op, on == On::A || on == On::T || on == On::U, steps[i].imm, sh);
    if (push && i + 1 == steps.size()) insn[Member::push_next] = 1;
    e.emit(insn);
  }
}

struct LayerAddrs {
  int64_t in = 0, in2 = 0, out = 0, wgt = 0, bias = 0, uop = 0, row = 0;  // element indices of each buffer
  int64_t bias_inp = 0;   // the constant INP element of a bias by GEMM (a.bias: its WGT rows)
  int64_t identity = 0;   // the WGT element of a residual operand by GEMM (scaled_identity())
  int64_t row_pitch = 0;  // ACC elements from one operand row to the next
  int self = -1;                                                  // the node's id
};

// Conv2d / Dense. Writes the layer's uops to `uops`. A channel block is
// g.ri INP and g.ro OUT elements per position, adjacent in SRAM as in DRAM.
// `add`: a residual Add fused into the epilogue (fused_add()): its other
// operand (at a.in2) is loaded into a second ACC tile after the conv's
// requantization, both are shifted to the common scale, added and
// requantized, and the tile is stored as the Add's output (a.out); with
// g.skip_gemm the operand is an INP tile that a GEMM by 2^shift I adds.
// Or `fused` is a max pool (fused_pool(), ConvGeom::pk): the tiles are whole
// rows, channel block columns first (for_each_tile()). After the
// requantization each conv row's columns are max-pooled in place as
// emit_pool()'s separable form does (the left border column, whose window is
// clipped, first); the pooled rows, after the tiles in ACC, are reset and
// take the ADD of their window row pp (always inside) and the MAX of the
// others (column 0 apart where it is the border's). The pp rows above a tile
// are the last rows of the tile before it, still in the other ACC half
// (compute is in order, and the tile after this one, which rewrites that
// half, comes later); above the top tile they are padding, which never wins.
// Where the requantization is non-decreasing (g.pool_first,
// pool_before_requant()) all this runs on the accumulators, before it, and
// only the pooled rows are requantized. Only the pooled rows are stored (at
// a.out, the pool's map).
void emit_conv(Emitter& e, const Node& n, const ConvGeom& g, const Tile& t, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout, const Node* fused) {
  const Node* pool = fused && fused->op == Op::MaxPool ? fused : nullptr;
  const Node* add = pool ? nullptr : fused;
  const auto& d = c.derived;
  const int64_t kk = g.k * g.k, ri = g.ri, ro = g.ro;
  const int64_t ih = (t.th - 1) * g.s + g.k, iw = (t.tw - 1) * g.s + g.k;
  const int64_t inp_half = d.inp_depth / 2, wgt_half = d.wgt_depth / 2, acc_half = d.acc_depth / 2;
  const int64_t TO = t.toc * ro;  // OUT element columns of a tile
  const int64_t area = tile_area(g, t);  // ACC elements of one output channel block
  const int64_t W = t.tw * ro;            // ACC elements of one of its rows
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
  auto put = [&](int64_t dst, int64_t src, int64_t wgt) {
    Insn u;
    u[Member::dst] = static_cast<uint32_t>(dst);
    u[Member::src] = static_cast<uint32_t>(src);
    u[Member::wgt] = static_cast<uint32_t>(wgt);
    uops.push_back(layout.encode_uop(u));
  };
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
  if (g.skip_gemm)  // the operand's INP tile at the start of its step's half, the identity after it
    for (int64_t sp = 0; sp < 2; ++sp)
      for (int64_t ap = 0; ap < 2; ++ap)
        for (int64_t o = 0; o < TO; ++o)
          put(accb(ap) + o / ro * area + o % ro, inpb(sp) + o / ro * t.th * t.tw * ri + o % ro, wgtb(sp));
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
    return accb(ap) + (1 + (g.scratch ? 1 : 0) + (g.scratch2 ? 1 : 0) + (g.scratch3 ? 1 : 0)) * t.toc * area + o / ro * RB + o % ro;
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
        border_banks[static_cast<size_t>(j)] = pool_bank(rowb0, [&](int64_t ap, int64_t o) { return rowb0(ap, o) + j * ro; });
    for (int64_t kw = 1; kw < g.pk; ++kw)
      col_banks[static_cast<size_t>(kw)] = pool_bank([&](int64_t ap, int64_t o) { return rowb0(ap, o) + col0 * ro; },
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
  const int64_t u_bank = bias_bank + (g.bias_gemm ? 4 : 0) * TO;  // U alone, U by A, T by U, U by the rows
  const int64_t v_bank = u_bank + (g.scratch2 ? 6 + 2 * g.rows : 0) * TO;  // V by A, V by T, A by V, V by the rows
  // The shifts of the conv's output and of the other operand (Add::shift_a applies to inputs[0]).
  const int shift_conv = add ? conv_shift(*add, a.self) : 0;
  const int shift_skip = add ? operand_shift(*add, a.self) : 0;

  // All uops of the layer in one load (compute module), before any GEMM.
  e.emit(
      mem(Opcode::LOAD, MemId::UOP, 0, a.uop, 1, static_cast<int64_t>(uops.size()), static_cast<int64_t>(uops.size())));

  int64_t q = 0, tile = 0;
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
                           a.in + (((nb * g.cib + in_first + ci) * g.h + ih0 + yp0) * g.w + iw0 + xp0) * ri, ys,
                           xs * ri, g.w * ri);
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
            if (g.bias_gemm && j == 0) {  // the bias lanes: constant INP element, the toc blocks' bias WGT rows
              e.emit(mem(Opcode::LOAD, MemId::INP, inpb(sp) + bias_inp_at, a.bias_inp, 1, 1, 1));
              e.emit(mem(Opcode::LOAD, MemId::WGT, wgtb(sp) + bias_wgt_at, a.bias + ob0 * ro, 1, toc * ro, toc * ro));
            }
            w[Member::push_next] = 1;
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
              banks.rows.push_back(
                  loop(Opcode::ALU, row_bank + (2 * r + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0));
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
                e.emit(mem(Opcode::LOAD, MemId::ACC, rowb(ap, r), a.row + r * a.row_pitch + ob0 * ro, 1, toc * ro,
                           toc * ro));
              // The reset's uops name only ACC rows (the epilogue's bias row is no INP index).
              Insn r = loop(Opcode::GEMM, reset_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
              r[Member::reset] = 1;
              if (!s2c_popped) r[Member::pop_next] = 1, --e.s2c;
              e.emit(r);
              if (g.bias_gemm) {
                Insn bg = loop(Opcode::GEMM, bias_bank + (sp * 2 + ap) * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
                bg[Member::pop_prev] = 1;
                popped = true;
                e.emit(bg);
              }
            }
            Insn gm = loop(Opcode::GEMM, gemm.at[wc][cc] + (sp * 2 + ap) * gemm.size[wc][cc], toc * ro * TI * kk, th,
                           tw, tw * ro, ro, g.s * iwc * ri, g.s * ri);
            gm[Member::pop_prev] = popped ? 0 : 1;
            gm[Member::push_prev] = 1;
            ++e.c2l;
            e.emit(gm);
            // A residual operand by GEMM: step q + 1 loads its toc blocks of th x tw positions and the identity.
            const int64_t sq = (q + 1) % 2;
            const bool operand_step = j == steps - 1 && add && g.skip_gemm;
            if (operand_step) {
              const int64_t blk = t.th * t.tw * ri;  // an operand block's INP elements in SRAM
              const int64_t loads = whole ? 1 : toc;
              for (int64_t o = 0; o < loads; ++o) {
                Insn l = whole ? mem(Opcode::LOAD, MemId::INP, inpb(sq), a.in2 + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ri,
                                     toc, th * tw * ri, g.ho * g.wo * ri)
                               : mem(Opcode::LOAD, MemId::INP, inpb(sq) + o * blk,
                                     a.in2 + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ri, th, tw * ri,
                                     g.wo * ri);
                if (o == 0 && q + 1 >= 2) l[Member::pop_next] = 1, --e.c2l;
                e.emit(l);
              }
              Insn w1 = mem(Opcode::LOAD, MemId::WGT, wgtb(sq), a.identity, 1, 1, 1);
              w1[Member::push_next] = 1;
              e.emit(w1);
            }
            if (j == steps - 1) {
              if (!g.bias_gemm) e.emit(alu(AluOp::ADD, false, 0, epi));  // + bias row of each channel block
              if (!g.pool_first) emit_requant(e, epi, n, add == nullptr && pool == nullptr, &banks);
              if (add) {
                if (shift_conv > 0) e.emit(alu(AluOp::SHR, true, -shift_conv, epi));
                if (g.skip_gemm) {
                  Insn sg = loop(Opcode::GEMM, skip_gemm_bank + (sq * 2 + ap) * TO, toc * ro, th, tw, tw * ro, ro,
                                 tw * ri, ri);
                  sg[Member::pop_prev] = 1;
                  sg[Member::push_prev] = 1;
                  ++e.c2l;
                  e.emit(sg);
                } else if (whole)
                  e.emit(mem(Opcode::LOAD, MemId::ACC_8BIT, skipb(ap), a.in2 + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ro,
                             toc, th * tw * ro, g.ho * g.wo * ro));
                else
                  for (int64_t o = 0; o < toc; ++o)
                    e.emit(mem(Opcode::LOAD, MemId::ACC_8BIT, skipb(ap) + o * area,
                               a.in2 + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ro, th, tw * ro,
                               g.wo * ro));
                if (!g.skip_gemm) {
                  const Insn skip = loop(Opcode::ALU, skip_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, 0, 0);
                  if (shift_skip > 0) e.emit(alu(AluOp::SHR, true, -shift_skip, skip));
                  e.emit(alu(AluOp::ADD, false, 0,
                             loop(Opcode::ALU, sum_bank + ap * TO, toc * ro, th, tw, tw * ro, ro, tw * ro, ro)));
                }
                emit_requant(e, epi, *add);
              }
              if (operand_step) ++q;  // the operand's step
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
                ops.push_back(r);
                // Window row pp first (every pooled row has it, ADD), then the others (MAX).
                for (int64_t i = 0; i < g.pk; ++i) {
                  const int64_t kh = (g.pp + i) % g.pk, prows = pool_y_end(g, th, kh);
                  const AluOp op = i == 0 ? AluOp::ADD : AluOp::MAX;
                  for (int part = 0; part < 3; ++part) {
                    if ((kh < g.pp) == (part == 0) || (part == 1 && oh0 == 0)) continue;  // the top: padding
                    const int64_t nrows = part == 1 ? 1 : prows - (part == 2 ? 1 : 0);
                    if (nrows <= 0) continue;
                    const size_t pi = static_cast<size_t>(part), ki = static_cast<size_t>(kh);
                    if (g.pwo > x0)
                      ops.push_back(alu(op, false, 0,
                                        pl(vert_banks[pi][ki], nrows, g.pwo - x0, g.pwo * ro, ro, g.ps * W, g.ps * ro)));
                    if (x0 > 0)
                      ops.push_back(alu(op, false, 0, pl(vert0_banks[pi][ki], nrows, 1, g.pwo * ro, 0, g.ps * W, 0)));
                  }
                }
                if (!g.pool_first) ops.back()[Member::push_next] = 1;
                for (const Insn& i : ops) e.emit(i);
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
                Insn s = whole ? mem(Opcode::STORE, MemId::OUT, accb(ap),
                                     a.out + ((nb * g.cob + ob0) * g.ho + oh0) * g.wo * ro, toc, th * tw * ro,
                                     g.ho * g.wo * ro)
                               : mem(Opcode::STORE, MemId::OUT, accb(ap) + o * area,
                                     a.out + (((nb * g.cob + ob0 + o) * g.ho + oh0) * g.wo + ow0) * ro, th, tw * ro,
                                     g.wo * ro);
                if (o == 0) s[Member::pop_prev] = 1;
                if (o == stores - 1) s[Member::push_prev] = 1, ++e.s2c;
                e.emit(s);
              }
              }
            }
          }
          ++tile;
        });
}

// Residual add: both inputs in ACC via ACC_8BIT loads (compute module), in
// chunks of a quarter of the ACC buffer (two chunks per half); `total`
// ACC_8BIT elements.
void emit_add(Emitter& e, const Node& n, int64_t total, const LayerAddrs& a, const Config& c,
              std::vector<uint32_t>& uops, const isa::Layout& layout) {
  const int64_t acc_half = c.derived.acc_depth / 2, chunk_max = acc_half / 2;
  for (int64_t ap = 0; ap < 2; ++ap) {
    Insn u0, u1;
    u0[Member::dst] = static_cast<uint32_t>(ap * acc_half);
    u0[Member::src] = static_cast<uint32_t>(ap * acc_half + chunk_max);
    u1[Member::dst] = static_cast<uint32_t>(ap * acc_half + chunk_max);
    uops.push_back(layout.encode_uop(u0));
    uops.push_back(layout.encode_uop(u1));
  }
  e.emit(mem(Opcode::LOAD, MemId::UOP, 0, a.uop, 1, 4, 4));
  int64_t tile = 0;
  for (int64_t off = 0; off < total; off += chunk_max, ++tile) {
    const int64_t len = std::min(chunk_max, total - off), ap = tile % 2;
    Insn la = mem(Opcode::LOAD, MemId::ACC_8BIT, ap * acc_half, a.in + off, 1, len, len);
    if (tile >= 2) la[Member::pop_next] = 1, --e.s2c;
    e.emit(la);
    e.emit(mem(Opcode::LOAD, MemId::ACC_8BIT, ap * acc_half + chunk_max, a.in2 + off, 1, len, len));
    const Insn both = loop(Opcode::ALU, 2 * ap, 1, 1, len, 0, 1, 0, 1);
    if (n.shift_a > 0) e.emit(alu(AluOp::SHR, true, -n.shift_a, both));
    if (n.shift_b > 0) e.emit(alu(AluOp::SHR, true, -n.shift_b, loop(Opcode::ALU, 2 * ap + 1, 1, 1, len, 0, 1, 0, 1)));
    e.emit(alu(AluOp::ADD, false, 0, both));
    emit_requant(e, both, n);
    Insn s = mem(Opcode::STORE, MemId::OUT, ap * acc_half, a.out + off, 1, len, len);
    s[Member::pop_prev] = 1;
    s[Member::push_prev] = 1;
    ++e.s2c;
    e.emit(s);
  }
}

// Max or average pooling, per (batch block, channel block) plane in bands of
// th output rows of tw columns (pool_band(): whole rows while one fits an
// ACC half): the band's input rows go into ACC through ACC_8BIT loads
// (zero padding), and the output rows after them. Compute and store only,
// with the store->compute protocol of emit_add. A position is ro ACC_8BIT
// elements (out_per_pos()), folded alike.
//   Average pooling (and a max pool with s < k - 1): the output rows are
// initialised (-128 for max, 0 for average), and one ALU instruction with a
// uop per window offset folds the window in (MAX or ADD); average pooling
// then requantizes.
//   Max pooling with s >= k - 1 (ResNet's 3x3 stride 2) is separable, in
// fewer ALU passes: each input row's column s x takes the max of its k
// columns in place (one MAX per kw from k - 1 down: a source column is
// either never a destination, or the destination of a later iteration of
// the same instruction, so every source is read before it is written); the
// output rows then copy the row s y (reset and ADD) and take the MAX of rows
// s y + 1 .. s y + k - 1. Per output: 2 k + 2 (k - 1) (ih / th) ALU cycles
// against 2 k k + 2. pool_uops() counts the uops of either form.
void emit_pool(Emitter& e, const Node& n, const Shape& in, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout) {
  const Blocked L = blocked(in, c);
  const int64_t k = n.pool, s = n.pool_stride, p = n.pool_pad;
  const int64_t ho = n.out.h, wo = n.out.w;
  const int64_t acc_half = c.derived.acc_depth / 2, ro = out_per_pos(c);
  const PoolBand band = pool_band(n, c);
  const int64_t th = band.th, tw = band.tw, iw = band.iw;  // iw: the input band's row pitch
  const int64_t ih = (th - 1) * s + k;
  const int64_t out_base = ih * iw * ro;  // output rows after the input band, in each half
  const bool max = n.op == Op::MaxPool, sep = separable_pool(n);
  auto put = [&](int64_t dst, int64_t src) {
    Insn u;
    u[Member::dst] = static_cast<uint32_t>(dst);
    u[Member::src] = static_cast<uint32_t>(src);
    uops.push_back(layout.encode_uop(u));
  };
  // Uops per half. Window form: [0, k*k*ro) window offsets (dst out, src
  // input), then ro for the output rows alone. Separable form: [0, (k-1) ro)
  // column offsets kw = 1 .. k-1 (dst input, src input), [(k-1) ro, (2k-1)
  // ro) row offsets kh = 0 .. k-1 (dst out, src input), then ro for the
  // output rows alone.
  const int64_t per_half = pool_uops(n, c) / 2, rows_bank = per_half - ro;
  for (int64_t ap = 0; ap < 2; ++ap) {
    const int64_t base = ap * acc_half;
    if (sep) {
      for (int64_t kw = 1; kw < k; ++kw)
        for (int64_t so = 0; so < ro; ++so) put(base + so, base + kw * ro + so);
      for (int64_t kh = 0; kh < k; ++kh)
        for (int64_t so = 0; so < ro; ++so) put(base + out_base + so, base + kh * iw * ro + so);
    } else {
      for (int64_t kh = 0; kh < k; ++kh)
        for (int64_t kw = 0; kw < k; ++kw)
          for (int64_t so = 0; so < ro; ++so) put(base + out_base + so, base + (kh * iw + kw) * ro + so);
    }
    for (int64_t so = 0; so < ro; ++so) put(base + out_base + so, 0);
  }
  e.emit(
      mem(Opcode::LOAD, MemId::UOP, 0, a.uop, 1, static_cast<int64_t>(uops.size()), static_cast<int64_t>(uops.size())));
  int64_t tile = 0;
  for (int64_t plane = 0; plane < L.nb * L.cb; ++plane)
    for (int64_t oh0 = 0; oh0 < ho; oh0 += th)
      for (int64_t ow0 = 0; ow0 < wo; ow0 += tw, ++tile) {
        const int64_t rows = std::min(th, ho - oh0), ap = tile % 2, base = ap * acc_half;
        const int64_t ih0 = oh0 * s - p, ih1 = ih0 + (rows - 1) * s + k;
        const int64_t iw0 = ow0 * s - p, iw1 = iw0 + iw;
        const int64_t yp0 = std::max<int64_t>(0, -ih0), yp1 = std::max<int64_t>(0, ih1 - in.h);
        const int64_t xp0 = std::max<int64_t>(0, -iw0), xp1 = std::max<int64_t>(0, iw1 - in.w);
        Insn l = mem(Opcode::LOAD, MemId::ACC_8BIT, base, a.in + ((plane * in.h + ih0 + yp0) * in.w + iw0 + xp0) * ro,
                     ih1 - yp1 - ih0 - yp0, (iw1 - xp1 - iw0 - xp0) * ro, in.w * ro);
        l[Member::y_pad_0] = static_cast<uint32_t>(yp0);
        l[Member::y_pad_1] = static_cast<uint32_t>(yp1);
        l[Member::x_pad_0] = static_cast<uint32_t>(xp0 * ro);
        l[Member::x_pad_1] = static_cast<uint32_t>(xp1 * ro);
        if (tile >= 2) l[Member::pop_next] = 1, --e.s2c;
        e.emit(l);
        const int64_t bank = ap * per_half;
        Insn init = loop(Opcode::GEMM, bank + rows_bank, ro, rows, tw, tw * ro, ro, 0, 0);
        init[Member::reset] = 1;
        e.emit(init);
        const Insn out_rows = loop(Opcode::ALU, bank + rows_bank, ro, rows, tw, tw * ro, ro, 0, 0);
        if (sep) {
          const int64_t band_rows = (rows - 1) * s + k;
          for (int64_t kw = k - 1; kw >= 1; --kw)
            e.emit(alu(AluOp::MAX, false, 0,
                       loop(Opcode::ALU, bank + (kw - 1) * ro, ro, band_rows, tw, iw * ro, s * ro, iw * ro, s * ro)));
          for (int64_t kh = 0; kh < k; ++kh) {
            Insn v = alu(kh == 0 ? AluOp::ADD : AluOp::MAX, false, 0,
                         loop(Opcode::ALU, bank + (k - 1 + kh) * ro, ro, rows, tw, tw * ro, ro, s * iw * ro, s * ro));
            if (kh == k - 1) v[Member::push_next] = 1;
            e.emit(v);
          }
        } else {
          if (max) e.emit(alu(AluOp::ADD, true, -128, out_rows));
          e.emit(alu(max ? AluOp::MAX : AluOp::ADD, false, 0,
                     loop(Opcode::ALU, bank, k * k * ro, rows, tw, tw * ro, ro, s * iw * ro, s * ro)));
          if (max) {
            Insn last = alu(AluOp::MIN, true, 127, out_rows);  // a no-op that carries the token
            last[Member::push_next] = 1;
            e.emit(last);
          } else {
            emit_requant(e, out_rows, n);
          }
        }
        Insn st = mem(Opcode::STORE, MemId::OUT, base + out_base, a.out + ((plane * ho + oh0) * wo + ow0) * ro, rows,
                      tw * ro, wo * ro);
        st[Member::pop_prev] = 1;
        st[Member::push_prev] = 1;
        ++e.s2c;
        e.emit(st);
      }
}

// WGT elements [cob ro][cib ri][k][k] (block_out x block_in each); depthwise
// (square arrays only): [cob][k][k], each block diagonal.
std::vector<uint8_t> pack_weights(const Node& n, const Shape& in, const ConvGeom& g, const Config& c) {
  const int64_t bo = c.gemm.block_out, bi = c.gemm.block_in, kk = g.k * g.k;
  if (g.dw) {  // output channel o reads input channel o
    std::vector<uint8_t> out(static_cast<size_t>(g.cob * kk * bo * bi), 0);
    for (int64_t o = 0; o < n.out.c; ++o)
      for (int64_t q = 0; q < kk; ++q)
        out[static_cast<size_t>(((o / bo * kk + q) * bo + o % bo) * bi + o % bi)] =
            static_cast<uint8_t>(n.weight[static_cast<size_t>(o * kk + q)]);
    return out;
  }
  const int64_t cin = n.op == Op::Dense ? in.c * in.h * in.w : in.c;
  const int64_t in_blocks = g.cib * g.ri;
  std::vector<uint8_t> out(static_cast<size_t>(g.cob * g.ro * in_blocks * kk * bo * bi), 0);
  // Element ((o / bo * in_blocks + i / bi) * k + kh) * k + kw, row o % bo, column i % bi,
  // written in order (VGG-16 has 1.4 * 10^8 weights).
  for (int64_t ob = 0; ob * bo < n.out.c; ++ob)
    for (int64_t ib = 0; ib * bi < cin; ++ib)
      for (int64_t q = 0; q < kk; ++q) {
        uint8_t* dst = out.data() + ((ob * in_blocks + ib) * kk + q) * bo * bi;
        const int64_t rows = std::min(bo, n.out.c - ob * bo), cols = std::min(bi, cin - ib * bi);
        for (int64_t r = 0; r < rows; ++r) {
          const int8_t* src = n.weight.data() + ((ob * bo + r) * cin + ib * bi) * kk + q;
          for (int64_t col = 0; col < cols; ++col) dst[r * bi + col] = static_cast<uint8_t>(src[col * kk]);
        }
      }
  return out;
}

// One int32 per output channel as ACC elements (the bias, the shift row).
std::vector<uint8_t> pack_channels(const Node& n, const ConvGeom& g, const Config& c,
                                   const std::function<int32_t(int64_t)>& value) {
  const int64_t bo = c.gemm.block_out, batch = c.gemm.batch;
  std::vector<uint8_t> out(static_cast<size_t>(g.cob * g.ro * batch * bo * 4), 0);
  for (int64_t o = 0; o < n.out.c; ++o)
    for (int64_t b = 0; b < batch; ++b) {
      const int32_t v = value(o);
      std::memcpy(out.data() + ((o / bo * batch + b) * bo + o % bo) * 4, &v, 4);
    }
  return out;
}

}  // namespace

CompiledNetwork codegen_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  const Graph& g = net.graph;
  isa::Layout layout(c);
  Planner plan(net, c);
  int bias_lanes = -1;  // the buffer of bias_input(), once a layer needs it
  std::map<int, int> identities;  // operand shift -> the buffer of its scaled_identity()
  for (auto& seg : net.segments) {
    Emitter e;
    for (size_t k = 0; k < seg.nodes.size(); ++k) {
      const int id = seg.nodes[k];
      const Node& n = g.at(id);
      const Shape in = g.at(n.inputs[0]).out;
      if (fused_into(g, id, c) >= 0 || pool_fused_into(g, id, c) >= 0) {  // computed and stored by its conv's epilogue
        const auto at = static_cast<uint32_t>(e.insns.size());
        seg.regions.push_back(Region{n.name, at, at});
        net.layers[id] = LayerInfo{id, {}, 0, 0, {}, {}};
        continue;
      }
      // The load module's pops of the previous layer's compute->load tokens
      // wait through that layer's tail: they belong to no layer, so that
      // regions do not overlap and their cycles add up to the run's.
      e.begin_layer();
      const auto begin = static_cast<uint32_t>(e.insns.size());
      LayerAddrs a;
      const bool alu_only = n.op != Op::Conv2d && n.op != Op::Dense;  // ACC_8BIT loads
      a.in = plan.elem(net.activation[n.inputs[0]], c, alu_only ? MemId::ACC_8BIT : MemId::INP);
      a.out = plan.elem(net.activation[id], c, MemId::OUT);
      std::vector<uint32_t> uops;
      LayerInfo info;
      info.node = id;
      if (n.op == Op::MaxPool || n.op == Op::AvgPool) {
        const int64_t nuops = pool_uops(n, c);
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, static_cast<uint64_t>(nuops * 4), 0, {}, -1});
        a.uop = plan.elem(ub, c);
        emit_pool(e, n, in, a, c, uops, layout);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      } else if (n.op == Op::Add) {
        a.in2 = plan.elem(net.activation[n.inputs[1]], c, MemId::ACC_8BIT);
        // The uop buffer is planned after codegen decides the uops: reserve its index first.
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, 16, 0, {}, -1});
        a.uop = plan.elem(ub, c);
        emit_add(e, n, blocked(n.out, c).elems() * out_per_pos(c), a, c, uops, layout);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      } else {
        const int fused_id = fused_epilogue(g, id, c);
        const Node* fused = fused_id >= 0 ? &g.at(fused_id) : nullptr;
        const Node* add = fused && fused->op == Op::Add ? fused : nullptr;
        const int add_id = add ? fused_id : -1;
        const ConvGeom geo = conv_geom(n, in, c, fused);
        if (fused && !add) a.out = plan.elem(net.activation[fused_id], c, MemId::OUT);  // the pooled map
        if (add) {
          const int other = add->inputs[0] == id ? add->inputs[1] : add->inputs[0];
          a.in2 = plan.elem(net.activation[other], c, MemId::ACC_8BIT);
          a.out = plan.elem(net.activation[add_id], c, MemId::OUT);
        }
        a.self = id;
        info = net.layers.at(id);  // the tiling pass's choice (tile, key, the model's pick)
        std::vector<uint8_t> w = pack_weights(n, in, geo, c);
        // The first requantization step's immediate is folded in (packed_bias(), bias_fold()): as ACC
        // rows, or as WGT rows over a constant INP element (bias_by_gemm()).
        std::vector<uint8_t> bias = geo.bias_gemm ? pack_bias_weights(n, geo.cob * geo.ro, c)
                                                  : pack_channels(n, geo, c, [&](int64_t o) { return packed_bias(n, o); });
        if (geo.bias_gemm && bias_lanes < 0)  // one constant INP element for the network
          bias_lanes = plan.add(Buffer{"bias_lanes", MemId::INP, static_cast<uint64_t>(c.derived.inp_elem_bytes), 0,
                                       bias_input(c), -1});
        if (geo.bias_gemm) a.bias_inp = plan.elem(bias_lanes, c);
        if (add && geo.skip_gemm) {  // one scaled identity per operand shift for the network
          const int s = operand_shift(*add, id);
          if (s != fused_operand_shift(*add)) fail("layer {}: its fused Add {} is not its later input", n.name, add->name);
          if (!identities.count(s))
            identities[s] = plan.add(Buffer{fmt::format("identity_x{}", 1 << s), MemId::WGT,
                                            static_cast<uint64_t>(c.derived.wgt_elem_bytes), 0, scaled_identity(s, c), -1});
          a.identity = plan.elem(identities[s], c);
        }
        if (geo.rows > 0) {  // one after another in one buffer
          std::vector<uint8_t> rows;
          for (const std::vector<int32_t>& row : requant_rows(n)) {
            const std::vector<uint8_t> r =
                pack_channels(n, geo, c, [&](int64_t o) { return row[static_cast<size_t>(o)]; });
            rows.insert(rows.end(), r.begin(), r.end());
          }
          a.row_pitch = geo.cob * geo.ro;
          const int rb = plan.add(Buffer{n.name + ".rows", MemId::ACC, rows.size(), 0, std::move(rows), -1});
          a.row = plan.elem(rb, c);
        }
        const int wb = plan.add(Buffer{n.name + ".weight", MemId::WGT, w.size(), 0, std::move(w), -1});
        const int bb = plan.add(
            Buffer{n.name + ".bias", geo.bias_gemm ? MemId::WGT : MemId::ACC, bias.size(), 0, std::move(bias), -1});
        const Tile& t = info.tile;
        if (!tile_fits(geo, t, c, add != nullptr))
          fail("layer {}: its tile {}x{} oc{} ic{} does not fit config {}{}", n.name, t.th, t.tw, t.toc, t.tic, c.name,
               geo.pk ? fmt::format(" with the max pool {} fused (whole rows, a multiple of {} high)", fused->name, geo.ps)
                      : "");
        const uint64_t nuops = static_cast<uint64_t>(conv_uops(t, geo, add != nullptr));
        const int ub = plan.add(Buffer{n.name + ".uop", MemId::UOP, nuops * 4, 0, {}, -1});
        a.wgt = plan.elem(wb, c);
        a.bias = plan.elem(bb, c);
        a.uop = plan.elem(ub, c);
        emit_conv(e, n, geo, t, a, c, uops, layout, fused);
        net.buffers[static_cast<size_t>(ub)].init.assign(reinterpret_cast<uint8_t*>(uops.data()),
                                                         reinterpret_cast<uint8_t*>(uops.data()) + uops.size() * 4);
      }
      e.end_layer(k + 1 < seg.nodes.size());
      info.uops = uops.size();
      info.insns = e.insns.size() - begin;
      seg.regions.push_back(Region{n.name, begin, static_cast<uint32_t>(e.insns.size())});
      net.layers[id] = info;
    }
    e.begin_layer();  // balance the compute->load tokens of the last layer
    e.emit(build::finish());
    // The tail belongs to the last layer that emitted code (a fused Add's region stays empty).
    const auto end = static_cast<uint32_t>(e.insns.size());
    auto last = seg.regions.rbegin();
    for (; last != seg.regions.rend() && last->begin == last->end; ++last) last->begin = last->end = end;
    if (last != seg.regions.rend()) last->end = end;
    std::vector<uint8_t> bytes(e.insns.size() * isa::kInsnBytes);
    for (size_t i = 0; i < e.insns.size(); ++i) {
      const isa::Raw128 r = layout.encode(e.insns[i]);
      std::memcpy(bytes.data() + i * isa::kInsnBytes, r.w, isa::kInsnBytes);
    }
    seg.insn_count = static_cast<uint32_t>(e.insns.size());
    Buffer ib{
        fmt::format("segment{}.insns", &seg - net.segments.data()), MemId::UOP, bytes.size(), 0, std::move(bytes), -1};
    seg.insn_buffer = plan.add(std::move(ib));
  }
  return net;
}


std::string codegen_dump(const CompiledNetwork& net) {
  std::string s;
  for (size_t k = 0; k < net.segments.size(); ++k) {
    const Segment& seg = net.segments[k];
    const Buffer& ib = net.buffers.at(static_cast<size_t>(seg.insn_buffer));
    s += fmt::format("segment {}: {} instructions at 0x{:x}\n", k, seg.insn_count, ib.addr);
    for (const Region& r : seg.regions) {
      const auto it = std::find_if(net.layers.begin(), net.layers.end(),
                                   [&](const auto& l) { return net.graph.at(l.first).name == r.name; });
      s += fmt::format("  {}: instructions [{}, {}), {} uops\n", r.name, r.begin, r.end,
                       it == net.layers.end() ? 0 : it->second.uops);
    }
  }
  for (const Buffer& b : net.buffers)
    if (b.node < 0 && !b.init.empty()) s += fmt::format("{} {} bytes at 0x{:x}\n", b.name, b.bytes, b.addr);
  return s;
}

}  // namespace vta::compiler
