#include "vta/sim/dram/analytic.h"

#include <algorithm>
#include <cmath>

namespace vta::sim::dram {

Analytic analytic(const Spec& s, const Options& o, uint32_t bytes) {
  const Timings& t = s.t;
  Analytic a{};
  a.hit_cycles = t.cl + t.burst;
  a.miss_cycles = t.rcd + t.cl + t.burst;
  a.conflict_cycles = t.rp + t.rcd + t.cl + t.burst;
  a.refresh_share = o.refresh ? 1.0 - static_cast<double>(t.rfc) / t.refi : 1.0;
  a.sequential_gbps = s.peak_gbps() * a.refresh_share;

  // One random read of `bytes` (burst-aligned) is ceil(bytes / burst)
  // bursts. Under the default mapping (ro.ra.ba.ch.co.bg) they go to
  // alternate bank groups, then along one row in each, then to the next
  // channel after a chunk of bank groups x row bursts, so the read opens one
  // row in each (channel, bank group) it touches.
  const double bursts = std::max(1.0, std::ceil(static_cast<double>(bytes) / s.burst_bytes()));
  const double chunk = static_cast<double>(s.bankgroups) * (s.columns / s.burst_length);  // bursts per channel
  const double channels_touched = std::min(std::ceil(bursts / chunk), static_cast<double>(s.channels));
  const double groups_touched = std::min(bursts, static_cast<double>(s.bankgroups));
  const double acts_per_read = channels_touched * groups_touched;
  const double bursts_per_act = bursts / acts_per_read;
  const double same_group = 1.0 / s.bankgroups;
  const double rrd = same_group * t.rrd_l + (1 - same_group) * t.rrd_s;
  const double act_interval =
      std::max({rrd / s.ranks, t.faw / 4.0 / s.ranks, static_cast<double>(t.rc) / (s.banks() * s.ranks),
                bursts_per_act * t.burst});  // cycles per ACT per channel
  const double acts_per_s = s.clock().hz() / act_interval * s.channels;
  const double reads_per_s = acts_per_s / acts_per_read;
  a.random_gbps = std::min(reads_per_s * bytes / 1e9 * a.refresh_share, a.sequential_gbps);
  return a;
}

}  // namespace vta::sim::dram
