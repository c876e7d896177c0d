#include "vta/compiler/schedule/memory_time.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "vta/isa/config_key.h"
#include "vta/sim/dram/analytic.h"
#include "vta/sim/dram/config.h"

namespace vta::compiler {

MemoryTime::MemoryTime(const Config& c)
    : bus_(static_cast<double>(c.memory.bus_bits) / 8.0),
      rl_(static_cast<double>(c.memory.read_latency)),
      wl_(static_cast<double>(c.memory.write_latency)),
      per_beat_(std::has_single_bit(static_cast<uint64_t>(c.memory.bus_bits)) ? 1.0 / bus_ : 0.0) {
  if (!sim::dram::enabled(c)) return;
  dram_ = true;
  // The DRAM's figures depend on the memory knobs and the clock alone: the
  // cost models build a MemoryTime per layer, a sweep per design, and
  // analytic() is asked for kSizes sizes each time, so they are kept.
  struct Dram {
    double rl, wl, per_byte[kSizes];
  };
  static std::mutex mu;
  static std::map<std::string, Dram> memo;
  std::string key;
  append_knobs(key, c, [](std::string_view section) { return section == "memory"; });
  append_value(key, c.clock.mhz);
  {
    const std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) {
      rl_ = it->second.rl, wl_ = it->second.wl;
      std::copy(std::begin(it->second.per_byte), std::end(it->second.per_byte), per_byte_);
      return;
    }
  }
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
  Dram d{rl_, wl_, {}};
  std::copy(std::begin(per_byte_), std::end(per_byte_), d.per_byte);
  const std::lock_guard<std::mutex> lock(mu);
  if (memo.size() >= 10000) memo.clear();  // a sweep over many clocks and DRAM knobs: bounded
  memo.emplace(std::move(key), d);
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
  const double beats = std::ceil(per_beat_ > 0 ? row_bytes * per_beat_ : row_bytes / bus_);
  return rows * (dram_ ? std::max(beats, dram_cycles(row_bytes)) : beats);
}

double MemoryTime::bytes(double bytes) const {
  const double beats = per_beat_ > 0 ? bytes * per_beat_ : bytes / bus_;
  return dram_ ? std::max(beats, dram_cycles(bytes)) : beats;
}

}  // namespace vta::compiler
