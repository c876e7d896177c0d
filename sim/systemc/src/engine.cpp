#include "engine.h"

#include <cstdlib>
#include <vector>

#include "vta/isa/asan_stack.h"
#include "vta/isa/error.h"
#include "vta/sim/dram/config.h"

// Debian's libsystemc carries a main() that calls sc_main; this program has
// its own main, so sc_main only has to exist.
int sc_main(int, char**) { return 1; }

namespace vta::sim {

using isa::Member;
using isa::Opcode;
using model::Module;

namespace {
// What add_to_top() registered.
struct TopModules {
  std::vector<void (*)()> elaborate;
  bool elaborated = false;
};
TopModules& top_modules() {
  static TopModules t;
  return t;
}
}  // namespace

bool Engine::add_to_top(void (*elaborate)()) {
  if (top_modules().elaborated)
    fail("SystemC has elaborated already: a module of its top level must be added at start-up");
  top_modules().elaborate.push_back(elaborate);
  return true;
}

Engine& Engine::instance() {
  static Engine* engine = [] {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    auto* e = new Engine("vta");
    top_modules().elaborated = true;
    for (auto* elaborate : top_modules().elaborate) elaborate();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // every thread now waits for start_ev_
    restore_main_stack_bounds();
    return e;
  }();
  return *engine;
}

Engine::Engine(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(Engine);
  port_or_abort_ |= port_ev_;
  port_or_abort_ |= abort_ev_;
  SC_THREAD(fetch_thread);
  SC_THREAD(load_thread);
  SC_THREAD(compute_thread);
  SC_THREAD(store_thread);
  SC_THREAD(port_thread);
  SC_THREAD(retire_thread);
}

uint64_t Engine::now() const { return sc_core::sc_time_stamp().value() / 1000; }  // ps -> cycles (1 ns)

void Engine::wait_cycles(uint64_t n) {
  if (n == 0) return;
  wait(sc_core::sc_time(static_cast<double>(n), sc_core::SC_NS), abort_ev_);
  check_abort();
}

void Engine::wait_for(sc_core::sc_event& ev) {
  wait(ev | abort_ev_);
  check_abort();
}

void Engine::abort_all(const std::string& error) {
  if (aborting_) return;
  aborting_ = true;
  error_ = error;
  abort_ev_.notify(sc_core::SC_ZERO_TIME);  // delta: also legal from outside a process
}

RunRecord Engine::run(const RunSetup& setup) {
  rs_ = &setup;
  t0_ = now();
  const auto& prog = *setup.program;
  const auto n = static_cast<uint32_t>(prog.insns.size());
  for (auto& q : cmdq_) q.clear();
  remaining_ = {};
  for (uint32_t i = 0; i < n; ++i) ++remaining_[static_cast<size_t>(prog.module[i])];
  tokens_ = {};
  retire_q_.clear();
  pending_push_ = {};
  retire_left_ = 0;
  if (setup.config->alu.concurrent)
    for (uint32_t i = 0; i < n; ++i)
      if (prog.module[i] == Module::COMPUTE &&
          (prog.insns[i].opcode() == Opcode::GEMM || prog.insns[i].opcode() == Opcode::ALU))
        ++retire_left_;
  fetched_ = done_ = 0;
  aborting_ = false;
  error_.clear();
  rec_ = RunRecord{};
  rec_.insns.assign(n, InsnRecord{});
  pending_ = {};
  inflight_.clear();
  read_data_free_ = write_data_free_ = t0_;
  last_grant_ = -1;
  dram_.reset();
  if (dram::enabled(*setup.config)) dram_.emplace(*setup.config, *setup.timing);
  dram_reads_.clear();
  write_ = nullptr;

  start_ev_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();  // returns when every thread waits: done, failed or deadlocked
  restore_main_stack_bounds();

  if (!aborting_ && done_ < n) {
    std::array<int64_t, 3> heads{};
    for (int m = 0; m < 3; ++m) heads[m] = cmdq_[m].empty() ? int64_t{-1} : static_cast<int64_t>(cmdq_[m].front());
    try {
      model::fail_deadlock(*setup.config, *setup.layout, prog, done_, heads, tokens_, fetched_);
    } catch (const Error& e) {
      abort_all(e.what());
    }
  }
  if (aborting_) {
    sc_core::sc_start();  // let every thread unwind to its start
    restore_main_stack_bounds();
    aborting_ = false;
    rs_ = nullptr;
    throw Error(error_);
  }
  rec_.cycles = 0;
  for (const auto& r : rec_.insns) rec_.cycles = std::max(rec_.cycles, r.end);
  if (dram_) rec_.dram = dram_->stats_at(rec_.cycles);
  rs_ = nullptr;
  return std::move(rec_);
}

void Engine::fetch_thread() {
  while (true) {
    wait(start_ev_);
    try {
      const auto& prog = *rs_->program;
      const auto n = static_cast<uint32_t>(prog.insns.size());
      const auto depth = static_cast<size_t>(rs_->config->queues.command_depth);
      uint32_t i = 0;
      while (i < n) {
        const uint32_t chunk = static_cast<uint32_t>(std::min<uint64_t>(n - i, rs_->timing->insns_per_fetch()));
        uint64_t wait = 0;
        const uint64_t t = now();
        dma_read(Client::FETCH, rs_->timing->fetch_bursts(rs_->insn_addr + uint64_t{i} * isa::kInsnBytes, chunk), wait);
        rec_.fetch_wait_memory += now() - t;
        for (uint32_t k = 0; k < chunk; ++k, ++i) {
          const auto m = static_cast<size_t>(prog.module[i]);
          const uint64_t t1 = now();
          while (cmdq_[m].size() >= depth) wait_for(pop_ev_[m]);
          rec_.fetch_wait_queue += now() - t1;
          wait_cycles(1);  // one dispatch per cycle
          cmdq_[m].push_back(i);
          rec_.insns[i].avail = now() - t0_;
          ++fetched_;
          cmd_ev_[m].notify();
        }
      }
      rec_.fetch_end = now() - t0_;
    } catch (const Abort&) {
    }
  }
}

void Engine::module_thread(Module m) {
  while (true) {
    wait(start_ev_);
    try {
      if (m == Module::COMPUTE && rs_->config->alu.concurrent)
        run_compute_concurrent();
      else
        run_module(m);
    } catch (const Abort&) {
    }
  }
}

void Engine::run_module(Module m) {
  const auto mi = static_cast<size_t>(m);
  const auto& prog = *rs_->program;
  while (remaining_[mi] > 0) {
    while (cmdq_[mi].empty()) wait_for(cmd_ev_[mi]);
    const uint32_t i = cmdq_[mi].front();
    InsnRecord& rec = rec_.insns[i];
    issue_when_tokens_allow(m, i, rec);
    execute(i, rec);
    rec.end = now() - t0_;
    model::push_tokens(prog, i, tokens_);
    token_ev_.notify();
    --remaining_[mi];
    ++done_;
  }
}

void Engine::issue_when_tokens_allow(Module m, uint32_t i, InsnRecord& rec) {
  const auto mi = static_cast<size_t>(m);
  const auto& prog = *rs_->program;
  const auto tok_depth = static_cast<uint64_t>(rs_->config->queues.token_depth);
  const uint64_t t = now();
  model::TokenQueue q;
  bool is_pop = false;
  // For compute, a queue's room counts the pushes that its issued
  // instructions have still to make (none without alu.concurrent); compute
  // never pops a queue it pushes, so its pops see the tokens present. The
  // other modules see the tokens present.
  auto seen = [&] {
    model::TokenCounts c = tokens_;
    if (m == Module::COMPUTE)
      for (size_t k = 0; k < c.size(); ++k) c[k] += pending_push_[k];
    return c;
  };
  while (model::blocked_on_tokens(prog, i, seen(), tok_depth, q, is_pop)) wait_for(token_ev_);
  rec.wait_token = now() - t;
  model::pop_tokens(prog, i, tokens_);
  token_ev_.notify();  // a pop makes room for a waiting producer
  cmdq_[mi].pop_front();
  pop_ev_[mi].notify();
  rec.start = now() - t0_;
}

void Engine::run_compute_concurrent() {
  // docs/timing.md, "Concurrent ALU": rules C1 (scan), C2 (issue), C3
  // (other compute instructions drain both pipes) and C4 (in-order pushes,
  // made by retire_thread). A GEMM's or ALU's duration is known at issue, so
  // the issue stage records its end and goes on to the next instruction.
  constexpr auto mi = static_cast<size_t>(Module::COMPUTE);
  const auto& prog = *rs_->program;
  const Timing& t = *rs_->timing;
  struct Flight {
    uint64_t end;
    uint32_t banks;
    int pipe;
  };
  std::vector<Flight> flight;            // issued GEMM/ALU, pruned once ended
  uint64_t pipe_end[2] = {t0_, t0_};     // e of each pipe's last instruction
  uint64_t all_end = t0_, retire = t0_;  // latest e and latest retire cycle
  while (remaining_[mi] > 0) {
    while (cmdq_[mi].empty()) wait_for(cmd_ev_[mi]);
    const uint32_t i = cmdq_[mi].front();
    InsnRecord& rec = rec_.insns[i];
    const isa::Insn& insn = prog.insns[i];
    const bool gemm = insn.opcode() == Opcode::GEMM;
    if (!gemm && insn.opcode() != Opcode::ALU) {  // C3: LOAD UOP/ACC/ACC_8BIT, FINISH
      const uint64_t t1 = now();
      if (t1 < all_end) wait_cycles(all_end - t1);
      rec.wait_hazard = now() - t1;
      issue_when_tokens_allow(Module::COMPUTE, i, rec);
      execute(i, rec);
      rec.end = now() - t0_;
      all_end = retire = now();
      model::push_tokens(prog, i, tokens_);
      token_ev_.notify();
      --remaining_[mi];
      ++done_;
      continue;
    }
    const int pipe = gemm ? 0 : 1;
    const uint64_t t1 = now();
    // C1: the uop scan (the uop buffer as it stands: every earlier LOAD UOP
    // has completed).
    const model::Datapath* dp = rs_->datapath ? rs_->datapath : rs_->checker;
    const uint32_t banks = dp ? t.acc_banks(insn, dp->uops()) : (1u << kConcurrentAccBanks) - 1;
    wait_cycles(t.scan_cycles(insn));
    // C2: its pipe free, and every earlier instruction of the other pipe
    // sharing a bank completed.
    uint64_t ready = pipe_end[pipe];
    for (const Flight& f : flight)
      if (f.pipe != pipe && (f.banks & banks) != 0) ready = std::max(ready, f.end);
    if (now() < ready) wait_cycles(ready - now());
    rec.wait_hazard = now() - t1;
    issue_when_tokens_allow(Module::COMPUTE, i, rec);
    execute_data(i);
    const uint64_t e = now() + (gemm ? t.gemm_cycles(insn) : t.alu_cycles(insn));
    rec.end = e - t0_;
    pipe_end[pipe] = e;
    all_end = std::max(all_end, e);
    std::erase_if(flight, [&](const Flight& f) { return f.end <= now(); });
    flight.push_back({e, banks, pipe});
    // C4: pushes in program order.
    retire = std::max(retire, e);
    model::TokenCounts add{};
    model::push_tokens(prog, i, add);
    for (size_t k = 0; k < add.size(); ++k) pending_push_[k] += add[k];
    retire_q_.emplace_back(i, retire);
    retire_ev_.notify();
    --remaining_[mi];
    wait_cycles(1);  // one issue a cycle: the next scan starts at s_i + 1
  }
}

void Engine::retire_thread() {
  // Makes the pushes of GEMM/ALU instructions at their retire cycles
  // (alu.concurrent only; retire_left_ is 0 otherwise).
  while (true) {
    wait(start_ev_);
    try {
      const auto& prog = *rs_->program;
      while (retire_left_ > 0) {
        while (retire_q_.empty()) wait_for(retire_ev_);
        const auto [i, r] = retire_q_.front();
        if (now() < r) wait_cycles(r - now());
        retire_q_.pop_front();
        model::TokenCounts add{};
        model::push_tokens(prog, i, add);
        for (size_t k = 0; k < add.size(); ++k) {
          pending_push_[k] -= add[k];
          tokens_[k] += add[k];
        }
        token_ev_.notify();
        --retire_left_;
        ++done_;
      }
    } catch (const Abort&) {
    }
  }
}

void Engine::execute_data(uint32_t i) {
  const isa::Insn& insn = rs_->program->insns[i];
  model::Datapath* dp = rs_->datapath;
  try {
    if (dp) {
      switch (insn.opcode()) {
        case Opcode::LOAD:
          dp->load(insn, i, *rs_->dram);
          break;
        case Opcode::STORE:
          dp->store(insn, i, *rs_->dram);
          break;
        case Opcode::GEMM:
          dp->gemm(insn, i);
          break;
        case Opcode::ALU:
          dp->alu(insn, i);
          break;
        case Opcode::FINISH:
          break;
      }
    } else if (rs_->checker) {
      rs_->checker->check(insn, i, *rs_->dram);
    }
  } catch (const Error& e) {
    abort_all(e.what());
    throw Abort{};
  }
}

void Engine::execute(uint32_t i, InsnRecord& rec) {
  const isa::Insn& insn = rs_->program->insns[i];
  const Timing& t = *rs_->timing;
  execute_data(i);
  switch (insn.opcode()) {
    case Opcode::LOAD:
      if (insn[Member::x_size] == 0) {
        wait_cycles(1);
      } else {
        wait_cycles(1 + t.pad_cycles(insn));
        const Client client = rs_->program->module[i] == Module::LOAD ? Client::LOAD : Client::COMPUTE;
        dma_read(client, t.bursts(insn), rec.wait_memory);
      }
      break;
    case Opcode::STORE:
      wait_cycles(1);
      if (insn[Member::x_size] != 0) dma_write(t.bursts(insn), rec.wait_memory);
      break;
    case Opcode::GEMM:
      wait_cycles(t.gemm_cycles(insn));
      break;
    case Opcode::ALU:
      wait_cycles(t.alu_cycles(insn));
      break;
    case Opcode::FINISH:
      wait_cycles(1);
      break;
  }
}

void Engine::dma_read(Client client, std::vector<Burst> bursts, uint64_t& wait) {
  if (bursts.empty()) return;
  ReadRequest req;
  req.client = client;
  req.bursts = std::move(bursts);
  req.submitted = now();
  for (const Burst& b : req.bursts) req.beats += b.beats;
  pending_[static_cast<size_t>(client)] = &req;
  port_ev_.notify();
  try {
    wait_for(req.done);
  } catch (const Abort&) {
    pending_[static_cast<size_t>(client)] = nullptr;
    throw;
  }
  wait += (now() - req.submitted) - req.beats;
}

void Engine::dma_write(const std::vector<Burst>& bursts, uint64_t& wait) {
  // One writer (store): bursts stream back to back on the write data channel
  // from the next cycle; the instruction ends with the last acknowledgement.
  const Timing& t = *rs_->timing;
  const uint64_t start = now();
  uint64_t beats = 0, ack = start;
  WriteRequest w;
  for (const Burst& b : bursts) {
    const uint64_t s = std::max(now() + 1, write_data_free_);
    write_data_free_ = s + b.beats;
    ack = write_data_free_ + t.write_latency();
    beats += b.beats;
    w.bursts.push_back(b);
    w.last_beat.push_back(write_data_free_ - 1 - t0_);
    if (rs_->record_bursts) rec_.bursts.push_back({Client::STORE, true, s - t0_, s - t0_, write_data_free_ - t0_});
  }
  rec_.write_beats += beats;
  if (dram_) {  // the port thread submits each burst at its last beat and reports the last acknowledgement
    write_ = &w;
    port_ev_.notify();
    try {
      wait_for(w.done);
    } catch (const Abort&) {
      write_ = nullptr;
      throw;
    }
  } else {
    wait_cycles(ack - start);
  }
  wait += (now() - start) - beats;
}

void Engine::port_thread() {
  // Grants one read burst per cycle to the requests made in earlier cycles,
  // at most outstanding_reads in flight; with the fixed model data follows
  // read_latency cycles after the grant, back to back on the read data
  // channel; with the DRAM model DramPort times beats and acknowledgements,
  // and the thread runs every cycle while anything is in flight.
  while (true) {
    try {
      bool any = dram_ ? dram_port_busy() : false;
      for (auto* p : pending_) any |= p != nullptr;
      if (!any) {
        wait_for(port_ev_);
        wait_cycles(1);  // a request is granted from the cycle after it was made
        continue;
      }
      if (dram_)
        port_cycle_dram();
      else
        port_cycle_fixed();
    } catch (const Abort&) {
      pending_ = {};
      inflight_.clear();
      dram_reads_.clear();
      write_ = nullptr;
      wait(start_ev_);
    }
  }
}

void Engine::port_cycle_fixed() {
  const uint64_t c = now();
  while (!inflight_.empty() && inflight_.front() <= c) inflight_.pop_front();
  const Timing& t = *rs_->timing;
  if (inflight_.size() >= t.outstanding_reads()) {
    wait_cycles(inflight_.front() - c);
    return;
  }
  // Arbitration among requests made before this cycle.
  int pick = -1;
  for (int k = 0; k < 4 && pick < 0; ++k) {
    const int cand = t.round_robin() ? (last_grant_ + 1 + k) % 4 : k;
    ReadRequest* r = pending_[static_cast<size_t>(cand)];
    if (r && r->submitted < c) pick = cand;
  }
  if (pick < 0) {
    wait_cycles(1);
    return;
  }
  ReadRequest* r = pending_[static_cast<size_t>(pick)];
  const uint32_t beats = r->bursts[r->next++].beats;
  const uint64_t data_start = std::max(c + t.read_latency(), read_data_free_);
  read_data_free_ = data_start + beats;
  inflight_.push_back(read_data_free_);
  rec_.read_beats += beats;
  if (rs_->record_bursts) rec_.bursts.push_back({r->client, false, c - t0_, data_start - t0_, read_data_free_ - t0_});
  last_grant_ = pick;
  if (r->next == r->bursts.size()) {
    r->finish = read_data_free_;
    r->done.notify(sc_core::sc_time(static_cast<double>(r->finish - c), sc_core::SC_NS));
    pending_[static_cast<size_t>(pick)] = nullptr;
  }
  wait_cycles(1);
}

bool Engine::dram_port_busy() const { return !dram_reads_.empty() || write_ != nullptr; }

void Engine::port_cycle_dram() {
  const uint64_t c = now(), rc = c - t0_;  // the DRAM model counts the run's cycles
  const Timing& t = *rs_->timing;
  // Rules 12 and 14: at most one grant, among requests made before this cycle.
  if (dram_->can_grant(rc)) {
    int pick = -1;
    for (int k = 0; k < 4 && pick < 0; ++k) {
      const int cand = t.round_robin() ? (last_grant_ + 1 + k) % 4 : k;
      ReadRequest* r = pending_[static_cast<size_t>(cand)];
      if (r && r->submitted < c) pick = cand;
    }
    if (pick >= 0) {
      ReadRequest* r = pending_[static_cast<size_t>(pick)];
      const Burst& b = r->bursts[r->next++];
      DramRead d{dram_->read(rc, b.addr, b.beats), b.beats};
      rec_.read_beats += b.beats;
      if (rs_->record_bursts) {
        d.record = rec_.bursts.size();
        rec_.bursts.push_back({r->client, false, rc, rc, rc});
      }
      last_grant_ = pick;
      if (r->next == r->bursts.size()) {
        d.last_of = r;
        pending_[static_cast<size_t>(pick)] = nullptr;
      }
      dram_reads_.push_back(d);
    }
  }
  // Rule 10: each write burst goes to the DRAM in the cycle of its last W beat.
  if (write_)
    while (write_->ids.size() < write_->bursts.size() && write_->last_beat[write_->ids.size()] == rc) {
      const Burst& b = write_->bursts[write_->ids.size()];
      write_->ids.push_back(dram_->write(rc, b.addr, b.beats));
    }
  // Rule 13: a request ends after the last beat of its last burst (beats are
  // delivered in grant order, so the bursts known are a prefix).
  while (!dram_reads_.empty()) {
    const DramRead& d = dram_reads_.front();
    const auto last = dram_->beat(rc, d.id, d.beats - 1);
    if (!last) break;
    if (d.record != SIZE_MAX) {
      BurstRecord& br = rec_.bursts[d.record];
      br.data_start = dram_->beat(rc, d.id, 0).value();
      br.data_end = *last + 1;
    }
    if (d.last_of) {
      d.last_of->finish = t0_ + *last + 1;
      d.last_of->done.notify(sc_core::sc_time(static_cast<double>(*last + 1 - rc), sc_core::SC_NS));
    }
    dram_reads_.pop_front();
  }
  // A STORE ends the cycle after its last acknowledgement (in issue order).
  if (write_ && write_->ids.size() == write_->bursts.size()) {
    const auto ack = dram_->ack(rc, write_->ids.back());
    if (ack) {
      for (uint64_t id : write_->ids) dram_->forget_write(id);
      write_->done.notify(sc_core::sc_time(static_cast<double>(*ack + 1 - rc), sc_core::SC_NS));
      write_ = nullptr;
    }
  }
  // Sleep until the next cycle at which something can happen: a grant (every
  // cycle while a request waits and the limit allows), a write's last beat,
  // or what DramPort::next_event() bounds. A new request wakes the thread
  // (port_ev_), to look at the cycle after it.
  uint64_t next = dram_->next_event(rc);
  bool waiting = false;
  for (auto* p : pending_) waiting |= p != nullptr;
  if (waiting && dram_->can_grant(rc + 1)) next = rc + 1;
  if (write_ && write_->ids.size() < write_->bursts.size())
    next = std::min(next, write_->last_beat[write_->ids.size()]);
  if (next == UINT64_MAX || next <= rc) next = rc + 1;
  wait(sc_core::sc_time(static_cast<double>(next - rc), sc_core::SC_NS), port_or_abort_);
  check_abort();
  if (now() - t0_ < next) wait_cycles(1);  // woken by a request made now: it may be granted from the next cycle
}

}  // namespace vta::sim
