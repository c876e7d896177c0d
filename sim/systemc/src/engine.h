#pragma once
// The SystemC model of the VTA microarchitecture: fetch, load, compute and
// store as SC_THREADs around command queues and the four dependency-token
// queues, and a memory port thread that arbitrates read bursts. It is
// transaction-level: time advances by the latencies of docs/timing.md, not
// by a clock edge per cycle. One cycle is one SystemC nanosecond.
//
// SystemC elaborates once per process, so the model is a process-wide
// singleton that every SystemCBackend reuses: run() binds one program,
// config and datapath, simulates until everything is idle, and unwinds the
// threads after an error or a deadlock so that the next run starts clean.
// Not thread-safe: runs are sequential.
#include <systemc.h>

#include <array>
#include <deque>
#include <optional>
#include <string>

#include "vta/model/datapath.h"
#include "vta/model/program.h"
#include "vta/sim/dram_port.h"
#include "vta/sim/run_record.h"
#include "vta/sim/timing.h"

namespace vta::sim {

/// What one run needs; pointers stay valid for the run.
struct RunSetup {
  const Config* config = nullptr;
  const isa::Layout* layout = nullptr;
  const model::Program* program = nullptr;
  const Timing* timing = nullptr;
  model::Datapath* datapath = nullptr;  // nullptr: timing-only
  // Timing-only: raises the errors the datapath would (Datapath::check), so
  // that skipping the tensors never skips a bounds check.
  model::Datapath* checker = nullptr;
  Dram* dram = nullptr;
  uint64_t insn_addr = 0;  // the program's first instruction in DRAM (fetch addresses)
  bool record_bursts = false;
};

class Engine : public sc_core::sc_module {
 public:
  /// The process's engine; the first call elaborates the SystemC top level:
  /// the engine and every module added with add_to_top().
  static Engine& instance();

  /// Adds modules to the process's one elaboration, beside the engine (the
  /// co-simulated RTL core of sim/rtl): instance() calls `elaborate` once,
  /// after constructing the engine and before the first sc_start. Register
  /// from a static initialiser (later, SystemC has elaborated already: a
  /// vta::Error). Returns true.
  static bool add_to_top(void (*elaborate)());

  /// Simulates one program. Throws vta::Error (the datapath's errors, or the
  /// deadlock report of model::fail_deadlock).
  RunRecord run(const RunSetup& setup);

 private:
  struct Abort {};
  struct ReadRequest {
    Client client;
    std::vector<Burst> bursts;
    size_t next = 0;         // next burst to grant
    uint64_t submitted = 0;  // cycle
    uint64_t finish = 0;     // data end of the last burst
    uint64_t beats = 0;
    sc_core::sc_event done;
  };
  // With the DRAM model: a granted read burst whose last beat is not known yet.
  struct DramRead {
    uint64_t id;
    uint32_t beats;
    ReadRequest* last_of = nullptr;  // the request this burst ends, if it does
    size_t record = SIZE_MAX;        // its BurstRecord, when recorded
  };
  // With the DRAM model: the bursts of the STORE in progress, each submitted
  // in the cycle of its last W beat (run cycles), then acknowledged.
  struct WriteRequest {
    std::vector<Burst> bursts;
    std::vector<uint64_t> last_beat;  // run cycle of each burst's last W beat
    std::vector<uint64_t> ids;        // DramPort ids of the bursts submitted so far
    sc_core::sc_event done;
  };

  explicit Engine(sc_core::sc_module_name name);
  uint64_t now() const;
  void wait_cycles(uint64_t n);
  void check_abort() const {
    if (aborting_) throw Abort{};
  }
  void wait_for(sc_core::sc_event& ev);
  void abort_all(const std::string& error);

  void fetch_thread();
  void load_thread() { module_thread(model::Module::LOAD); }
  void compute_thread() { module_thread(model::Module::COMPUTE); }
  void store_thread() { module_thread(model::Module::STORE); }
  void port_thread();
  void retire_thread();
  void module_thread(model::Module m);
  void run_module(model::Module m);
  /// The compute module with alu.concurrent (docs/timing.md, "Concurrent
  /// ALU"): in-order issue to a GEMM and an ALU pipe, a bank scoreboard, and
  /// token pushes in program order through retire_thread.
  void run_compute_concurrent();
  /// Issues instruction `i` of the module at the head of its queue once its
  /// tokens allow (rule 4's token condition; the pushes not yet made by
  /// issued compute instructions count against a queue's room).
  void issue_when_tokens_allow(model::Module m, uint32_t i, InsnRecord& rec);
  void execute(uint32_t i, InsnRecord& rec);
  /// The datapath (or the timing-only checker) part of execute().
  void execute_data(uint32_t i);
  /// Moves `bursts` over the read port for `client`; returns when the last
  /// beat has arrived. Adds its waiting (non-transfer) cycles to `wait`.
  void dma_read(Client client, std::vector<Burst> bursts, uint64_t& wait);
  void dma_write(const std::vector<Burst>& bursts, uint64_t& wait);
  // One cycle of the memory port: fixed rules 12-13, or the DRAM model.
  void port_cycle_fixed();
  void port_cycle_dram();
  bool dram_port_busy() const;

  // Events.
  sc_core::sc_event start_ev_, abort_ev_, token_ev_, port_ev_;
  sc_core::sc_event_or_list port_or_abort_;  // built once: `port_ev_ | abort_ev_` allocates a list per wait
  std::array<sc_core::sc_event, 3> cmd_ev_, pop_ev_;
  sc_core::sc_event retire_ev_;

  // State of the current run.
  const RunSetup* rs_ = nullptr;
  uint64_t t0_ = 0;
  std::array<std::deque<uint32_t>, 3> cmdq_;
  std::array<uint32_t, 3> remaining_{};
  model::TokenCounts tokens_{};
  // With alu.concurrent: compute instructions issued but not yet retired
  // (instruction, retire cycle), in program order; their pushes not yet made;
  // and how many GEMM/ALU instructions retire_thread has still to retire.
  std::deque<std::pair<uint32_t, uint64_t>> retire_q_;
  model::TokenCounts pending_push_{};
  uint32_t retire_left_ = 0;
  uint32_t fetched_ = 0, done_ = 0;
  bool aborting_ = false;
  std::string error_;
  RunRecord rec_;
  // Memory port.
  std::array<ReadRequest*, 4> pending_{};
  std::deque<uint64_t> inflight_;  // data-end cycles of granted read bursts
  uint64_t read_data_free_ = 0, write_data_free_ = 0;
  int last_grant_ = -1;
  std::optional<DramPort> dram_;  // engaged with a DRAM preset (memory.dram), fresh each run
  std::deque<DramRead> dram_reads_;
  WriteRequest* write_ = nullptr;
};

}  // namespace vta::sim
