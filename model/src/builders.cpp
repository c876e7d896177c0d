#include "vta/model/builders.h"

#include <random>

namespace vta::build {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

namespace {

Insn op(Opcode o) {
  Insn i;
  i[Member::opcode] = static_cast<uint32_t>(o);
  return i;
}

void loop_fields(Insn& i, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii, uint32_t d_o, uint32_t d_i,
                 uint32_t s_o, uint32_t s_i) {
  i[Member::uop_bgn] = bgn;
  i[Member::uop_end] = end;
  i[Member::iter_out] = io;
  i[Member::iter_in] = ii;
  i[Member::dst_factor_out] = d_o;
  i[Member::dst_factor_in] = d_i;
  i[Member::src_factor_out] = s_o;
  i[Member::src_factor_in] = s_i;
}

}  // namespace

Insn load(MemId mem, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride, uint32_t yp0, uint32_t yp1,
          uint32_t xp0, uint32_t xp1) {
  Insn i = op(Opcode::LOAD);
  i[Member::memory_type] = static_cast<uint32_t>(mem);
  i[Member::sram_base] = sram;
  i[Member::dram_base] = dram;
  i[Member::y_size] = y;
  i[Member::x_size] = x;
  i[Member::x_stride] = stride;
  i[Member::y_pad_0] = yp0;
  i[Member::y_pad_1] = yp1;
  i[Member::x_pad_0] = xp0;
  i[Member::x_pad_1] = xp1;
  return i;
}

Insn store(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride) {
  Insn i = load(MemId::OUT, sram, dram, y, x, stride);
  i[Member::opcode] = static_cast<uint32_t>(Opcode::STORE);
  return i;
}

Insn gemm(bool reset, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii, uint32_t d_o, uint32_t d_i, uint32_t s_o,
          uint32_t s_i, uint32_t w_o, uint32_t w_i) {
  Insn i = op(Opcode::GEMM);
  i[Member::reset] = reset ? 1 : 0;
  loop_fields(i, bgn, end, io, ii, d_o, d_i, s_o, s_i);
  i[Member::wgt_factor_out] = w_o;
  i[Member::wgt_factor_in] = w_i;
  return i;
}

Insn alu(AluOp a, bool use_imm, int32_t imm, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii, uint32_t d_o,
         uint32_t d_i, uint32_t s_o, uint32_t s_i) {
  Insn i = op(Opcode::ALU);
  loop_fields(i, bgn, end, io, ii, d_o, d_i, s_o, s_i);
  i[Member::alu_opcode] = static_cast<uint32_t>(a);
  i[Member::use_imm] = use_imm ? 1 : 0;
  i[Member::imm] = static_cast<uint32_t>(imm) & 0xffffu;
  return i;
}

Insn finish() { return op(Opcode::FINISH); }

Insn uop(uint32_t dst, uint32_t src, uint32_t wgt) {
  Insn u;
  u[Member::dst] = dst;
  u[Member::src] = src;
  u[Member::wgt] = wgt;
  return u;
}

Insn with_deps(Insn i, bool pop_prev, bool pop_next, bool push_prev, bool push_next) {
  i[Member::pop_prev] = pop_prev;
  i[Member::pop_next] = pop_next;
  i[Member::push_prev] = push_prev;
  i[Member::push_next] = push_next;
  return i;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

}  // namespace vta::build
