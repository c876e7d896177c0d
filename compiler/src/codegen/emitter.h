#pragma once
// The instruction stream of one segment under construction (emitter.cpp):
// LOAD, STORE, GEMM and ALU instructions from the planner's 64-bit sizes,
// the token-only instructions that keep the dependency queues balanced
// across layers (the protocol: passes/codegen.cpp), and the requantization
// epilogue as ALU instructions. Shared by the emit_*.cpp files of codegen/
// and the codegen pass.
#include <cstdint>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ops/alu_steps.h"
#include "vta/isa/fields.h"

namespace vta::compiler::codegen {

inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// LOAD or STORE (vta/model/builders.h) from the planner's 64-bit sizes.
isa::Insn mem(isa::Opcode o, isa::MemId m, int64_t sram, int64_t dram, int64_t y, int64_t x, int64_t stride);

// A GEMM or ALU loop nest over uops [0, uops) of a bank at `bank`.
isa::Insn loop(isa::Opcode o, int64_t bank, int64_t uops, int64_t io, int64_t ii, int64_t dfo, int64_t dfi, int64_t sfo,
               int64_t sfi);
// An ALU instruction of op `a` with the loops of `shape`.
isa::Insn alu(isa::AluOp a, bool use_imm, int32_t imm, isa::Insn shape);
// A uop: the ACC (dst), INP or ACC (src) and WGT (wgt) indices of one
// GEMM or ALU iteration (encoded by isa::Layout::encode_uop()).
isa::Insn uop(int64_t dst, int64_t src, int64_t wgt = 0);

// Collects a segment's instructions and keeps count of the tokens in flight.
class Emitter {
 public:
  std::vector<isa::Insn> insns;
  int64_t c2l = 0, s2c = 0;  // outstanding compute->load and store->compute tokens

  void emit(isa::Insn i) { insns.push_back(i); }
  // Token-only instructions of each module.
  void load_pop();
  void compute_token(bool pop_next, bool push_prev);
  // Before a layer: the load module pops every outstanding compute->load token.
  void begin_layer();
  // After it: compute pops the outstanding store tokens and, when another layer follows (`more`), pushes
  // compute->load.
  void end_layer(bool more);
};

// The loops of the epilogue steps on the scratch tiles and the operand rows (AluStep::On).
struct EpilogueBanks {
  isa::Insn t, a_by_t, t_by_a;
  std::vector<isa::Insn> rows, t_rows;  // by AluStep::row: A by the row, T by the row
  isa::Insn u, u_by_a, t_by_u;          // the second scratch tile U (ConvGeom::scratch2)
  std::vector<isa::Insn> u_rows;        // U by the row
  isa::Insn v_by_a, v_by_t, a_by_v;     // the third scratch tile V (ConvGeom::scratch3)
  std::vector<isa::Insn> v_rows;        // V by the row
};
// Requantization epilogue of node `n` on the ACC tile described by `shape`
// (an ALU loop over the epilogue uops): requant_steps(); the last
// instruction pushes compute->store unless `push` is false.
void emit_requant(Emitter& e, const isa::Insn& shape, const Node& n, bool push = true,
                  const EpilogueBanks* banks = nullptr);

// Where a layer's buffers are, for the emit_*() functions.
struct LayerAddrs {
  int64_t in = 0, in2 = 0, out = 0, wgt = 0, bias = 0, uop = 0, row = 0;  // element indices of each buffer
  int64_t bias_inp = 0;   // the constant INP element of a bias by GEMM (a.bias: its WGT rows)
  int64_t identity = 0;   // the WGT element of a residual operand by GEMM (scaled_identity())
  int64_t row_pitch = 0;  // ACC elements from one operand row to the next
  int self = -1;          // the node's id
};

}  // namespace vta::compiler::codegen
