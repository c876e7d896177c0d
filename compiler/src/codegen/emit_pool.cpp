// A max or average pool as its own pass (emit_pool.h).
#include "codegen/emit_pool.h"

#include <algorithm>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/error.h"

namespace vta::compiler::codegen {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

namespace {

// pool_by_gemm(): the separable max pool with its input bands loaded as INP
// elements by the load module and copied into ACC by a GEMM with the
// identity (after a reset GEMM of the band), one band ahead of the ALU
// passes. Per band t (ACC and INP half t % 2), in program order:
//   load     band t + 1's INP rows (pops compute->load from band t - 1's
//            copy), then
//   compute  band t's output rows' reset (pops store->compute from band
//            t - 2's store: the rows are the only part of the half that
//            band t - 2's store reads), band t + 1's reset and copy (the
//            copy pops load->compute and pushes compute->load), then band
//            t's column and row passes (pushes compute->store);
//   store    band t's output rows.
// So band t + 1's GEMMs, in the other half, run beside band t's passes
// (rule C2), and its loads beside both.
void emit_pool_by_gemm(Emitter& e, const Node& n, const Shape& in, const LayerAddrs& a, const Config& c,
                       std::vector<uint32_t>& uops, const isa::Layout& layout) {
  const Blocked L = blocked(in, c);
  const int64_t k = n.pool, s = n.pool_stride, p = n.pool_pad;
  const int64_t ho = n.out.h, wo = n.out.w;
  const int64_t acc_half = c.derived.acc_depth / 2, inp_half = c.derived.inp_depth / 2;
  const PoolBand band = pool_band(n, c);
  const int64_t th = band.th, tw = band.tw, iw = band.iw;
  const int64_t out_base = ((th - 1) * s + k) * iw;  // output rows after the input band, in each ACC half
  auto put = [&](int64_t dst, int64_t src, int64_t wgt) { uops.push_back(layout.encode_uop(uop(dst, src, wgt))); };
  // Uops per half as emit_pool()'s separable form ([0, k-1) columns, [k-1,
  // 2k-1) rows, 2k-1 the output rows alone), then 2k the copy (ACC from INP
  // by WGT element 0, the identity).
  const int64_t per_half = 2 * k + 1;
  for (int64_t ap = 0; ap < 2; ++ap) {
    const int64_t base = ap * acc_half;
    for (int64_t kw = 1; kw < k; ++kw) put(base, base + kw, 0);
    for (int64_t kh = 0; kh < k; ++kh) put(base + out_base, base + kh * iw, 0);
    put(base + out_base, 0, 0);
    put(base, ap * inp_half, 0);
  }
  check_layer_uops(n, static_cast<int64_t>(uops.size()), c);
  e.emit(
      mem(Opcode::LOAD, MemId::UOP, 0, a.uop, 1, static_cast<int64_t>(uops.size()), static_cast<int64_t>(uops.size())));
  struct Band {
    int64_t plane, oh0, ow0, rows;
  };
  std::vector<Band> bands;
  for (int64_t plane = 0; plane < L.nb * L.cb; ++plane)
    for (int64_t oh0 = 0; oh0 < ho; oh0 += th)
      for (int64_t ow0 = 0; ow0 < wo; ow0 += tw) bands.push_back(Band{plane, oh0, ow0, std::min(th, ho - oh0)});
  const auto nt = static_cast<int64_t>(bands.size());
  auto band_rows = [&](int64_t t) { return (bands[static_cast<size_t>(t)].rows - 1) * s + k; };
  auto load = [&](int64_t t) {
    const Band& b = bands[static_cast<size_t>(t)];
    const int64_t ih0 = b.oh0 * s - p, ih1 = ih0 + band_rows(t);
    const int64_t iw0 = b.ow0 * s - p, iw1 = iw0 + iw;
    const int64_t yp0 = std::max<int64_t>(0, -ih0), yp1 = std::max<int64_t>(0, ih1 - in.h);
    const int64_t xp0 = std::max<int64_t>(0, -iw0), xp1 = std::max<int64_t>(0, iw1 - in.w);
    if (t == 0) e.emit(mem(Opcode::LOAD, MemId::WGT, 0, a.identity, 1, 1, 1));
    Insn l = mem(Opcode::LOAD, MemId::INP, (t % 2) * inp_half, a.in + (b.plane * in.h + ih0 + yp0) * in.w + iw0 + xp0,
                 ih1 - yp1 - ih0 - yp0, iw1 - xp1 - iw0 - xp0, in.w);
    l[Member::y_pad_0] = static_cast<uint32_t>(yp0);
    l[Member::y_pad_1] = static_cast<uint32_t>(yp1);
    l[Member::x_pad_0] = static_cast<uint32_t>(xp0);
    l[Member::x_pad_1] = static_cast<uint32_t>(xp1);
    if (t >= 2) l[Member::pop_next] = 1, --e.c2l;
    l[Member::push_next] = 1;
    e.emit(l);
  };
  auto copy = [&](int64_t t) {
    const int64_t bank = (t % 2) * per_half, rows = band_rows(t);
    Insn r = loop(Opcode::GEMM, bank + 2 * k, 1, rows, iw, iw, 1, 0, 0);
    r[Member::reset] = 1;
    e.emit(r);
    Insn g = loop(Opcode::GEMM, bank + 2 * k, 1, rows, iw, iw, 1, iw, 1);
    g[Member::pop_prev] = 1;
    g[Member::push_prev] = 1;
    ++e.c2l;
    e.emit(g);
  };
  load(0);
  copy(0);
  for (int64_t t = 0; t < nt; ++t) {
    const Band& b = bands[static_cast<size_t>(t)];
    const int64_t bank = (t % 2) * per_half, base = (t % 2) * acc_half;
    if (t + 1 < nt) load(t + 1);
    Insn init = loop(Opcode::GEMM, bank + 2 * k - 1, 1, b.rows, tw, tw, 1, 0, 0);
    init[Member::reset] = 1;
    if (t >= 2) init[Member::pop_next] = 1, --e.s2c;
    e.emit(init);
    if (t + 1 < nt) copy(t + 1);
    for (int64_t kw = k - 1; kw >= 1; --kw)
      e.emit(alu(AluOp::MAX, false, 0, loop(Opcode::ALU, bank + kw - 1, 1, band_rows(t), tw, iw, s, iw, s)));
    for (int64_t kh = 0; kh < k; ++kh) {
      Insn v = alu(kh == 0 ? AluOp::ADD : AluOp::MAX, false, 0,
                   loop(Opcode::ALU, bank + k - 1 + kh, 1, b.rows, tw, tw, 1, s * iw, s));
      if (kh == k - 1) v[Member::push_next] = 1;
      e.emit(v);
    }
    Insn st =
        mem(Opcode::STORE, MemId::OUT, base + out_base, a.out + (b.plane * ho + b.oh0) * wo + b.ow0, b.rows, tw, wo);
    st[Member::pop_prev] = 1;
    st[Member::push_prev] = 1;
    ++e.s2c;
    e.emit(st);
  }
}

}  // namespace

void emit_pool(Emitter& e, const Node& n, const Shape& in, const LayerAddrs& a, const Config& c,
               std::vector<uint32_t>& uops, const isa::Layout& layout) {
  if (pool_by_gemm(n, c)) {
    emit_pool_by_gemm(e, n, in, a, c, uops, layout);
    return;
  }
  const Blocked L = blocked(in, c);
  const int64_t k = n.pool, s = n.pool_stride, p = n.pool_pad;
  const int64_t ho = n.out.h, wo = n.out.w;
  const int64_t acc_half = c.derived.acc_depth / 2, ro = out_per_pos(c);
  const PoolBand band = pool_band(n, c);
  const int64_t th = band.th, tw = band.tw, iw = band.iw;  // iw: the input band's row pitch
  const int64_t ih = (th - 1) * s + k;
  const int64_t out_base = ih * iw * ro;  // output rows after the input band, in each half
  const bool max = n.op == Op::MaxPool, sep = separable_pool(n);
  auto put = [&](int64_t dst, int64_t src) { uops.push_back(layout.encode_uop(uop(dst, src))); };
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
          if (max) e.emit(alu(AluOp::ADD, true, elem_min(n.bits), out_rows));
          e.emit(alu(max ? AluOp::MAX : AluOp::ADD, false, 0,
                     loop(Opcode::ALU, bank, k * k * ro, rows, tw, tw * ro, ro, s * iw * ro, s * ro)));
          if (max) {
            Insn last = alu(AluOp::MIN, true, elem_max(n.bits), out_rows);  // a no-op that carries the token
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

}  // namespace vta::compiler::codegen
