#pragma once
// The VTA ALU's steps on an accumulator tile (alu_steps.cpp): the form in
// which the requantizations of requant.h and requant_float.h are emitted,
// and the evaluator that their proofs and tests run them with.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vta/isa/fields.h"

namespace vta::compiler {

/// One ALU instruction of an epilogue on the accumulator tile A, with an
/// immediate or with a scratch tile T of the same shape (round half to even).
struct AluStep {
  enum class On {
    A,       // A = A op imm
    T,       // T = T op imm
    AbyT,    // A = A op T
    TbyA,    // T = T op A
    AbyRow,  // A = A op per-channel row `row` of requant_rows()
    TbyRow,  // T = T op per-channel row `row`
    // A second scratch tile U (the three-word product of a per-channel
    // float requantization, requant_float.h): U = U op imm, U = U op A,
    // U = U op row, T = T op U.
    U,
    UbyA,
    UbyRow,
    TbyU,
    // A third scratch tile V (the first of two three-word lines,
    // requant_float.h): V = V op A, V = V op row, V = V op T, A = A op V.
    VbyA,
    VbyRow,
    VbyT,
    AbyV,
  };
  isa::AluOp op;
  int32_t imm;
  On on = On::A;
  int row = 0;  // AbyRow: which row
};
/// Runs `steps` on one accumulator value as the ALU would (32-bit wrap
/// around, T, U and V starting from `t0`, `rows` the lane's per-channel operands by
/// row index): the lowering's proofs and the unit tests check the epilogue
/// against the reference with it.
int8_t run_steps(int32_t acc, const std::vector<AluStep>& steps, const std::vector<int32_t>& rows = {}, int32_t t0 = 0);
/// run_steps() on n accumulators at once (T, U and V start from 0): acc[i]
/// becomes A, whose low 8 bits are run_steps()'s result. The lowering's
/// proofs run whole accumulator ranges through it.
void run_steps_n(int32_t* acc, size_t n, const std::vector<AluStep>& steps, const std::vector<int32_t>& rows = {});

}  // namespace vta::compiler
