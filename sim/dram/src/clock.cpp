#include "vta/sim/dram/clock.h"

#include <bit>
#include <cmath>
#include <utility>

#include "vta/isa/error.h"

namespace vta::sim::dram {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang; -Wpedantic knows no __int128

Freq Freq::mhz(double mhz) { return Freq{static_cast<uint64_t>(std::llround(mhz * 1e6)), 1}; }

ClockCrossing::ClockCrossing(Freq core, Freq ctrl, uint32_t sync) : core_(core), ctrl_(ctrl), sync_(sync) {
  if (core.num == 0 || core.den == 0 || ctrl.num == 0 || ctrl.den == 0)
    fail("dram clock crossing: a clock of 0 Hz (core {}/{}, controller {}/{})", core.num, core.den, ctrl.num, ctrl.den);
  to_ctrl_ = reduce(core, ctrl);
  to_core_ = reduce(ctrl, core);
}

namespace {
u128 gcd(u128 a, u128 b) {
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}
}  // namespace

// Edge x of clock `from` is at x * from.den / from.num seconds; the edge of
// `to` at or after it is ceil(x * from.den * to.num / (from.num * to.den)).
ClockCrossing::Ratio ClockCrossing::reduce(Freq from, Freq to) {
  u128 num = static_cast<u128>(from.den) * to.num;
  u128 den = static_cast<u128>(from.num) * to.den;
  const u128 g = gcd(num, den);
  num /= g;
  den /= g;
  if (num > UINT64_MAX || den > UINT64_MAX) return Ratio{};
  Ratio r{static_cast<uint64_t>(num), static_cast<uint64_t>(den)};
  r.limit = UINT64_MAX / r.num;
  if (std::has_single_bit(r.den)) r.shift = std::countr_zero(r.den);
  return r;
}

uint64_t ClockCrossing::edge(uint64_t x, Freq from, Freq to, Ratio r) {
  if (r.den != 0 && x <= r.limit) {
    const uint64_t p = x * r.num;
    if (r.shift >= 0) return (p >> r.shift) + ((p & (r.den - 1)) != 0);
    return p / r.den + (p % r.den != 0);
  }
  const u128 num = static_cast<u128>(x) * from.den * to.num;
  const u128 den = static_cast<u128>(from.num) * to.den;
  return static_cast<uint64_t>((num + den - 1) / den);
}

uint64_t ClockCrossing::ctrl_edge(uint64_t c) const { return edge(c, core_, ctrl_, to_ctrl_); }

uint64_t ClockCrossing::core_edge(uint64_t k) const { return edge(k, ctrl_, core_, to_core_); }

}  // namespace vta::sim::dram
