// Sustained bandwidth of the DRAM model for each preset: sequential and
// random 64-byte reads, saturating the controller (every request queued at
// cycle 0; the scheduler sees queue_depth bursts at a time), over 20 refresh
// intervals and at least 20 000 requests. Each figure is compared with the closed-form bound of
// analytic.h, derived from the preset's own timings (docs/timing.md, "DRAM
// model", gives the equations): the bounds are analytic, and this file
// measures the error of that analytic form against the cycle model. One
// published measurement is compared: Shuhai (Wang, Huang, Zhang, Alonso,
// "Shuhai: Benchmarking High Bandwidth Memory on FPGAs", FCCM 2020,
// arXiv:2005.04324) reports up to 425 GB/s from the two HBM2 stacks of a
// Xilinx Alveo U280, whose nominal bandwidth is 460 GB/s (Xilinx's U280
// product brief): 92 % of peak. Its controller and data rate are not this
// preset's, so it is a sanity check of the sequential efficiency, not a
// calibration. For DDR3, DDR4 and LPDDR4 no published figure is cited.
//
// Measured: ctest -L dram -R Bandwidth -V   (prints one line per preset and pattern)
#include <cmath>
#include <cstdio>
#include <random>
#include <string_view>

#include <gtest/gtest.h>

#include "vta/sim/dram/analytic.h"
#include "vta/sim/dram/controller.h"
#include "vta/sim/dram/mapping.h"

namespace {

using namespace vta::sim::dram;

struct Measured {
  double gbps;
  Stats stats;
};

Measured sustained(const Spec& s, const Options& o, bool random, uint32_t bytes) {
  Controller c(s, o);
  const double seconds = 20.0 * s.t.refi / s.clock().hz();
  // At least 20 000 requests, so that large random reads average over the channels.
  const auto n = std::max<uint64_t>(20000, static_cast<uint64_t>(std::ceil(s.peak_gbps() * 1e9 * seconds / bytes)));
  const uint64_t capacity = s.capacity_bytes();
  std::mt19937_64 rng(42);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t addr = random ? rng() % (capacity / bytes) * bytes : i * bytes;
    c.submit(Request{addr, bytes, false, 0});
  }
  const uint64_t end = c.drain();
  return Measured{static_cast<double>(n * bytes) / (static_cast<double>(end) / s.clock().hz()) / 1e9, c.stats()};
}

class Bandwidth : public ::testing::TestWithParam<const char*> {};

// Idle latency of one read: a row hit, a closed bank, a row conflict.
TEST_P(Bandwidth, IdleReadLatencyIsTheAnalyticOne) {
  Options o;
  o.refresh = false;
  const Spec s = resolve(preset(GetParam()), o);
  const Analytic a = analytic(s, o);
  Controller c(s, o);
  const Mapping& m = c.mapping();
  const uint64_t row0 = m.address(Location{0, 0, 0, 0, 0, 0}), row0_next = m.address(Location{0, 0, 0, 0, 0, 1});
  const uint64_t row1 = m.address(Location{0, 0, 0, 0, 1, 0});
  const uint64_t arrive[3] = {0, 1000, 2000};
  c.submit(Request{row0, s.burst_bytes(), false, arrive[0]});       // closed bank
  c.submit(Request{row0_next, s.burst_bytes(), false, arrive[1]});  // row hit
  c.submit(Request{row1, s.burst_bytes(), false, arrive[2]});       // row conflict
  c.drain();
  std::vector<BurstDone> d;
  c.take_done(d);
  ASSERT_EQ(d.size(), 3u);
  const double ns = 1e9 / s.clock().hz();
  std::printf("dram-latency %-12s idle read: hit %5.1f ns, closed bank %5.1f ns, row conflict %5.1f ns\n", GetParam(),
              static_cast<double>(d[1].done - arrive[1]) * ns, static_cast<double>(d[0].done) * ns,
              static_cast<double>(d[2].done - arrive[2]) * ns);
  EXPECT_EQ(d[0].done - arrive[0], a.miss_cycles);
  EXPECT_EQ(d[1].done - arrive[1], a.hit_cycles);
  EXPECT_EQ(d[2].done - arrive[2], a.conflict_cycles);
}

