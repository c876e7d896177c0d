// The VTA ALU's steps on one accumulator or many (alu_steps.h), as the
// golden datapath computes them.
#include "vta/compiler/ops/alu_steps.h"

#include "vta/isa/fuzz_coverage.h"
#include "vta/model/alu_block.h"
#include "vta/model/datapath.h"

namespace vta::compiler {

// run_steps / run_steps_n evaluate the ALU steps on accumulators, once per
// accumulator of a proof: out of the fuzzers' coverage (vta/isa/fuzz_coverage.h;
// with what they call, a quarter of fuzz_onnx's time in perf).
VTA_NO_FUZZ_COVERAGE int8_t run_steps(int32_t acc, const std::vector<AluStep>& steps, const std::vector<int32_t>& rows,
                                      int32_t t0) {
  using isa::AluOp;
  using On = AluStep::On;
  const auto apply = model::alu_apply;  // the golden datapath's own ALU
  int32_t a = acc, t = t0, u = t0, v = t0;
  for (const AluStep& st : steps) switch (st.on) {
      case On::A:
        a = apply(st.op, a, st.imm);
        break;
      case On::T:
        t = apply(st.op, t, st.imm);
        break;
      case On::AbyT:
        a = apply(st.op, a, t);
        break;
      case On::TbyA:
        t = apply(st.op, t, a);
        break;
      case On::AbyRow:
        a = apply(st.op, a, rows.at(static_cast<size_t>(st.row)));
        break;
      case On::TbyRow:
        t = apply(st.op, t, rows.at(static_cast<size_t>(st.row)));
        break;
      case On::U:
        u = apply(st.op, u, st.imm);
        break;
      case On::UbyA:
        u = apply(st.op, u, a);
        break;
      case On::UbyRow:
        u = apply(st.op, u, rows.at(static_cast<size_t>(st.row)));
        break;
      case On::TbyU:
        t = apply(st.op, t, u);
        break;
      case On::VbyA:
        v = apply(st.op, v, a);
        break;
      case On::VbyRow:
        v = apply(st.op, v, rows.at(static_cast<size_t>(st.row)));
        break;
      case On::VbyT:
        v = apply(st.op, v, t);
        break;
      case On::AbyV:
        a = apply(st.op, a, v);
        break;
    }
  return static_cast<int8_t>(a);
}

VTA_NO_FUZZ_COVERAGE void run_steps_n(int32_t* acc, size_t n, const std::vector<AluStep>& steps,
                                      const std::vector<int32_t>& rows) {
  using On = AluStep::On;
  std::vector<int32_t> t(n, 0), u(n, 0), v(n, 0);
  for (const AluStep& st : steps) {
    const auto row = [&] { return rows.at(static_cast<size_t>(st.row)); };
    switch (st.on) {
      case On::A:
        model::alu_apply_n(st.op, acc, st.imm, n);
        break;
      case On::T:
        model::alu_apply_n(st.op, t.data(), st.imm, n);
        break;
      case On::U:
        model::alu_apply_n(st.op, u.data(), st.imm, n);
        break;
      case On::AbyT:
        model::alu_apply_n(st.op, acc, t.data(), n);
        break;
      case On::TbyA:
        model::alu_apply_n(st.op, t.data(), acc, n);
        break;
      case On::UbyA:
        model::alu_apply_n(st.op, u.data(), acc, n);
        break;
      case On::TbyU:
        model::alu_apply_n(st.op, t.data(), u.data(), n);
        break;
      case On::AbyRow:
        model::alu_apply_n(st.op, acc, row(), n);
        break;
      case On::TbyRow:
        model::alu_apply_n(st.op, t.data(), row(), n);
        break;
      case On::UbyRow:
        model::alu_apply_n(st.op, u.data(), row(), n);
        break;
      case On::VbyA:
        model::alu_apply_n(st.op, v.data(), acc, n);
        break;
      case On::VbyRow:
        model::alu_apply_n(st.op, v.data(), row(), n);
        break;
      case On::VbyT:
        model::alu_apply_n(st.op, v.data(), t.data(), n);
        break;
      case On::AbyV:
        model::alu_apply_n(st.op, acc, v.data(), n);
        break;
    }
  }
}

}  // namespace vta::compiler
