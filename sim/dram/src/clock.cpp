#include "vta/sim/dram/clock.h"

#include <cmath>

#include "vta/isa/error.h"

namespace vta::sim::dram {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang; -Wpedantic knows no __int128

Freq Freq::mhz(double mhz) { return Freq{static_cast<uint64_t>(std::llround(mhz * 1e6)), 1}; }

ClockCrossing::ClockCrossing(Freq core, Freq ctrl, uint32_t sync) : core_(core), ctrl_(ctrl), sync_(sync) {
  if (core.num == 0 || core.den == 0 || ctrl.num == 0 || ctrl.den == 0)
    fail("dram clock crossing: a clock of 0 Hz (core {}/{}, controller {}/{})", core.num, core.den, ctrl.num, ctrl.den);
}

// Edge c of the core clock is at c * core.den / core.num seconds; the
// controller edge at or after it is ceil(c * core.den * ctrl.num / (core.num * ctrl.den)).
uint64_t ClockCrossing::ctrl_edge(uint64_t c) const {
  const u128 num = static_cast<u128>(c) * core_.den * ctrl_.num;
  const u128 den = static_cast<u128>(core_.num) * ctrl_.den;
  return static_cast<uint64_t>((num + den - 1) / den);
}

uint64_t ClockCrossing::core_edge(uint64_t k) const {
  const u128 num = static_cast<u128>(k) * ctrl_.den * core_.num;
  const u128 den = static_cast<u128>(ctrl_.num) * core_.den;
  return static_cast<uint64_t>((num + den - 1) / den);
}

}  // namespace vta::sim::dram
