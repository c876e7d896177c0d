#pragma once
// The DRAM model seen from a core clock: what the SystemC model and the
// Verilator harness call, so that both give the same cycles.
//
// A request made at core cycle c reaches the controller at
// ClockCrossing::to_ctrl(c) plus Options::frontend_ns in controller cycles; a burst whose data is complete at
// controller cycle k is seen by the core at to_core(k). advance(c) makes known every burst the core sees by cycle c.
// Calling submit() for the same requests at the same core cycles, in the same order, gives the same BurstDone cycles
// whatever else the caller does in between (how often it calls advance()).
#include <cstdint>
#include <vector>

#include "vta/sim/dram/clock.h"
#include "vta/sim/dram/controller.h"

namespace vta::sim::dram {

class CorePort {
 public:
  /// `core`: the accelerator clock; Options::cdc_sync and frontend_ns time the path.
  CorePort(const Spec& s, const Options& o, Freq core);

  /// A read or write of `bytes` at `addr` made at core cycle `c`; returns its id.
  /// Core cycles of successive calls must not decrease.
  uint64_t submit(uint64_t c, bool write, uint64_t addr, uint32_t bytes);
  /// Decides everything the core can see by core cycle `c`.
  void advance(uint64_t c);
  /// The bursts known since the last call, `done` in core cycles (the first
  /// core cycle at which the burst's data is available to the core).
  void take_done(std::vector<BurstDone>& out);
  /// Advances until every burst is known; returns the core cycle of the latest.
  uint64_t drain();

  Controller& controller() { return ctrl_; }
  const ClockCrossing& crossing() const { return cross_; }

 private:
  Controller ctrl_;
  ClockCrossing cross_;
  uint64_t frontend_;  // controller cycles of Options::frontend_ns
};

}  // namespace vta::sim::dram
