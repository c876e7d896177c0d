// Fetch, decode and static checks of a program.
#include "vta/model/program.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "vta/isa/error.h"

namespace vta::model {

using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

const char* module_name(Module m) {
  switch (m) {
    case Module::LOAD:
      return "load";
    case Module::COMPUTE:
      return "compute";
    case Module::STORE:
      return "store";
  }
  return "?";
}

const char* queue_name(TokenQueue q) {
  switch (q) {
    case TokenQueue::L2C:
      return "load->compute";
    case TokenQueue::C2L:
      return "compute->load";
    case TokenQueue::C2S:
      return "compute->store";
    case TokenQueue::S2C:
      return "store->compute";
  }
  return "?";
}

Module module_of(const Insn& insn) {
  switch (insn.opcode()) {
    case Opcode::LOAD:
      return insn.mem() == MemId::INP || insn.mem() == MemId::WGT ? Module::LOAD : Module::COMPUTE;
    case Opcode::STORE:
      return Module::STORE;
    default:
      return Module::COMPUTE;
  }
}

bool pop_queue(Module m, bool next, TokenQueue& q) {
  switch (m) {
    case Module::LOAD:
      if (!next) return false;
      q = TokenQueue::C2L;
      return true;
    case Module::COMPUTE:
      q = next ? TokenQueue::S2C : TokenQueue::L2C;
      return true;
    case Module::STORE:
      if (next) return false;
      q = TokenQueue::C2S;
      return true;
  }
  return false;
}

bool push_queue(Module m, bool next, TokenQueue& q) {
  switch (m) {
    case Module::LOAD:
      if (!next) return false;
      q = TokenQueue::L2C;
      return true;
    case Module::COMPUTE:
      q = next ? TokenQueue::C2S : TokenQueue::C2L;
      return true;
    case Module::STORE:
      if (next) return false;
      q = TokenQueue::S2C;
      return true;
  }
  return false;
}

std::string insn_label(const isa::Layout& layout, const Insn& insn, int64_t index) {
  return fmt::format("instruction {} ({})", index, layout.disasm(insn));
}

InsnWork work_of(const Config& c, const Insn& insn) {
  InsnWork w;
  switch (insn.opcode()) {
    case Opcode::GEMM:
    case Opcode::ALU: {
      uint64_t uops = insn[Member::uop_end] > insn[Member::uop_bgn] ? insn[Member::uop_end] - insn[Member::uop_bgn] : 0;
      w.uop_iters = uint64_t{insn[Member::iter_out]} * insn[Member::iter_in] * uops;
      break;
    }
    case Opcode::LOAD:
    case Opcode::STORE: {
      if (insn[Member::x_size] == 0) break;
      w.dram_elems = uint64_t{insn[Member::y_size]} * insn[Member::x_size];
      w.dram_bytes = w.dram_elems * static_cast<uint64_t>(c.elem_bytes(static_cast<int>(insn.mem())));
      uint64_t xt = uint64_t{insn[Member::x_pad_0]} + insn[Member::x_size] + insn[Member::x_pad_1];
      uint64_t yt = uint64_t{insn[Member::y_pad_0]} + insn[Member::y_size] + insn[Member::y_pad_1];
      w.sram_elems = insn.opcode() == Opcode::LOAD ? xt * yt : w.dram_elems;
      break;
    }
    case Opcode::FINISH:
      break;
  }
  return w;
}

uint64_t steps_of(const Config& c, const Insn& insn) {
  const InsnWork w = work_of(c, insn);
  return 1 + w.uop_iters + w.sram_elems;
}

void check_step_budget(const Config& c, const isa::Layout& layout, const Program& prog, uint64_t max_steps) {
  uint64_t total = 0;
  for (size_t i = 0; i < prog.insns.size(); ++i) {
    total += steps_of(c, prog.insns[i]);  // at most 2^32 instructions of < 2^47 steps: no overflow
    if (total > max_steps)
      fail(
          "{}: the program needs {} steps (uop iterations and SRAM elements moved) by this instruction, over the "
          "budget of {} steps per run (raise it with --max-steps)",
          insn_label(layout, prog.insns[i], static_cast<int64_t>(i)), total, max_steps);
  }
}

bool blocked_on_tokens(const Program& prog, uint32_t i, const TokenCounts& tokens, uint64_t token_depth, TokenQueue& q,
                       bool& is_pop) {
  const Insn& insn = prog.insns[i];
  const Module m = prog.module[i];
  for (bool next : {false, true}) {
    if (insn[next ? Member::pop_next : Member::pop_prev] && pop_queue(m, next, q) &&
        tokens[static_cast<size_t>(q)] == 0)
      return is_pop = true, true;
    if (insn[next ? Member::push_next : Member::push_prev] && push_queue(m, next, q) &&
        tokens[static_cast<size_t>(q)] >= token_depth)
      return is_pop = false, true;
  }
  return false;
}

void pop_tokens(const Program& prog, uint32_t i, TokenCounts& tokens) {
  const Insn& insn = prog.insns[i];
  TokenQueue q;
  if (insn[Member::pop_prev] && pop_queue(prog.module[i], false, q)) --tokens[static_cast<size_t>(q)];
  if (insn[Member::pop_next] && pop_queue(prog.module[i], true, q)) --tokens[static_cast<size_t>(q)];
}

void push_tokens(const Program& prog, uint32_t i, TokenCounts& tokens, uint64_t* pushed) {
  const Insn& insn = prog.insns[i];
  TokenQueue q;
  for (bool next : {false, true}) {
    if (insn[next ? Member::push_next : Member::push_prev] && push_queue(prog.module[i], next, q)) {
      ++tokens[static_cast<size_t>(q)];
      if (pushed) ++pushed[static_cast<size_t>(q)];
    }
  }
}

void fail_deadlock(const Config& c, const isa::Layout& layout, const Program& prog, uint32_t done,
                   const std::array<int64_t, 3>& heads, const TokenCounts& tokens, uint32_t fetched) {
  const auto tok_depth = static_cast<uint64_t>(c.queues.token_depth);
  const auto n = static_cast<uint32_t>(prog.insns.size());
  std::string why;
  for (int m = 0; m < 3; ++m) {
    if (heads[m] < 0) continue;
    TokenQueue q{};
    bool is_pop = false;
    const auto i = static_cast<uint32_t>(heads[m]);
    blocked_on_tokens(prog, i, tokens, tok_depth, q, is_pop);
    why += fmt::format("{}{} module: {} waits {} queue {}", why.empty() ? "" : "; ",
                       module_name(static_cast<Module>(m)), insn_label(layout, prog.insns[i], i),
                       is_pop ? "for a token on" : fmt::format("for room ({} tokens) on", tok_depth), queue_name(q));
  }
  if (fetched < n)
    why += fmt::format("; fetch: instruction {} waits for room in the {} command queue ({} entries, full)", fetched,
                       module_name(prog.module[fetched]), c.queues.command_depth);
  fail("deadlock after {} of {} instructions: {}", done, n, why);
}

Schedule schedule(const Config& c, const Program& prog) {
  const auto n = static_cast<uint32_t>(prog.insns.size());
  const auto cmd_depth = static_cast<size_t>(c.queues.command_depth);
  const auto tok_depth = static_cast<uint64_t>(c.queues.token_depth);
  std::array<std::deque<uint32_t>, 3> cmd;  // dispatched, not yet run, per module
  Schedule s;
  s.order.reserve(n);
  while (s.order.size() < n) {
    while (s.fetched < n && cmd[static_cast<size_t>(prog.module[s.fetched])].size() < cmd_depth) {
      cmd[static_cast<size_t>(prog.module[s.fetched])].push_back(s.fetched);
      ++s.fetched;
    }
    int pick = -1;
    for (int m = 0; m < 3; ++m) {
      if (cmd[m].empty()) continue;
      TokenQueue q;
      bool is_pop = false;
      if (blocked_on_tokens(prog, cmd[m].front(), s.tokens, tok_depth, q, is_pop)) continue;
      if (pick < 0 || cmd[m].front() < cmd[pick].front()) pick = m;
    }
    if (pick < 0) {
      s.deadlock = true;
      for (int m = 0; m < 3; ++m) s.heads[m] = cmd[m].empty() ? int64_t{-1} : static_cast<int64_t>(cmd[m].front());
      return s;
    }
    const uint32_t i = cmd[pick].front();
    cmd[pick].pop_front();
    pop_tokens(prog, i, s.tokens);
    push_tokens(prog, i, s.tokens);
    s.order.push_back(i);
  }
  return s;
}

void check_deadlock(const Config& c, const isa::Layout& layout, const Program& prog, const Schedule& s) {
  if (s.deadlock) fail_deadlock(c, layout, prog, static_cast<uint32_t>(s.order.size()), s.heads, s.tokens, s.fetched);
}

namespace {

void check_insn(const Config& c, const isa::Layout& layout, const Insn& insn, int64_t index) {
  auto bad = [&](const std::string& why) { fail("{}: {}", insn_label(layout, insn, index), why); };
  const Module m = module_of(insn);
  TokenQueue q;
  if (insn[Member::pop_prev] && !pop_queue(m, false, q))
    bad(fmt::format("pop_prev is set but the {} module has no previous module", module_name(m)));
  if (insn[Member::push_prev] && !push_queue(m, false, q))
    bad(fmt::format("push_prev is set but the {} module has no previous module", module_name(m)));
  if (insn[Member::pop_next] && !pop_queue(m, true, q))
    bad(fmt::format("pop_next is set but the {} module has no next module", module_name(m)));
  if (insn[Member::push_next] && !push_queue(m, true, q))
    bad(fmt::format("push_next is set but the {} module has no next module", module_name(m)));
  switch (insn.opcode()) {
    case Opcode::LOAD:
      if (insn.mem() == MemId::OUT) bad("LOAD cannot target OUT (STORE reads it; GEMM and ALU write it)");
      if (const isa::Code* mem = isa::find_memory(insn[Member::memory_type]); !mem)
        bad(fmt::format("memory_type {} does not exist (0..{})", insn[Member::memory_type],
                        isa::memories().back().value));
      else if (!mem->enabled(c))
        bad(fmt::format("{} loads are disabled by isa.{}: false", mem->name, mem->extension));
      break;
    case Opcode::STORE:
      if (insn.mem() != MemId::OUT) bad("STORE can only read the OUT buffer (memory_type OUT)");
      if (insn[Member::y_pad_0] || insn[Member::y_pad_1] || insn[Member::x_pad_0] || insn[Member::x_pad_1])
        bad("STORE does not support padding");
      break;
    case Opcode::ALU:
      if (const isa::Code* a = isa::find_alu_op(insn[Member::alu_opcode]); !a)
        bad(fmt::format("alu_opcode {} does not exist ({} {} .. {} {})", insn[Member::alu_opcode],
                        isa::alu_ops().front().name, isa::alu_ops().front().value, isa::alu_ops().back().name,
                        isa::alu_ops().back().value));
      else if (!a->enabled(c))
        bad(fmt::format("ALU {} is disabled by isa.{}: false", a->name, a->extension));
      break;
    default:
      break;
  }
}

// A STORE into the program's own instructions would make the result depend
// on when fetch reads them (a card prefetches; a model may fetch all up
// front), so it is rejected before anything runs, the same on every backend.
void check_store_outside_program(const Config& c, const isa::Layout& layout, const Insn& insn, int64_t index,
                                 uint64_t insn_addr, uint64_t insn_bytes) {
  if (insn.opcode() != Opcode::STORE || insn[Member::x_size] == 0) return;
  const auto e = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(MemId::OUT)));
  const uint64_t bytes = uint64_t{insn[Member::x_size]} * e;
  for (uint64_t y = 0; y < insn[Member::y_size]; ++y) {
    const uint64_t addr = (uint64_t{insn[Member::dram_base]} + y * insn[Member::x_stride]) * e;
    if (addr < insn_addr + insn_bytes && insn_addr < addr + bytes)
      fail(
          "{}: row {} writes DRAM {}, over the program's own instruction {} (instructions {}): a program may not "
          "store into its instructions",
          insn_label(layout, insn, index), y, Dram::range(addr, bytes),
          (std::max(addr, insn_addr) - insn_addr) / isa::kInsnBytes, Dram::range(insn_addr, insn_bytes));
  }
}

}  // namespace

