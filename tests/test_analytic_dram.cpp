// Stage 1 (the analytic estimate, vta/compiler/analytic.h) with the DRAM
// model behind the port (memory.dram a preset): the cost models take the
// preset's latency and sustained bandwidth in physical units
// (vta/compiler/schedule/memory_time.h), so the estimate follows the SystemC
// model when the DRAM, not the port, bounds a layer (docs/timing.md, "DRAM
// model", "The analytic estimate").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "test_support.h"
#include "vta/compiler/analytic.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/memory_time.h"
#include "vta/sim/dram/analytic.h"
#include "vta/sim/dram/config.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

vta::Config with(const char* dram, const char* mhz) {
  return preset("vta-1x16x16", {{"memory.dram", dram}, {"clock.mhz", mhz}});
}

TEST(MemoryTime, FixedModelIsRulesNineToEleven) {
  const vta::Config c = preset("vta-1x16x16", {{"memory.dram", "fixed"}});
  const MemoryTime m(c);
  EXPECT_FALSE(m.dram());
  EXPECT_EQ(m.bus(), 8.0);
  EXPECT_EQ(m.read_latency(), static_cast<double>(c.memory.read_latency));
  EXPECT_EQ(m.write_latency(), static_cast<double>(c.memory.write_latency));
  EXPECT_EQ(m.rows(3, 20), 9.0);  // whole beats per row
  EXPECT_EQ(m.bytes(20), 2.5);
}

TEST(MemoryTime, DramLatencyIsNanosecondsAtTheCoreClock) {
  // The same latency in ns at every clock, up to the edges and the
  // synchroniser's cycles of the core clock.
  std::map<int, double> ns;
  for (int mhz : {100, 200, 333}) {
    const MemoryTime m(with("ddr3-1066", std::to_string(mhz).c_str()));
    ASSERT_TRUE(m.dram());
    ns[mhz] = (m.read_latency() - 2.5) * 1000.0 / mhz;  // less the synchroniser and half an edge
    EXPECT_GT(m.write_latency(), 0);
  }
  EXPECT_NEAR(ns[100], ns[333], 1e-9);
  // DDR3-1066 7-7-7: tRP + tRCD + CL + tBURST = 25 cycles of 1.875 ns, and
  // 2.5 controller cycles of the crossing.
  EXPECT_NEAR(ns[100], 27.5 * 1.875, 1e-6);
}

TEST(MemoryTime, ARowTakesTheLongerOfItsBeatsAndTheDramsTime) {
  // 64-bit port at 100 MHz: 0.8 GB/s, below DDR4-2400's sustained figure: beats.
  const MemoryTime slow_port(with("ddr4-2400", "100"));
  EXPECT_EQ(slow_port.rows(4, 2048), 4 * 256.0);
  // At 333 MHz the port moves 2.67 GB/s, DDR3-1066's 16-bit bus about 2.05:
  // the DRAM's time, from the preset's sustained bandwidth.
  const vta::Config c = with("ddr3-1066", "333");
  const MemoryTime fast_port(c);
  const auto s = vta::sim::dram::setup_of(c);
  const double gbps = vta::sim::dram::analytic(s.spec, s.options, 2048).random_gbps;
  EXPECT_NEAR(fast_port.rows(4, 2048), 4 * 2048 / (gbps * 1e9) * s.core.hz(), 1e-6);
  EXPECT_GT(fast_port.rows(4, 2048), 4 * 256.0);
}

// Per VTA layer of ResNet-18: stage 1's cycles against the SystemC model's.
struct LayerErrors {
  double median = 0, worst = 0, network = 0;
};

LayerErrors stage1_errors(const vta::Config& c) {
  static const Graph g = build_zoo("resnet18");
  const NetworkEstimate est = estimate_network(g, c);
  const CompiledNetwork net = compile(g, c);
  vta::BackendOptions o;
  o.timing_only = true;
  auto backend = vta::make_backend("systemc", c, o);
  const Report r = make_report(net, run_network(net, *backend, zoo_input(g, 1)), c, "systemc");
  std::map<std::string, double> measured;
  for (const ReportRow& w : r.rows)
    if (w.device == "vta" && w.cycles > 0) measured[w.layer] = static_cast<double>(w.cycles);
  std::vector<double> err;
  for (const LayerEstimate& e : est.layers) {
    const auto it = measured.find(e.name);
    if (e.device != Device::Vta || it == measured.end()) continue;
    err.push_back(std::abs(100.0 * (e.cycles - it->second) / it->second));
  }
  EXPECT_GE(err.size(), 21u);
  std::sort(err.begin(), err.end());
  LayerErrors out;
  out.median = err[err.size() / 2];
  out.worst = err.back();
  out.network = 100.0 * (est.cycles - static_cast<double>(r.total.cycles)) / static_cast<double>(r.total.cycles);
  return out;
}

TEST(AnalyticDram, Ddr3At333MHzFollowsSystemCWhereTheDramBoundsTheLayer) {
  // 333 MHz x 8 bytes is more than DDR3-1066's 16-bit bus sustains: the
  // strided downsampling convs become DRAM-bound (24.6 % off for conv11 with
  // the port's read_latency and one beat a cycle).
  const LayerErrors e = stage1_errors(with("ddr3-1066", "333"));
  EXPECT_LE(e.median, 1.0);
  EXPECT_LE(e.worst, 11.0);
  EXPECT_LE(std::abs(e.network), 2.0);
}

TEST(AnalyticDram, Ddr4At100MHzStaysWithinThePortBoundEstimate) {
  const LayerErrors e = stage1_errors(with("ddr4-2400", "100"));
  EXPECT_LE(e.median, 1.0);
  EXPECT_LE(e.worst, 3.0);
  EXPECT_LE(std::abs(e.network), 1.0);
}

}  // namespace
