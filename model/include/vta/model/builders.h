#pragma once
// Instruction and uop builders: one instruction from its fields, every
// unlisted field zero. Shared by the bring-up programs, the benchmarks and
// the tests, so that no two of them spell out the same instruction fields.
#include <cstdint>
#include <vector>

#include "vta/isa/fields.h"

namespace vta::build {

isa::Insn load(isa::MemId mem, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride, uint32_t yp0 = 0,
               uint32_t yp1 = 0, uint32_t xp0 = 0, uint32_t xp1 = 0);
isa::Insn store(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride);
isa::Insn gemm(bool reset, uint32_t uop_bgn, uint32_t uop_end, uint32_t iter_out, uint32_t iter_in,
               uint32_t dst_out = 0, uint32_t dst_in = 0, uint32_t src_out = 0, uint32_t src_in = 0,
               uint32_t wgt_out = 0, uint32_t wgt_in = 0);
isa::Insn alu(isa::AluOp op, bool use_imm, int32_t imm, uint32_t uop_bgn, uint32_t uop_end, uint32_t iter_out,
              uint32_t iter_in, uint32_t dst_out = 0, uint32_t dst_in = 0, uint32_t src_out = 0, uint32_t src_in = 0);
isa::Insn finish();
isa::Insn uop(uint32_t dst, uint32_t src, uint32_t wgt);
/// Sets the four dependency flags of `i` and returns it.
isa::Insn with_deps(isa::Insn i, bool pop_prev, bool pop_next, bool push_prev, bool push_next);
/// Deterministic pseudo-random bytes.
std::vector<uint8_t> random_bytes(size_t n, uint32_t seed);

}  // namespace vta::build
