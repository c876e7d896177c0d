// A residual Add as its own pass (emit_add.h).
#include "codegen/emit_add.h"

#include <algorithm>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/isa/error.h"

namespace vta::compiler::codegen {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

void emit_add(Emitter& e, const Node& n, int64_t total, const LayerAddrs& a, const Config& c,
              std::vector<uint32_t>& uops, const isa::Layout& layout) {
  check_add_fits(n, c);
  const int64_t acc_half = c.derived.acc_depth / 2, chunk_max = add_chunk(c);
  for (int64_t ap = 0; ap < 2; ++ap) {
    uops.push_back(layout.encode_uop(uop(ap * acc_half, ap * acc_half + chunk_max)));
    uops.push_back(layout.encode_uop(uop(ap * acc_half + chunk_max, 0)));
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

}  // namespace vta::compiler::codegen
