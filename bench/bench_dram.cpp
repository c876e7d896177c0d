// Speed of the DRAM timing model (sim/dram): requests per second for
// sequential and random 64-byte reads on each preset, and the cost per core
// cycle of the CorePort protocol the SystemC model and the Verilator harness
// use (advance every cycle, a request every few cycles), and of the AXI port
// under the accelerator's DMA pattern (axi_dma). It runs inside both cycle
// models, so it must stay far cheaper than a simulated core cycle.
//
// Run: build/ci/bench/bench_dram --benchmark_min_time=0.5
#include <random>

#include <benchmark/benchmark.h>

#include "vta/sim/dram/axi_port.h"
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

// The accelerator's DMA on the AXI port as the cycle models drive it
// (vta-1x16x16: 100 MHz, 64-bit port, bursts of up to 256 beats, 8 reads
// outstanding): sequential 2 KiB read bursts, one granted per cycle while
// fewer than 8 are in flight, a read retired after its last beat, every
// fourth burst a write of the same size; the port asked every cycle.
void axi_dma(benchmark::State& state, const char* name) {
  const Spec s = resolve(preset(name));
  const uint64_t cycles = 1 << 19;
  const uint32_t beats = 256, bus = 8;
  uint64_t moved = 0;
  for (auto _ : state) {
    AxiPort p(s, {}, Freq::mhz(100), bus);
    std::vector<std::pair<uint64_t, uint32_t>> reads;  // id, beats
    uint64_t addr = 0, n = 0;
    moved = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
      p.advance(c);
      while (!reads.empty()) {
        const auto last = p.read_beat(reads.front().first, reads.front().second - 1);
        if (!last || *last >= c) break;
        p.retire(reads.front().first);
        reads.erase(reads.begin());
        moved += beats * bus;
      }
      if (reads.size() < 8) {
        if (++n % 4 == 0) {
          p.retire(p.write(c, addr, beats));  // its completion is not waited for here
        } else {
          reads.emplace_back(p.read(c, addr, beats), beats);
        }
        addr = (addr + beats * bus) % (s.capacity_bytes() / 2);
      }
    }
  }
  state.counters["core_cycles_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * cycles), benchmark::Counter::kIsRate);
  state.counters["GB/s_simulated"] = static_cast<double>(moved) / (static_cast<double>(cycles) / 100e6) / 1e9;
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
BENCHMARK_CAPTURE(axi_dma, ddr3_1066, "ddr3-1066")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(axi_dma, ddr4_2400, "ddr4-2400")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(axi_dma, lpddr4_3200, "lpddr4-3200")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(axi_dma, hbm2_2000, "hbm2-2000")->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
