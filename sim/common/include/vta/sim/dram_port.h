#pragma once
// The memory port's timing with a DRAM preset behind it (memory.dram other
// than `fixed`; docs/timing.md rules 10, 12 and 13, "with the DRAM model"):
// what the SystemC model's port thread and the Verilator harness's
// MemoryPort both call, so that the two stay cycle-identical.
//
// Cycles are the run's core cycles (0 = the run's start). Per cycle c a
// backend checks can_grant(c) and calls read() for the burst it grants, then
// write() for a write burst whose last W beat is taken in c (a read before a
// write of the same cycle, as an AXI port submits them); beat() / ack() about
// cycle c may come before or after write() (they advance the DRAM model to c,
// and a request made in c still reaches the controller after that point).
//
//  - Rule 12: a burst counts against memory.outstanding_reads until its last
//    beat is delivered (it counts in that cycle too, as in the fixed model).
//  - Rule 13: beat k of a read is delivered at max(when the DRAM bursts
//    holding its bytes are done, the previous beat + 1) (dram::AxiPort).
//  - Rule 10: a write burst is acknowledged (bvalid) once its DRAM bursts are
//    written, in issue order, at most one acknowledgement per cycle.
//
// The answers depend only on the calls to read() and write(), never on when
// beat() and ack() are asked.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>

#include "vta/isa/config.h"
#include "vta/sim/dram/axi_port.h"
#include "vta/sim/timing.h"

namespace vta::sim {

class DramPort {
 public:
  /// `c` must select a DRAM preset (dram::enabled); an Error naming the knob
  /// when it cannot run (dram::setup_of).
  DramPort(const Config& c, const Timing& t);

  bool can_grant(uint64_t c);
  /// A read burst granted in cycle c; returns its id.
  uint64_t read(uint64_t c, uint64_t addr, uint32_t beats);
  /// A write burst whose last W beat is taken in cycle c; returns its id.
  uint64_t write(uint64_t c, uint64_t addr, uint32_t beats);

  /// The cycle beat k of read `id` is delivered, once the DRAM model has
  /// decided it (always by the end of that cycle: ask by cycle `now`).
  std::optional<uint64_t> beat(uint64_t now, uint64_t id, uint32_t k);
  /// The cycle write `id` is acknowledged, once decided (ask by cycle `now`).
  std::optional<uint64_t> ack(uint64_t now, uint64_t id);
  /// Forgets write `id` once its acknowledgement has been used.
  void forget_write(uint64_t id) { acked_.erase(id); }

  /// The first cycle after `c` at which a read beat may be delivered, an
  /// acknowledgement given or the outstanding-read limit free a grant that
  /// is not decided by cycle c (UINT64_MAX: nothing in flight). A caller
  /// that makes no request before that cycle may sleep until it: a burst
  /// whose column command has not issued by c is done no earlier than the
  /// controller's current cycle + min(CL, CWL) + tBURST, crossed back; a
  /// beat not yet placed leaves after the last placed one, and an
  /// acknowledgement not yet given after the last one given.
  uint64_t next_event(uint64_t c);

  /// The DRAM model's counters (commands, row hits, misses and conflicts)
  /// once it has run to cycle `c` (the run's last: refresh goes on without
  /// requests, so the counters need a fixed end).
  dram::Stats stats_at(uint64_t c) {
    advance(c);
    return axi_.port().controller().stats();
  }

 private:
  void advance(uint64_t c);
  struct Read {
    uint64_t id;
    uint32_t beats;
  };
  dram::AxiPort axi_;
  uint64_t outstanding_;
  uint32_t min_done_;            // controller cycles from a column command to its burst's end, at least
  std::deque<Read> reads_;       // granted bursts whose last beat may be delivered at or after now, in grant order
  std::deque<uint64_t> writes_;  // writes without a decided acknowledgement, in issue order
  std::unordered_map<uint64_t, uint64_t> acked_;  // write id -> acknowledgement cycle
  uint64_t last_ack_ = 0, advanced_ = 0;
  bool any_ack_ = false, any_advance_ = false;
};

}  // namespace vta::sim
