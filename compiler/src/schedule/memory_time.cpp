#include "vta/compiler/schedule/memory_time.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "vta/sim/dram/analytic.h"
#include "vta/sim/dram/config.h"

namespace vta::compiler {

MemoryTime::MemoryTime(const Config& c)
    : bus_(static_cast<double>(c.memory.bus_bits) / 8.0),
      rl_(static_cast<double>(c.memory.read_latency)),
      wl_(static_cast<double>(c.memory.write_latency)) {
  if (!sim::dram::enabled(c)) return;
  dram_ = true;
  const sim::dram::Setup s = sim::dram::setup_of(c);
  const double f_ctrl = s.spec.clock().hz(), f_core = s.core.hz(), sync = s.options.cdc_sync;
  const sim::dram::Timings& t = s.spec.t;
  // The crossing to the controller (half a controller cycle of edge
  // alignment, the synchroniser, the front end), the DRAM, the crossing back.
  const auto latency = [&](double dram) {
    const double to_ctrl = (0.5 + sync + dram) / f_ctrl + s.options.frontend_ns * 1e-9;
    return to_ctrl * f_core + 0.5 + sync;
  };
  rl_ = latency(t.rp + t.rcd + t.cl + t.burst);
  wl_ = latency(t.rp + t.rcd + t.cwl + t.burst);
  for (int k = 0; k < kSizes; ++k) {
    const auto n = static_cast<uint32_t>(1u << k);
    per_byte_[k] = f_core / (sim::dram::analytic(s.spec, s.options, n).random_gbps * 1e9);
  }
}

// Sustained bandwidth for reads of `bytes` at random addresses, between the
// sizes analytic() was asked for (it rises with the size): the next smaller
// power of two's, so never above the model's.
double MemoryTime::dram_cycles(double bytes) const {
  const auto n = static_cast<uint64_t>(std::max(1.0, bytes));
  const int k = std::min(kSizes - 1, static_cast<int>(std::bit_width(n)) - 1);
  return bytes * per_byte_[k];
}

double MemoryTime::rows(double rows, double row_bytes) const {
  const double beats = std::ceil(row_bytes / bus_);
  return rows * (dram_ ? std::max(beats, dram_cycles(row_bytes)) : beats);
}

double MemoryTime::bytes(double bytes) const {
  return dram_ ? std::max(bytes / bus_, dram_cycles(bytes)) : bytes / bus_;
}

}  // namespace vta::compiler
