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
      deadline_(watchdog_) {
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
  if (idx >= dispatched_ || static_cast<unsigned>(prog.module[idx]) != m || current_[m] >= 0)
    fail_rtl(c, fmt::format("module {} issued instruction {} ({} dispatched; it runs on {}; {} in flight)",
                            model::module_name(static_cast<model::Module>(m)), idx, dispatched_,
                            idx < n_ ? model::module_name(prog.module[idx]) : "no module", current_[m]));
  in_.checker->check(prog.insns[idx], idx, *in_.dram);
  sim::InsnRecord& r = rec_.insns[idx];
  r.start = c;
  r.wait_token = c - std::min(c, std::max(r.avail, prev_end_[m]));
  current_[m] = idx;
  uint64_t runs = 0;  // a GEMM or ALU shows no traffic while it runs
  if (prog.insns[idx].opcode() == Opcode::GEMM) runs = in_.timing->gemm_cycles(prog.insns[idx]);
  if (prog.insns[idx].opcode() == Opcode::ALU) runs = in_.timing->alu_cycles(prog.insns[idx]);
  deadline_ = std::max(deadline_, c + runs + watchdog_);
}

void Recorder::retire(uint64_t c, unsigned m) {
  if (current_[m] < 0)
    fail_rtl(c, fmt::format("module {} retired with no instruction in flight",
                            model::module_name(static_cast<model::Module>(m))));
  const auto idx = static_cast<uint32_t>(current_[m]);
  current_[m] = -1;
  sim::InsnRecord& r = rec_.insns[idx];
  r.end = c + 1;
  prev_end_[m] = r.end;
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
