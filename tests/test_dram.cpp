// The DRAM model's scheduler, page policies, address mapping, clock
// crossing, determinism and presets (docs/timing.md, "DRAM model").
#include <random>

#include "dram_rig.h"
#include "vta/sim/dram/analytic.h"
#include "vta/sim/dram/clock.h"
#include "vta/sim/dram/mapping.h"
#include "vta/sim/dram/port.h"

namespace {

using namespace dram_rig;

// --- Scheduling ---------------------------------------------------------

TEST(DramScheduler, FrFcfs_RowHitOvertakesOlderMiss) {
  Rig r(toy());
  r.read(at(0, 0, 1));
  r.run();
  r.trace.clear();
  const uint64_t miss = r.read(at(0, 0, 2), 1000);  // older: another row of the open bank
  const uint64_t hit = r.read(at(0, 0, 1, 1), 1000);
  r.run();
  EXPECT_EQ(r.when(Cmd::RD, 0), 1000u);  // the hit first
  EXPECT_LT(r.done_of(hit), r.done_of(miss));
  EXPECT_EQ(r.when(Cmd::PRE), 1000u + 8u);  // then the miss's PRE, after the hit's tRTP
  EXPECT_EQ(r.c.stats().row_hits, 1u);
  EXPECT_EQ(r.c.stats().row_conflicts, 1u);
  EXPECT_EQ(r.c.stats().row_misses, 1u);
}

TEST(DramScheduler, QueueDepthOne_IsFirstComeFirstServed) {
  Options o = no_refresh();
  o.queue_depth = 1;
  Rig r(toy(), o);
  r.read(at(0, 0, 1));
  r.run();
  const uint64_t miss = r.read(at(0, 0, 2), 1000);
  const uint64_t hit = r.read(at(0, 0, 1, 1), 1000);
  r.run();
  EXPECT_LT(r.done_of(miss), r.done_of(hit));
}

TEST(DramScheduler, TiesGoToTheOlderRequest) {
  Rig r(toy());
  r.read(at(0, 0, 1));
  r.read(at(1, 0, 1));
  r.run();
  r.trace.clear();
  r.read(at(1, 0, 1, 1), 1000);  // both ready at 1000; the first submitted goes first
  r.read(at(0, 0, 1, 1), 1000);
  r.run();
  ASSERT_GE(r.trace.size(), 2u);
  EXPECT_EQ(r.trace[0].bankgroup, 1u);
  EXPECT_EQ(r.trace[0].cycle, 1000u);
}

// --- Page policy --------------------------------------------------------

TEST(DramPagePolicy, OpenKeepsTheRow_ClosedAutoPrecharges) {
  for (PagePolicy p : {PagePolicy::open, PagePolicy::closed}) {
    Options o = no_refresh();
    o.page_policy = p;
    Rig r(toy(), o);
    r.read(at(0, 0, 1));
    r.run();
    const uint64_t second = r.read(at(0, 0, 1, 1), 500);
    r.run();
    if (p == PagePolicy::open) {
      EXPECT_EQ(r.count(Cmd::ACT), 1u);
      EXPECT_EQ(r.done_of(second), 500u + 10u + 4u);  // a row hit: CL + tBURST
    } else {
      EXPECT_EQ(r.count(Cmd::ACT), 2u);
      ASSERT_EQ(r.count(Cmd::PRE), 2u);
      EXPECT_TRUE(r.trace[2].automatic);
      EXPECT_EQ(r.when(Cmd::PRE, 0), 30u);                  // auto-precharge at max(tRAS, RD + tRTP)
      EXPECT_EQ(r.done_of(second), 500u + 12u + 10u + 4u);  // a closed bank: tRCD + CL + tBURST
    }
  }
}

TEST(DramPagePolicy, ClosedKeepsTheRowForAQueuedHit) {
  Options o = no_refresh();
  o.page_policy = PagePolicy::closed;
  Rig r(toy(), o);
  r.read(at(0, 0, 1, 0));
  r.read(at(0, 0, 1, 1));
  r.run();
  EXPECT_EQ(r.count(Cmd::ACT), 1u);
  EXPECT_EQ(r.count(Cmd::RD), 2u);
  EXPECT_EQ(r.count(Cmd::PRE), 1u);  // after the second read only
}

TEST(DramPagePolicy, SparseTrafficLatency_ClosedWinsOnRandom_OpenWinsOnSequential) {
  // One read at a time, 1000 cycles apart: open page pays tRP on a random
  // read (row conflict), closed page pays tRCD on a sequential one (the row
  // it needs was closed).
  const Spec s = resolve(preset("ddr4-2400"), no_refresh());
  auto mean_latency = [&](PagePolicy p, bool random) {
    Options o = no_refresh();
    o.page_policy = p;
    Controller c(s, o);
    std::mt19937_64 rng(5);
    const int n = 200;
    for (int i = 0; i < n; ++i) {
      const uint64_t addr =
          random ? rng() % s.capacity_bytes() / 64 * 64 : uint64_t(i) * 64 * s.channels * s.bankgroups;
      c.submit(Request{addr, 64, false, uint64_t(i) * 1000});
    }
    c.drain();
    std::vector<BurstDone> d;
    c.take_done(d);
    double sum = 0;
    for (const BurstDone& b : d) sum += static_cast<double>(b.done - b.request * 1000);
    return sum / n;
  };
  const Timings& t = s.t;
  EXPECT_NEAR(mean_latency(PagePolicy::open, true), t.rp + t.rcd + t.cl + t.burst, 1.0);
  EXPECT_NEAR(mean_latency(PagePolicy::closed, true), t.rcd + t.cl + t.burst, 1.0);
  EXPECT_NEAR(mean_latency(PagePolicy::open, false), t.cl + t.burst, 1.0);
  EXPECT_NEAR(mean_latency(PagePolicy::closed, false), t.rcd + t.cl + t.burst, 1.0);
}

// --- Address mapping ----------------------------------------------------

TEST(DramMapping, RoundTrips) {
  for (const Preset& p : presets()) {
    const Spec s = resolve(p);
    for (const char* order : {"ro.ra.ba.ch.co.bg", "ch.ra.bg.ba.ro.co", "ro.co.ra.bg.ba.ch"}) {
      const Mapping m(s, order);
      std::mt19937_64 rng(1);
      for (int i = 0; i < 1000; ++i) {
        const uint64_t a = rng() % (uint64_t{1} << 40) / s.burst_bytes() * s.burst_bytes();
        EXPECT_EQ(m.address(m.map(a)), a % s.capacity_bytes()) << p.name << " " << order;
      }
    }
  }
}

TEST(DramMapping, DefaultInterleavesBankGroupsThenColumnsThenChannels) {
  const Spec s = resolve(preset("hbm2-2000"));  // 8 channels, 4 bank groups, 16 bursts of 64 bytes a row
  const Mapping m(s, "");
  EXPECT_EQ(m.order(), "ro.ra.ba.ch.co.bg");
  EXPECT_EQ(m.map(0), (Location{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(m.map(64), (Location{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(m.map(4 * 64), (Location{0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(m.map(4 * 16 * 64), (Location{1, 0, 0, 0, 0, 0}));  // a chunk of 4 KiB per channel
  const uint64_t bank_stride = uint64_t{64} * 4 * 16 * 8;       // bytes x bg x columns x ch
  EXPECT_EQ(m.map(bank_stride), (Location{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(m.map(bank_stride * 4), (Location{0, 0, 0, 0, 1, 0}));  // then the next row
}

TEST(DramMapping, ARequestSplitsIntoBurstsAtAlignedBoundaries) {
  Rig r(resolve(preset("ddr4-2400")));
  const uint64_t id = r.c.submit(Request{32, 128, false, 0});  // bytes 32..159: bursts at 0, 64, 128
  r.run();
  EXPECT_EQ(r.done.size(), 3u);
  for (const BurstDone& d : r.done) EXPECT_EQ(d.request, id);
}

// --- Determinism --------------------------------------------------------

std::vector<Request> random_stream(const Spec& s, unsigned seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<Request> v;
  uint64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += rng() % 40;
    const bool seq = rng() % 2;
    const uint64_t addr = seq ? i * 256 : rng() % (uint64_t{1} << 28);
    v.push_back(Request{addr, static_cast<uint32_t>(s.burst_bytes() * (1 + rng() % 4)), rng() % 3 == 0, t});
  }
  return v;
}

TEST(DramDeterminism, AdvanceGranularityDoesNotMatter) {
  for (const char* name : {"ddr4-2400", "lpddr4-3200", "hbm2-2000"}) {
    for (PagePolicy p : {PagePolicy::open, PagePolicy::closed}) {
      const Spec s = resolve(preset(name));
      Options o;
      o.page_policy = p;
      o.queue_depth = 8;
      const std::vector<Request> reqs = random_stream(s, 7, 3000);
      std::vector<Command> ta, tb;
      std::vector<BurstDone> da, db;
      Controller a(s, o), b(s, o);
      a.trace(&ta);
      b.trace(&tb);
      for (const Request& q : reqs) {
        a.advance(q.arrive);  // in small steps
        a.submit(q);
        b.submit(q);  // all at once
      }
      a.drain();
      b.drain();
      a.take_done(da);
      b.take_done(db);
      auto by_cycle = [](const Command& x, const Command& y) {
        return std::tie(x.cycle, x.channel, x.cmd, x.rank, x.bankgroup, x.bank, x.row, x.automatic) <
               std::tie(y.cycle, y.channel, y.cmd, y.rank, y.bankgroup, y.bank, y.row, y.automatic);
      };
      std::sort(ta.begin(), ta.end(), by_cycle);
      std::sort(tb.begin(), tb.end(), by_cycle);
      EXPECT_TRUE(ta == tb) << name;  // (gtest would print every command as bytes)
      EXPECT_GT(ta.size(), reqs.size());
      EXPECT_EQ(da, db) << name;
      EXPECT_GT(a.stats().ref, 0u);
    }
  }
}

TEST(DramDeterminism, LookingEveryCycleEqualsSkippingToTheNextCommand) {
  // advance(t + 1) for every cycle t makes the scheduler look at each cycle
  // afresh: the model that skips ahead must issue the same commands.
  for (const char* name : {"ddr4-2400", "hbm2-2000"}) {
    Spec s = resolve(preset(name));
    s.t.refi = 3000;  // several refreshes in a short run
    Options o;
    o.page_policy = std::string_view(name) == "hbm2-2000" ? PagePolicy::closed : PagePolicy::open;
    const std::vector<Request> reqs = random_stream(s, 11, 600);
    std::vector<Command> ta, tb;
    Controller a(s, o), b(s, o);
    a.trace(&ta);
    b.trace(&tb);
    size_t next = 0;
    for (uint64_t t = 0; next < reqs.size() || a.pending(); ++t) {
      while (next < reqs.size() && reqs[next].arrive == t) a.submit(reqs[next++]);
      a.advance(t + 1);
    }
    for (const Request& q : reqs) b.submit(q);
    b.drain();
    auto key = [](const Command& x) {
      return std::tie(x.cycle, x.channel, x.cmd, x.rank, x.bankgroup, x.bank, x.row, x.automatic);
    };
    auto by_cycle = [&](const Command& x, const Command& y) { return key(x) < key(y); };
    std::sort(ta.begin(), ta.end(), by_cycle);
    std::sort(tb.begin(), tb.end(), by_cycle);
    EXPECT_TRUE(ta == tb) << name << ": " << ta.size() << " vs " << tb.size() << " commands";
    EXPECT_GT(a.stats().ref, 0u);
  }
}

// --- Clock crossing -----------------------------------------------------

TEST(DramClock, EdgesAreExactFractions) {
  const ClockCrossing x(Freq::mhz(100), Freq{1600000000, 3}, 0);  // 100 MHz core, DDR3-1066 controller
  EXPECT_EQ(x.ctrl_edge(0), 0u);
  EXPECT_EQ(x.ctrl_edge(3), 16u);  // 30 ns = 16 controller cycles of 1.875 ns
  EXPECT_EQ(x.ctrl_edge(1), 6u);   // 10 ns -> 5.33 -> 6
  EXPECT_EQ(x.core_edge(16), 3u);
  EXPECT_EQ(x.core_edge(17), 4u);
  EXPECT_EQ(x.ctrl_edge(3000000000), 16000000000u);  // no drift over long runs
  const ClockCrossing y(Freq::mhz(200), Freq::mhz(200), 2);
  EXPECT_EQ(y.to_ctrl(10), 12u);
  EXPECT_EQ(y.to_core(10), 12u);
}

TEST(DramClock, EdgesEqualTheExactFractionOverTheWholeRange) {
  // ClockCrossing divides in 64 bits where the reduced fraction allows: the
  // same edges as ceil(x * f_to / f_from) in 128 bits, for small and huge x.
  __extension__ typedef unsigned __int128 u128;
  const auto exact = [](uint64_t x, Freq from, Freq to) {
    const u128 num = static_cast<u128>(x) * from.den * to.num, den = static_cast<u128>(from.num) * to.den;
    return static_cast<uint64_t>((num + den - 1) / den);
  };
  std::mt19937_64 rng(3);
  for (const Freq ctrl : {Freq{1600000000, 3}, Freq{2400000000, 2}, Freq::mhz(1000), Freq{3200000000, 2}})
    for (const Freq core :
         {Freq::mhz(100), Freq::mhz(187.5), Freq::mhz(333), Freq::mhz(333.333333), Freq{1000000007, 3}}) {
      const ClockCrossing x(core, ctrl, 0);
      for (int i = 0; i < 2000; ++i) {
        const uint64_t v = i < 1000 ? rng() % 100000000 : rng() >> (rng() % 40 + 4);
        ASSERT_EQ(x.ctrl_edge(v), exact(v, core, ctrl)) << v;
        ASSERT_EQ(x.core_edge(v), exact(v, ctrl, core)) << v;
      }
    }
}

TEST(DramClock, LatencyInNanosecondsDoesNotDependOnTheCoreClock) {
  // One idle read: the same DRAM time, seen through a 100, 250 and 400 MHz core.
  const Spec s = resolve(preset("ddr4-2400"), no_refresh());
  const Analytic a = analytic(s);
  for (double mhz : {100.0, 250.0, 400.0}) {
    const uint32_t sync = 2;
    Options o = no_refresh();
    o.cdc_sync = sync;
    CorePort port(s, o, Freq::mhz(mhz));
    port.submit(0, false, 0, 64);
    const uint64_t done = port.drain();
    const double ns = static_cast<double>(done) * 1000.0 / mhz;
    const double dram_ns = (a.miss_cycles + sync) / 1.2;  // controller clock 1200 MHz
    EXPECT_GE(ns, dram_ns) << mhz;
    EXPECT_LE(ns, dram_ns + (1 + sync) * 1000.0 / mhz + 1.0 / 1.2) << mhz;  // edges rounded up
  }
}

TEST(DramClock, FrontendLatencyAndSynchronisersAddTheirTime) {
  const Spec s = resolve(preset("ddr4-2400"), no_refresh());
  auto latency = [&](uint32_t sync, double frontend_ns) {
    Options o = no_refresh();
    o.cdc_sync = sync;
    o.frontend_ns = frontend_ns;
    CorePort port(s, o, Freq::mhz(1200));  // the controller's own clock: edges coincide
    port.submit(0, false, 0, 64);
    return port.drain();
  };
  const uint64_t dram = analytic(s).miss_cycles;  // tRCD + CL + tBURST
  EXPECT_EQ(latency(0, 0), dram);
  EXPECT_EQ(latency(2, 0), dram + 4);      // two synchroniser cycles each way
  EXPECT_EQ(latency(0, 25.0), dram + 30);  // 25 ns at 1.2 GHz
}

TEST(DramClock, BeatsMapToTheBurstsHoldingTheirBytes) {
  // A request at 0x30 with 64-byte bursts: bytes 0x30.. are in burst 0, 0x40.. in burst 1.
  EXPECT_EQ(bursts_of(0x30, 0, 16, 64).first, 0u);
  EXPECT_EQ(bursts_of(0x30, 0, 16, 64).last, 0u);
  EXPECT_EQ(bursts_of(0x30, 16, 16, 64).first, 1u);
  EXPECT_EQ(bursts_of(0x30, 8, 16, 64).last, 1u);  // straddles two bursts
  EXPECT_EQ(bursts_of(0, 0, 64, 16).last, 3u);     // a 64-byte beat over 16-byte DDR3 x16 bursts
}

TEST(DramClock, PortAdvanceGranularityDoesNotMatter) {
  const Spec s = resolve(preset("lpddr4-3200"));
  std::vector<BurstDone> da, db;
  CorePort a(s, {}, Freq::mhz(187.5)), b(s, {}, Freq::mhz(187.5));
  std::mt19937_64 rng(3);
  uint64_t c = 0;
  for (int i = 0; i < 2000; ++i) {
    c += rng() % 8;
    const uint64_t addr = rng() % (uint64_t{1} << 26);
    a.advance(c);
    a.submit(c, i % 4 == 0, addr, 64);
    b.submit(c, i % 4 == 0, addr, 64);
  }
  a.drain();
  b.drain();
  a.take_done(da);
  b.take_done(db);
  EXPECT_EQ(da, db);
}

// --- Presets ------------------------------------------------------------

TEST(DramPresets, EveryPresetResolvesAndEveryValueNamesASource) {
  ASSERT_GE(presets().size(), 5u);
  for (const Preset& p : presets()) {
    const Spec s = resolve(p);
    EXPECT_GT(s.peak_gbps(), 0) << p.name;
    EXPECT_NE(std::string(p.rate_source), "") << p.name;
    for (const PresetValue& v : p.values) EXPECT_GT(std::string(v.source).size(), 8u) << p.name << " " << v.key;
    EXPECT_GE(s.t.rc, s.t.ras) << p.name;
    EXPECT_EQ(s.t.burst, s.burst_length / 2) << p.name;
  }
}

TEST(DramPresets, PeakBandwidthIsDataRateTimesWidthTimesChannels) {
  EXPECT_NEAR(resolve(preset("ddr3-1066")).peak_gbps(), 1066.667e6 * 2 / 1e9, 1e-3);
  EXPECT_NEAR(resolve(preset("ddr3-1600")).peak_gbps(), 6.4, 1e-9);
  EXPECT_NEAR(resolve(preset("ddr4-2400")).peak_gbps(), 19.2, 1e-9);
  EXPECT_NEAR(resolve(preset("lpddr4-3200")).peak_gbps(), 12.8, 1e-9);
  EXPECT_NEAR(resolve(preset("hbm2-2000")).peak_gbps(), 256.0, 1e-9);
  Options o;
  o.channels = 2;
  EXPECT_NEAR(resolve(preset("ddr4-2400"), o).peak_gbps(), 38.4, 1e-9);
}

TEST(DramPresets, Ddr4_2400_CyclesMatchTheJedecBin) {
  // JESD79-4B, DDR4-2400R at tCK 0.833 ns; the same cycle counts as DRAMsim3's
  // configs/DDR4_8Gb_x16_2400.ini but for its CL 17 bin.
  const Timings t = resolve(preset("ddr4-2400")).t;
  EXPECT_EQ(t.cl, 16u);
  EXPECT_EQ(t.rcd, 16u);
  EXPECT_EQ(t.rp, 16u);
  EXPECT_EQ(t.ras, 39u);
  EXPECT_EQ(t.rc, 55u);
  EXPECT_EQ(t.rrd_s, 7u);
  EXPECT_EQ(t.rrd_l, 8u);
  EXPECT_EQ(t.faw, 36u);
  EXPECT_EQ(t.ccd_s, 4u);
  EXPECT_EQ(t.ccd_l, 6u);
  EXPECT_EQ(t.wr, 18u);
  EXPECT_EQ(t.wtr_s, 3u);
  EXPECT_EQ(t.wtr_l, 9u);
  EXPECT_EQ(t.rtp, 9u);
  EXPECT_EQ(t.refi, 9360u);
  EXPECT_EQ(t.rfc, 420u);
}

TEST(DramPresets, Ddr3_1600_CyclesMatchTheJedecBin) {
  const Timings t = resolve(preset("ddr3-1600")).t;  // JESD79-3F DDR3-1600K, tCK 1.25 ns
  EXPECT_EQ(t.cl, 11u);
  EXPECT_EQ(t.rcd, 11u);
  EXPECT_EQ(t.rp, 11u);
  EXPECT_EQ(t.ras, 28u);
  EXPECT_EQ(t.rc, 39u);
  EXPECT_EQ(t.rrd_s, 6u);
  EXPECT_EQ(t.faw, 32u);
  EXPECT_EQ(t.wr, 12u);
  EXPECT_EQ(t.refi, 6240u);
  EXPECT_EQ(t.rfc, 208u);
}

TEST(DramPresets, ChannelsOptionScalesTheModel) {
  Options o = no_refresh();
  o.channels = 4;
  const Spec s = resolve(preset("ddr4-2400"), o);
  Controller c(s, o);
  for (uint32_t i = 0; i < 4; ++i) c.submit(Request{c.mapping().address(Location{i, 0, 0, 0, 0, 0}), 64, false, 0});
  c.drain();
  std::vector<BurstDone> d;
  c.take_done(d);
  ASSERT_EQ(d.size(), 4u);
  for (const BurstDone& b : d) EXPECT_EQ(b.done, d[0].done);  // four channels in parallel
}

}  // namespace
