#pragma once
// Closed-form bounds of the DRAM model for the analytic estimate (stage 1 of
// a sweep), from the same Spec. tests/test_dram_bandwidth.cpp measures their
// error against the cycle model (docs/timing.md, "DRAM model").
#include <cstdint>

#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

struct Analytic {
  /// Idle read latency of one burst, controller cycles: row hit CL + tBURST;
  /// closed bank tRCD + CL + tBURST; row conflict tRP + tRCD + CL + tBURST.
  uint32_t hit_cycles, miss_cycles, conflict_cycles;
  /// Fraction of time a rank is not refreshing: 1 - tRFC / tREFI (1 without refresh).
  double refresh_share;
  /// Sustained sequential read bandwidth, GB/s: peak x refresh_share (row
  /// switches overlap with other banks' transfers under the default mapping).
  double sequential_gbps;
  /// Sustained bandwidth of reads of `bytes` at random (burst-aligned)
  /// addresses, GB/s, for the default mapping: a read opens one row in each
  /// (channel, bank group) its bursts reach, so per channel and rank the ACT
  /// rate is bounded by tRRD (the mean of tRRD_S and tRRD_L weighted by the
  /// chance that two random banks share a group), tFAW / 4 and tRC / banks,
  /// and the data bus by bursts per ACT x tBURST; times refresh_share, and
  /// never above sequential_gbps.
  double random_gbps;
};

/// `bytes`: the size of one random read (64 for a cache-line-sized access).
Analytic analytic(const Spec& s, const Options& o = {}, uint32_t bytes = 64);

}  // namespace vta::sim::dram
