#pragma once
// Exact clock-domain crossing between the accelerator's core clock and the
// memory controller's clock, in integer arithmetic (no rounding drift over a
// long run: cycle n of one clock maps to the same cycle of the other however
// the run got there).
//
// Clock edge k of a clock of frequency f is at time k / f. A signal launched
// at edge c of the source clock is seen at the first destination edge at or
// after that time, then passes `sync` more destination cycles of
// synchroniser (an asynchronous FIFO's two-flop synchroniser is 2: Cummings,
// "Clock Domain Crossing (CDC) Design & Verification Techniques Using
// SystemVerilog", SNUG Boston 2008). The value is an assumption of the
// model, not a property of a named controller; Options/knobs set it.
#include <cstdint>

namespace vta::sim::dram {

/// A frequency in Hz as an exact fraction num / den (DDR3-1066 runs its
/// command clock at 1600/3 MHz).
struct Freq {
  uint64_t num = 0, den = 1;
  static Freq mhz(double mhz);  ///< rounded to the nearest Hz
  double hz() const { return static_cast<double>(num) / static_cast<double>(den); }
  bool operator==(const Freq&) const = default;
};

class ClockCrossing {
 public:
  /// `sync`: destination-clock cycles of synchroniser in each direction.
  ClockCrossing(Freq core, Freq ctrl, uint32_t sync = 2);

  /// First controller edge at or after core edge `c`.
  uint64_t ctrl_edge(uint64_t c) const;
  /// First core edge at or after controller edge `k`.
  uint64_t core_edge(uint64_t k) const;
  /// A request made at core cycle `c` reaches the controller at this cycle.
  uint64_t to_ctrl(uint64_t c) const { return ctrl_edge(c) + sync_; }
  /// Data complete at controller cycle `k` is seen by the core at this cycle.
  uint64_t to_core(uint64_t k) const { return core_edge(k) + sync_; }

  Freq core() const { return core_; }
  Freq ctrl() const { return ctrl_; }
  uint32_t sync() const { return sync_; }

 private:
  /// The same fraction in lowest terms, when both fit 64 bits: then
  /// ceil(x * num / den) needs no 128-bit division where x * num fits.
  struct Ratio {
    uint64_t num = 0, den = 0;  // den 0: does not fit
    uint64_t limit = 0;         // the largest x whose x * num fits 64 bits
    int shift = -1;             // log2(den) where den is a power of two
  };
  static Ratio reduce(Freq from, Freq to);
  static uint64_t edge(uint64_t x, Freq from, Freq to, Ratio r);

  Freq core_, ctrl_;
  uint32_t sync_;
  Ratio to_ctrl_, to_core_;  // core edges to controller edges, and back
};

}  // namespace vta::sim::dram
