// The instruction stream of one segment (emitter.h).
#include "codegen/emitter.h"

#include "vta/compiler/ops/requant.h"
#include "vta/isa/error.h"
#include "vta/model/builders.h"

namespace vta::compiler::codegen {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

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

Insn uop(int64_t dst, int64_t src, int64_t wgt) {
  Insn u;
  u[Member::dst] = u32(dst);
  u[Member::src] = u32(src);
  u[Member::wgt] = u32(wgt);
  return u;
}

Insn alu(AluOp a, bool use_imm, int32_t imm, Insn shape) {
  shape[Member::opcode] = static_cast<uint32_t>(Opcode::ALU);
  shape[Member::alu_opcode] = static_cast<uint32_t>(a);
  shape[Member::use_imm] = use_imm ? 1 : 0;
  shape[Member::imm] = static_cast<uint32_t>(imm) & 0xffffu;
  shape[Member::reset] = 0;
  return shape;
}

void Emitter::load_pop() {
  Insn i = mem(Opcode::LOAD, MemId::INP, 0, 0, 0, 0, 0);
  i[Member::pop_next] = 1;
  emit(i);
  --c2l;
}

void Emitter::compute_token(bool pop_next, bool push_prev) {
  Insn i = mem(Opcode::LOAD, MemId::UOP, 0, 0, 0, 0, 0);
  i[Member::pop_next] = pop_next;
  i[Member::push_prev] = push_prev;
  emit(i);
  if (pop_next) --s2c;
  if (push_prev) ++c2l;
}

void Emitter::begin_layer() {
  while (c2l > 0) load_pop();
}

void Emitter::end_layer(bool more) {
  while (s2c > 0) compute_token(true, false);
  if (more) compute_token(false, true);
}

void emit_requant(Emitter& e, const Insn& shape, const Node& n, bool push, const EpilogueBanks* banks) {
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

}  // namespace vta::compiler::codegen