Program fetch_program(const Config& c, const isa::Layout& layout, const Dram& dram, const Launch& launch) {
  if (launch.insn_count == 0) fail("program is empty (insn_count 0): it needs at least a FINISH");
  const uint64_t bytes = uint64_t{launch.insn_count} * isa::kInsnBytes;
  if (launch.insn_addr % isa::kInsnBytes != 0)
    fail("instruction address 0x{:x} is not aligned to 16 bytes", launch.insn_addr);
  const uint8_t* p = dram.find(launch.insn_addr, bytes);
  if (!p)
    fail("instructions {} ({} instructions) are outside allocated DRAM", Dram::range(launch.insn_addr, bytes),
         launch.insn_count);
  Program prog;
  prog.insns.reserve(launch.insn_count);
  prog.module.reserve(launch.insn_count);
  int64_t finish_at = -1;
  for (uint32_t i = 0; i < launch.insn_count; ++i) {
    isa::Raw128 raw;
    std::memcpy(raw.w, p + uint64_t{i} * isa::kInsnBytes, isa::kInsnBytes);
    Insn insn = layout.decode(raw, i);
    if (finish_at >= 0)
      fail("{}: follows FINISH (instruction {}); FINISH must be the last instruction", insn_label(layout, insn, i),
           finish_at);
    check_insn(c, layout, insn, i);
    check_store_outside_program(c, layout, insn, i, launch.insn_addr, bytes);
    if (insn.opcode() == Opcode::FINISH) finish_at = i;
    prog.insns.push_back(insn);
    prog.module.push_back(module_of(insn));
  }
  if (finish_at < 0)
    fail("program of {} instructions has no FINISH: the device would never signal done", launch.insn_count);
  prog.regions = launch.regions;
  if (prog.regions.size() >= Program::kNoRegion) fail("too many regions ({})", prog.regions.size());
  prog.region.assign(launch.insn_count, Program::kNoRegion);
  for (size_t r = 0; r < prog.regions.size(); ++r) {
    const Region& reg = prog.regions[r];
    if (reg.begin > reg.end || reg.end > launch.insn_count)
      fail("region '{}' [{}, {}) is outside the program's {} instructions", reg.name, reg.begin, reg.end,
           launch.insn_count);
    for (uint32_t i = reg.begin; i < reg.end; ++i) {
      if (prog.region[i] != Program::kNoRegion)
        fail("regions '{}' and '{}' overlap at instruction {}", prog.regions[prog.region[i]].name, reg.name, i);
      prog.region[i] = static_cast<uint16_t>(r);
    }
  }
  return prog;
}

}  // namespace vta::model
