#pragma once
// The ALU of alu_apply() over a block of lanes: the compiler's proofs of its
// requantization epilogues run whole accumulator ranges through it.
#include <cstddef>
#include <cstdint>

#include "vta/isa/fields.h"

namespace vta::model {

/// a[i] = alu_apply(op, a[i], b[i]) for i < n.
void alu_apply_n(isa::AluOp op, int32_t* a, const int32_t* b, size_t n);
/// a[i] = alu_apply(op, a[i], imm) for i < n.
void alu_apply_n(isa::AluOp op, int32_t* a, int32_t imm, size_t n);

}  // namespace vta::model
