#include "verilator_record.h"

#include <algorithm>
#include <numeric>

#include "vta/isa/error.h"

namespace vta::rtl {

using isa::Member;
using isa::Opcode;

namespace {
// Cycles without any dispatch, issue, retirement or memory traffic (beyond
// the run time of the GEMM/ALU in flight) after which the core is hung.
constexpr uint64_t kWatchdogCycles = 1'000'000;
}  // namespace

Recorder::Recorder(const RunInputs& in)
    : in_(in),
      n_(static_cast<uint32_t>(in.program->insns.size())),
      watchdog_(kWatchdogCycles + in.timing->read_latency() + in.timing->write_latency()),
      deadline_(watchdog_),
      concurrent_(in.config->alu.concurrent) {
  rec_.insns.assign(n_, sim::InsnRecord{});
}

void Recorder::fail_rtl(uint64_t c, const std::string& what) const {
  fail("verilator: the RTL core broke its port contract (sim/rtl/README.md) in cycle {}: {}", c, what);
}

void Recorder::dispatch(uint64_t c, uint32_t idx) {
  if (idx != dispatched_) fail_rtl(c, fmt::format("dispatched instruction {} where {} was next", idx, dispatched_));
  rec_.insns[idx].avail = c + 1;
  rec_.fetch_end = c + 1;
  ++dispatched_;
  traffic(c);
}

void Recorder::issue(uint64_t c, unsigned m, uint32_t idx) {
  const model::Program& prog = *in_.program;
  const bool alu_pipe = concurrent_ && m == 1 && idx < n_ && prog.insns[idx].opcode() == Opcode::ALU;
  int64_t& slot = alu_pipe ? current_alu_ : current_[m];
  if (idx >= dispatched_ || static_cast<unsigned>(prog.module[idx]) != m || slot >= 0)
    fail_rtl(c, fmt::format("module {} issued instruction {} ({} dispatched; it runs on {}; {} in flight)",
                            model::module_name(static_cast<model::Module>(m)), idx, dispatched_,
                            idx < n_ ? model::module_name(prog.module[idx]) : "no module", slot));
  sim::InsnRecord& r = rec_.insns[idx];
  r.start = c;
  if (concurrent_ && m == 1)
    issue_concurrent(c, idx, r);
  else
    r.wait_token = c - std::min(c, std::max(r.avail, prev_end_[m]));
  in_.checker->check(prog.insns[idx], idx, *in_.dram);
  slot = idx;
  uint64_t runs = 0;  // a GEMM or ALU shows no traffic while it runs
  if (prog.insns[idx].opcode() == Opcode::GEMM) runs = in_.timing->gemm_cycles(prog.insns[idx]);
  if (prog.insns[idx].opcode() == Opcode::ALU) runs = in_.timing->alu_cycles(prog.insns[idx]);
  deadline_ = std::max(deadline_, c + runs + watchdog_);
}

// The wait stats of a compute instruction issued in cycle c with
// alu.concurrent, as sim::Engine::run_compute_concurrent counts them: from
// the cycle t1 the issue stage turned to it, C1 to C3 (wait_hazard), then
// rule 4's tokens (wait_token).
void Recorder::issue_concurrent(uint64_t c, uint32_t idx, sim::InsnRecord& r) {
  const isa::Insn& insn = in_.program->insns[idx];
  const uint64_t t1 = std::max(r.avail, c_loop_);
  uint64_t ready = std::max(t1, c_all_end_);  // C3: both pipes drained
  const auto op = insn.opcode();
  if (op == Opcode::GEMM || op == Opcode::ALU) {
    const int pipe = op == Opcode::GEMM ? 0 : 1;
    const uint32_t banks = in_.timing->acc_banks(insn, in_.checker->uops());
    ready = t1 + in_.timing->scan_cycles(insn);
    if (pipe_last_[pipe] >= 0) ready = std::max(ready, rec_.insns[pipe_last_[pipe]].end);
    const int64_t other = pipe_last_[1 - pipe];
    if (other >= 0 && (pipe_banks_[1 - pipe] & banks) != 0) {
      if ((pipe == 0 ? current_alu_ : current_[1]) == other)
        fail_rtl(c, fmt::format("compute issued instruction {} beside instruction {} of the other pipe, which shares "
                                "an ACC bank with it (docs/timing.md, C2)",
                                idx, other));
      ready = std::max(ready, rec_.insns[other].end);
    }
    pipe_last_[pipe] = idx;
    pipe_banks_[pipe] = banks;
    c_loop_ = c + 1;
  }
  ready = std::min(ready, c);
  r.wait_hazard = ready - std::min(ready, t1);
  r.wait_token = c - ready;
}

void Recorder::retire(uint64_t c, unsigned m) { finish(c, current_[m], m); }

void Recorder::retire_alu(uint64_t c) { finish(c, current_alu_, 1); }

void Recorder::finish(uint64_t c, int64_t& slot, unsigned m) {
  if (slot < 0)
    fail_rtl(c, fmt::format("module {} retired with no instruction in flight",
                            model::module_name(static_cast<model::Module>(m))));
  const auto idx = static_cast<uint32_t>(slot);
  slot = -1;
  sim::InsnRecord& r = rec_.insns[idx];
  r.end = c + 1;
  prev_end_[m] = r.end;
  if (concurrent_ && m == 1) {
    c_all_end_ = std::max(c_all_end_, r.end);
    const auto op = in_.program->insns[idx].opcode();
    if (op != Opcode::GEMM && op != Opcode::ALU) c_loop_ = r.end;  // C1: the next scan after a DMA instruction
  }
  ++retired_;
  traffic(c);
  // DMA cycles not moving this instruction's own beats (docs/timing.md stats).
  const isa::Insn& insn = in_.program->insns[idx];
  const auto op = insn.opcode();
  if ((op == Opcode::LOAD || op == Opcode::STORE) && insn[Member::x_size] != 0) {
    const auto bursts = in_.timing->bursts(insn);
    uint64_t beats = 0;
    for (const sim::Burst& b : bursts) beats += b.beats;
    const uint64_t dma_start = r.start + 1 + (op == Opcode::LOAD ? in_.timing->pad_cycles(insn) : 0);
    const uint64_t dma = r.end > dma_start ? r.end - dma_start : 0;
    r.wait_memory = dma > beats ? dma - beats : 0;
  }
}

void Recorder::fail_stuck(uint64_t c, const std::array<int64_t, 3>& heads, const model::TokenCounts& tokens,
                          uint32_t fetched, unsigned busy) const {
  if (busy == 0) model::fail_deadlock(*in_.config, *in_.layout, *in_.program, retired_, heads, tokens, fetched);
  fail(
      "verilator: the RTL core made no progress for {} cycles up to cycle {} (busy modules mask {}, {} of {} "
      "instructions completed): an RTL hang",
      watchdog_, c, busy, retired_, n_);
}

sim::RunRecord Recorder::take(uint64_t read_beats, uint64_t write_beats) {
  rec_.read_beats = read_beats;
  rec_.write_beats = write_beats;
  rec_.cycles = 0;
  for (const auto& r : rec_.insns) rec_.cycles = std::max(rec_.cycles, r.end);
  return std::move(rec_);
}

}  // namespace vta::rtl
