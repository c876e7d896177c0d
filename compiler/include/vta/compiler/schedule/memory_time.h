#pragma once
// The memory port's time for the cost models (the tile search and the
// per-layer formulas of the analytic estimate), in core cycles.
//
//  - memory.dram = fixed: docs/timing.md rules 9 to 11 as they are: a
//    read's first beat memory.read_latency cycles after its grant, a
//    write's acknowledgement memory.write_latency cycles after its last
//    beat, one bus beat a cycle.
//  - A DRAM preset: the preset's own latency and sustained bandwidth in
//    physical units (sim/dram analytic.h), crossed into the core clock
//    (docs/timing.md, "DRAM model", "Time and clocks"): the read latency is
//    the crossing to the controller (memory.dram_cdc_sync controller cycles,
//    memory.dram_frontend_ns), a closed-bank read (tRCD + CL + tBURST) and
//    the crossing back (dram_cdc_sync core cycles, plus half a cycle of edge
//    alignment each way); the write latency the same with tRCD + CWL +
//    tBURST; a row of n bytes takes max(its beats, n over the preset's
//    sustained bandwidth for reads of n bytes at random addresses) cycles.
#include "vta/isa/config.h"

namespace vta::compiler {

class MemoryTime {
 public:
  explicit MemoryTime(const Config& c);

  /// Bytes per beat of the port (memory.bus_bits / 8).
  double bus() const { return bus_; }
  /// Core cycles from a read burst's grant to its first beat.
  double read_latency() const { return rl_; }
  /// Core cycles from a write burst's last beat to its acknowledgement.
  double write_latency() const { return wl_; }
  /// Core cycles to move `rows` rows of `row_bytes` bytes each (rule 11:
  /// whole beats per row), or the DRAM's time for them where it is longer.
  double rows(double rows, double row_bytes) const;
  /// Core cycles to move `bytes` counted in fractional beats (bytes / bus),
  /// or the DRAM's time for them where it is longer.
  double bytes(double bytes) const;
  bool dram() const { return dram_; }

 private:
  double dram_cycles(double bytes) const;  // core cycles the DRAM needs for one read of `bytes`

  double bus_, rl_, wl_;
  // 1 / bus_ where the bus is a power of two bytes wide (x / bus_ == x * per_beat_ exactly then), else 0.
  double per_beat_;
  bool dram_ = false;
  // DRAM: core cycles per byte of sustained bandwidth for reads of 2^k bytes (k = 0..kSizes-1).
  static constexpr int kSizes = 24;
  double per_byte_[kSizes] = {};
};

}  // namespace vta::compiler
