// The golden model's token-synchronised scheduler; datapath.cpp holds the semantics.
#include "vta/model/golden.h"

#include <optional>

#include "vta/isa/error.h"
#include "vta/model/race.h"

namespace vta::model {

using isa::Insn;
using isa::Member;
using isa::Opcode;

void Counters::add(const Config& c, const Insn& insn) {
  const auto op = static_cast<size_t>(insn.opcode());
  ++insns[op];
  const InsnWork w = work_of(c, insn);
  const auto& d = c.derived;
  const auto uop = static_cast<size_t>(isa::MemId::UOP), wgt = static_cast<size_t>(isa::MemId::WGT),
             inp = static_cast<size_t>(isa::MemId::INP), acc = static_cast<size_t>(isa::MemId::ACC),
             out = static_cast<size_t>(isa::MemId::OUT);
  const auto per_iter = [&](int64_t elem_bytes) { return w.uop_iters * static_cast<uint64_t>(elem_bytes); };
  switch (insn.opcode()) {
    case Opcode::LOAD: {
      const auto m = static_cast<size_t>(insn.mem());
      ++loads_by_mem[m];
      dram_read_bytes[m] += w.dram_bytes;
      // ACC_8BIT widens into ACC elements; padding is written too.
      const size_t dst = insn.mem() == isa::MemId::ACC_8BIT ? acc : m;
      if (dst < 5) sram_write_bytes[dst] += w.sram_elems * static_cast<uint64_t>(c.elem_bytes(static_cast<int>(dst)));
      break;
    }
    case Opcode::STORE:
      dram_write_bytes += w.dram_bytes;
      sram_read_bytes[out] += w.dram_bytes;
      break;
    case Opcode::GEMM:
      gemm_uops += w.uop_iters;
      sram_read_bytes[uop] += per_iter(d.uop_elem_bytes);
      sram_write_bytes[acc] += per_iter(d.acc_elem_bytes);
      sram_write_bytes[out] += per_iter(d.out_elem_bytes);
      if (!insn[Member::reset]) {
        macs += w.uop_iters * static_cast<uint64_t>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out);
        sram_read_bytes[inp] += per_iter(d.inp_elem_bytes);
        sram_read_bytes[wgt] += per_iter(d.wgt_elem_bytes);
        sram_read_bytes[acc] += per_iter(d.acc_elem_bytes);
      }
      break;
    case Opcode::ALU:
      alu_uops += w.uop_iters;
      alu_lane_ops += w.uop_iters * static_cast<uint64_t>(c.gemm.batch * c.gemm.block_out);
      sram_read_bytes[uop] += per_iter(d.uop_elem_bytes);
      // The destination, and the source unless the operand is the immediate.
      sram_read_bytes[acc] += per_iter(d.acc_elem_bytes) * (insn[Member::use_imm] ? 1 : 2);
      sram_write_bytes[acc] += per_iter(d.acc_elem_bytes);
      sram_write_bytes[out] += per_iter(d.out_elem_bytes);
      break;
    case Opcode::FINISH:
      break;
  }
}

void Counters::publish(Stats& s) const {
  uint64_t total = 0;
  for (auto n : insns) total += n;
  s.set("insn.total", total);
  for (int op = 0; op < 5; ++op) s.set(fmt::format("insn.{}", isa::opcode_name(static_cast<Opcode>(op))), insns[op]);
  for (int m = 0; m < 6; ++m)
    if (loads_by_mem[m]) s.set(fmt::format("insn.LOAD.{}", isa::mem_name(static_cast<isa::MemId>(m))), loads_by_mem[m]);
  s.set("uops.gemm", gemm_uops);
  s.set("uops.alu", alu_uops);
  s.set("gemm.macs", macs);
  uint64_t rd = 0;
  for (int m = 0; m < 6; ++m) {
    rd += dram_read_bytes[m];
    if (dram_read_bytes[m])
      s.set(fmt::format("dram.read_bytes.{}", isa::mem_name(static_cast<isa::MemId>(m))), dram_read_bytes[m]);
  }
  s.set("dram.read_bytes", rd);
  s.set("dram.write_bytes.OUT", dram_write_bytes);
  for (int q = 0; q < 4; ++q) s.set(fmt::format("tokens.{}", queue_name(static_cast<TokenQueue>(q))), tokens_pushed[q]);
  for (int m = 0; m < 5; ++m) {
    const char* name = isa::mem_name(static_cast<isa::MemId>(m));
    s.set(fmt::format("sram.read_bytes.{}", name), sram_read_bytes[m]);
    s.set(fmt::format("sram.write_bytes.{}", name), sram_write_bytes[m]);
  }
  s.set("alu.lane_ops", alu_lane_ops);
}

GoldenBackend::GoldenBackend(const Config& c, const BackendOptions& options)
    : Backend(c), datapath_(c), race_check_(!options.skip_race_check), max_steps_(options.max_steps) {
  if (options.timing_only) fail("the golden backend is untimed: timing-only mode needs a cycle model (systemc)");
  if (!options.trace_path.empty()) fail("the golden backend is untimed: --trace needs a cycle model (systemc)");
  if (!options.wave_path.empty()) fail("the golden backend has no RTL: --wave needs the verilator backend");
}

void GoldenBackend::run(const Launch& launch) {
  const Config& c = config();
  const isa::Layout& layout = datapath_.layout();
  Program prog = fetch_program(c, layout, dram(), launch);
  check_step_budget(c, layout, prog, max_steps_);

  const Schedule sched = schedule(c, prog);
  TokenCounts tokens{};
  Counters total;
  std::vector<Counters> per_region(prog.regions.size());
  std::optional<RaceChecker> races;
  if (race_check_) races.emplace(c, layout, prog);

  for (const uint32_t i : sched.order) {
    const Insn& insn = prog.insns[i];
    pop_tokens(prog, i, tokens);
    switch (insn.opcode()) {
      case Opcode::LOAD:
        datapath_.load(insn, i, dram());
        break;
      case Opcode::STORE:
        datapath_.store(insn, i, dram());
        break;
      case Opcode::GEMM:
        datapath_.gemm(insn, i);
        break;
      case Opcode::ALU:
        datapath_.alu(insn, i);
        break;
      case Opcode::FINISH:
        break;
    }
    if (races) races->record(i, datapath_.uops());
    Counters* rc = prog.region[i] != Program::kNoRegion ? &per_region[prog.region[i]] : nullptr;
    TokenCounts before = tokens;
    push_tokens(prog, i, tokens, total.tokens_pushed);
    if (rc)
      for (size_t q = 0; q < 4; ++q) rc->tokens_pushed[q] += tokens[q] - before[q];
    total.add(c, insn);
    if (rc) rc->add(c, insn);
  }
  check_deadlock(c, layout, prog, sched);

  stats_ = RunStats{};
  total.publish(stats_.total);
  for (size_t r = 0; r < prog.regions.size(); ++r) {
    Stats s;
    per_region[r].publish(s);
    stats_.regions.emplace_back(prog.regions[r].name, std::move(s));
  }
}

}  // namespace vta::model
