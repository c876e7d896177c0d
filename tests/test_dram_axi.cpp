// The accelerator's memory port on the DRAM model (axi_port.h): beats
// available when their DRAM bursts are done, delivered one per cycle in
// grant order; writes done when written; answers independent of how often
// advance() is called.
#include <random>

#include <gtest/gtest.h>

#include "vta/sim/dram/axi_port.h"
#include "vta/sim/dram/mapping.h"

namespace {

using namespace vta::sim::dram;

Options plain() {
  Options o;
  o.refresh = false;
  o.cdc_sync = 0;
  return o;
}

TEST(DramAxi, BeatsOfOneBurstStreamOnePerCycle) {
  const Spec s = resolve(preset("ddr4-2400"), plain());
  AxiPort p(s, plain(), Freq::mhz(1200), 8);  // core clock = controller clock; 8-byte beats
  const uint64_t id = p.read(0, 0, 8);        // 64 bytes: one DRAM burst
  p.advance(100);
  const uint64_t t = s.t.rcd + s.t.cl + s.t.burst;  // a closed bank
  for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(p.read_beat(id, k), t + k) << k;
  EXPECT_FALSE(p.read_beat(id, 8).has_value());
}

TEST(DramAxi, BeatsLeaveInGrantOrder) {
  const Spec s = resolve(preset("ddr4-2400"), plain());
  AxiPort p(s, plain(), Freq::mhz(1200), 8);
  const Mapping m(s, "");
  const uint64_t open_row = m.address(Location{0, 0, 0, 0, 1, 0});
  const uint64_t a = p.read(0, open_row, 8);
  p.advance(200);
  // A row conflict in bank 0 first, then a closed bank 1 whose data is ready sooner.
  const uint64_t slow = p.read(200, m.address(Location{0, 0, 0, 0, 2, 0}), 8);
  const uint64_t fast = p.read(200, m.address(Location{0, 0, 1, 0, 1, 0}), 8);
  p.advance(400);
  ASSERT_TRUE(p.read_beat(a, 7).has_value());
  const uint64_t slow_last = *p.read_beat(slow, 7);
  EXPECT_EQ(*p.read_beat(slow, 0), 200 + s.t.rp + s.t.rcd + s.t.cl + s.t.burst);
  EXPECT_EQ(*p.read_beat(fast, 0), slow_last + 1);  // its data waited for the older burst's beats
}

TEST(DramAxi, AWideBeatWaitsForEveryBurstItSpans) {
  const Spec s = resolve(preset("ddr3-1066"), plain());  // 16-byte bursts
  AxiPort p(s, plain(), s.clock(), 64);                  // 512-bit port
  const uint64_t id = p.read(0, 0, 1);
  p.advance(200);
  Controller c(s, plain());
  c.submit(Request{0, 64, false, 0});
  EXPECT_EQ(p.read_beat(id, 0), c.drain());  // the last of its four bursts
}

TEST(DramAxi, WriteIsDoneWhenItsBurstsAreWritten) {
  const Spec s = resolve(preset("ddr4-2400"), plain());
  AxiPort p(s, plain(), Freq::mhz(1200), 8);
  const uint64_t id = p.write(10, 0, 16);  // 128 bytes: two bursts, two bank groups
  EXPECT_FALSE(p.write_done(id).has_value());
  p.advance(200);
  Controller c(s, plain());
  c.submit(Request{0, 128, true, 10});
  EXPECT_EQ(p.write_done(id), c.drain());
}

TEST(DramAxi, AnswersDoNotDependOnAdvanceGranularity) {
  const Spec s = resolve(preset("lpddr4-3200"));
  AxiPort a(s, {}, Freq::mhz(250), 16), b(s, {}, Freq::mhz(250), 16);
  std::mt19937_64 rng(4);
  std::vector<uint64_t> ids;
  std::vector<bool> writes;
  uint64_t c = 0;
  for (int i = 0; i < 500; ++i) {
    c += rng() % 12;
    const bool w = rng() % 4 == 0;
    const uint64_t addr = rng() % (uint64_t{1} << 24);
    const auto beats = static_cast<uint32_t>(1 + rng() % 16);
    for (uint64_t t = c > 12 ? c - 12 : 0; t < c; ++t) a.advance(t);  // a every cycle, b never
    ids.push_back(w ? a.write(c, addr, beats) : a.read(c, addr, beats));
    EXPECT_EQ(w ? b.write(c, addr, beats) : b.read(c, addr, beats), ids.back());
    writes.push_back(w);
  }
  a.advance(c + 100000);
  b.advance(c + 100000);
  uint64_t prev = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (writes[i]) {
      ASSERT_TRUE(a.write_done(ids[i]).has_value());
      EXPECT_EQ(a.write_done(ids[i]), b.write_done(ids[i]));
      continue;
    }
    for (uint32_t k = 0; a.read_beat(ids[i], k); ++k) {
      EXPECT_EQ(a.read_beat(ids[i], k), b.read_beat(ids[i], k));
      EXPECT_GT(*a.read_beat(ids[i], k), prev);  // one beat per cycle, in grant order
      prev = *a.read_beat(ids[i], k);
    }
  }
}

}  // namespace