TEST_P(Bandwidth, SequentialReadsReachPeakLessRefresh) {
  const Spec s = resolve(preset(GetParam()));
  const Analytic a = analytic(s);
  const Measured r = sustained(s, {}, false, 64);
  const double err = r.gbps / a.sequential_gbps - 1;
  std::printf(
      "dram-bandwidth %-12s sequential 64 B: %8.2f GB/s = %5.1f %% of peak %7.2f; analytic %8.2f (error %+5.1f %%)\n",
      GetParam(), r.gbps, 100 * r.gbps / s.peak_gbps(), s.peak_gbps(), a.sequential_gbps, 100 * err);
  EXPECT_GE(r.gbps, 0.90 * s.peak_gbps());
  EXPECT_LE(r.gbps, s.peak_gbps());
  EXPECT_LT(std::abs(err), 0.05);
  if (std::string_view(GetParam()) == "hbm2-2000") {  // Shuhai on the U280: 425 of 460 GB/s
    EXPECT_NEAR(r.gbps / s.peak_gbps(), 425.0 / 460.0, 0.03);
  }
}

TEST_P(Bandwidth, RandomReadsAreBoundByActivates) {
  const Spec s = resolve(preset(GetParam()));
  for (uint32_t bytes : {64u, 256u, 1024u}) {  // a cache line; VTA tile rows of 256 B and 1 KiB
    const Analytic a = analytic(s, {}, bytes);
    const Measured r = sustained(s, {}, true, bytes);
    const double err = r.gbps / a.random_gbps - 1;
    std::printf(
        "dram-bandwidth %-12s random %4u B: %8.2f GB/s = %5.1f %% of peak %7.2f; analytic %8.2f (error %+5.1f %%); "
        "row hits %.1f %%\n",
        GetParam(), bytes, r.gbps, 100 * r.gbps / s.peak_gbps(), s.peak_gbps(), a.random_gbps, 100 * err,
        100.0 * r.stats.row_hits / static_cast<double>(r.stats.row_hits + r.stats.row_misses + r.stats.row_conflicts));
    EXPECT_LE(r.gbps, a.random_gbps * 1.02) << bytes;  // the analytic form is an upper bound
    EXPECT_GE(r.gbps, a.random_gbps * 0.70) << bytes;  // bank conflicts in random traffic cost the rest
  }
}

TEST_P(Bandwidth, ClosedPageChangesLittleUnderSaturation) {
  const Spec s = resolve(preset(GetParam()));
  Options closed;
  closed.page_policy = PagePolicy::closed;
  const Measured seq_open = sustained(s, {}, false, 64), seq_closed = sustained(s, closed, false, 64);
  const Measured rnd_open = sustained(s, {}, true, 64), rnd_closed = sustained(s, closed, true, 64);
  std::printf("dram-bandwidth %-12s closed page: sequential %.2f (open %.2f), random %.2f (open %.2f) GB/s\n",
              GetParam(), seq_closed.gbps, seq_open.gbps, rnd_closed.gbps, rnd_open.gbps);
  // A saturated queue keeps rows open for queued hits under either policy
  // (test_dram.cpp pins where the policies differ: latency of sparse traffic).
  EXPECT_NEAR(seq_closed.gbps / seq_open.gbps, 1.0, 0.02);
  EXPECT_NEAR(rnd_closed.gbps / rnd_open.gbps, 1.0, 0.02);
}

INSTANTIATE_TEST_SUITE_P(Presets, Bandwidth,
                         ::testing::Values("ddr3-1066", "ddr3-1600", "ddr4-2400", "lpddr4-3200", "hbm2-2000"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
