#pragma once
// Turns what the core's dbg_* ports show, cycle by cycle, into the
// sim::RunRecord that the SystemC engine fills (same definitions, so that
// sim::publish_run reports alike); runs the checker datapath at issue; and
// notices a stuck core (deadlock report, or a watchdog for an RTL hang).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "verilator_core.h"

namespace vta::rtl {

class Recorder {
 public:
  explicit Recorder(const RunInputs& in);

  /// Fetch put instruction `idx` into its command queue in cycle c.
  void dispatch(uint64_t c, uint32_t idx);
  /// Module m issued instruction `idx` in cycle c. Throws the checker's
  /// error for an instruction the golden model would reject.
  void issue(uint64_t c, unsigned m, uint32_t idx);
  /// Module m's current instruction completes at the end of cycle c (with
  /// alu.concurrent, for compute: the GEMM pipe's or a DMA instruction's).
  void retire(uint64_t c, unsigned m);
  /// alu.concurrent: the ALU pipe's instruction completes at the end of cycle c.
  void retire_alu(uint64_t c);
  /// Memory traffic in cycle c (counts as progress for the watchdog).
  void traffic(uint64_t c) { deadline_ = std::max(deadline_, c + watchdog_); }

  bool finished() const { return retired_ == n_; }
  uint32_t retired() const { return retired_; }
  /// Cycle c is over. `quiet`: no module busy or issuing, fetch neither
  /// dispatching nor waiting for memory. True when the core has been quiet
  /// long enough, with instructions left, to be deadlocked.
  bool stuck(uint64_t c, bool quiet) {
    quiet_ = quiet ? quiet_ + 1 : 0;
    return quiet_ >= 2 || c > deadline_;
  }
  /// Throws the deadlock report (or the watchdog's, when modules are busy).
  [[noreturn]] void fail_stuck(uint64_t c, const std::array<int64_t, 3>& heads, const model::TokenCounts& tokens,
                               uint32_t fetched, unsigned busy) const;
  /// Throws naming an RTL protocol violation in cycle c.
  [[noreturn]] void fail_rtl(uint64_t c, const std::string& what) const;

  void count_fetch(bool wait_mem, bool wait_queue) {
    rec_.fetch_wait_memory += wait_mem;
    rec_.fetch_wait_queue += wait_queue;
  }
  sim::RunRecord& record() { return rec_; }
  /// The finished record (cycles = the last end).
  sim::RunRecord take(uint64_t read_beats, uint64_t write_beats);

 private:
  const RunInputs& in_;
  uint32_t n_, dispatched_ = 0, retired_ = 0;
  sim::RunRecord rec_;
  std::array<int64_t, 3> current_{-1, -1, -1};  // each module's instruction in flight
  std::array<uint64_t, 3> prev_end_{};
  uint64_t quiet_ = 0;
  uint64_t watchdog_, deadline_;
  // alu.concurrent (docs/timing.md, "Concurrent ALU"): the ALU pipe's
  // instruction in flight (current_[1] holds the GEMM pipe's or a DMA
  // instruction's), and what the issue stage's wait stats follow from.
  bool concurrent_;
  int64_t current_alu_ = -1;
  std::array<int64_t, 2> pipe_last_{-1, -1};  // each pipe's last instruction
  std::array<uint32_t, 2> pipe_banks_{};      // and its bank set
  uint64_t c_loop_ = 0;                       // when the issue stage turns to the next instruction (C1)
  uint64_t c_all_end_ = 0;                    // the latest end of a compute instruction
  void issue_concurrent(uint64_t c, uint32_t idx, sim::InsnRecord& r);
  void finish(uint64_t c, int64_t& slot, unsigned m);
};

}  // namespace vta::rtl
