// Speed of the DRAM timing model (sim/dram): requests per second for
// sequential and random 64-byte reads on each preset, and the cost per core
// cycle of the CorePort protocol the SystemC model and the Verilator harness
// use (advance every cycle, a request every few cycles). It runs inside both
// cycle models, so it must stay far cheaper than a simulated core cycle.
//
// Run: build/ci/bench/bench_dram --benchmark_min_time=0.5
#include <random>

#include <benchmark/benchmark.h>

#include "vta/sim/dram/controller.h"
#include "vta/sim/dram/port.h"

namespace {

using namespace vta::sim::dram;

// A saturating stream: `n` reads queued at cycle 0, drained.
void stream(benchmark::State& state, const char* name, bool random) {
  const Spec s = resolve(preset(name));
  const uint64_t n = 1 << 16;
  std::mt19937_64 rng(1);
  std::vector<uint64_t> addrs(n);
  for (uint64_t i = 0; i < n; ++i) addrs[i] = random ? rng() % s.capacity_bytes() / 64 * 64 : i * 64;
  std::vector<BurstDone> done;
  for (auto _ : state) {
    Controller c(s);
    for (uint64_t a : addrs) c.submit(Request{a, 64, false, 0});
    benchmark::DoNotOptimize(c.drain());
    done.clear();
    c.take_done(done);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

// The harness protocol: one 64-byte read every `gap` core cycles at 200 MHz,
// advance() and take_done() every cycle.
void per_cycle(benchmark::State& state, const char* name) {
  const Spec s = resolve(preset(name));
  const auto gap = static_cast<uint64_t>(state.range(0));
  const uint64_t cycles = 1 << 18;
  std::mt19937_64 rng(1);
  std::vector<BurstDone> done;
  for (auto _ : state) {
    CorePort port(s, {}, Freq::mhz(200));
    for (uint64_t c = 0; c < cycles; ++c) {
      if (c % gap == 0) port.submit(c, false, rng() % s.capacity_bytes() / 64 * 64, 64);
      port.advance(c);
      done.clear();
      port.take_done(done);
    }
    benchmark::DoNotOptimize(done.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * cycles));
  state.counters["core_cycles_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * cycles), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(stream, ddr3_1066_sequential, "ddr3-1066", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stream, ddr4_2400_sequential, "ddr4-2400", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stream, ddr4_2400_random, "ddr4-2400", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stream, lpddr4_3200_random, "lpddr4-3200", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stream, hbm2_2000_sequential, "hbm2-2000", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stream, hbm2_2000_random, "hbm2-2000", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(per_cycle, ddr4_2400, "ddr4-2400")->Arg(4)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(per_cycle, hbm2_2000, "hbm2-2000")->Arg(4)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
