// SystemC cycle model speed on a synthetic GEMM-dominated program of about
// 30 M cycles on 1x16x16: a blocked convolution-like loop nest whose input
// and weight tiles are double-buffered (two halves of each SRAM alternate,
// synchronised by dependency tokens) so that loads overlap the GEMMs.
// Reports simulated cycles per second with values on and timing-only, and
// the golden model's wall time on the same program (targets:
// values >= 30 M cycles/s and <= 1.5x golden; timing-only >= 100 M cycles/s).
// With a DRAM preset behind the port (memory.dram): the same program, and
// ResNet-18 timing-only against the fixed model (target: within 3x of it,
// so that a sweep's stage 2 stays fast with a DRAM model on).
#include <benchmark/benchmark.h>

#include "conv_program.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/memory_split.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"

namespace {

using namespace vta::test;

constexpr uint32_t kTiles = 3200;

void report(benchmark::State& state, vta::Backend& b) {
  const auto cycles = static_cast<double>(b.stats().total.get("cycles.total"));
  state.counters["sim_cycles"] = cycles;
  state.counters["cycles/s"] = benchmark::Counter(cycles, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SystemC(benchmark::State& state, bool timing_only, const char* dram) {
  vta::BackendOptions o;
  o.timing_only = timing_only;
  auto b = vta::make_backend("systemc", preset("vta-1x16x16", {{"memory.dram", dram}}), o);
  const vta::Launch launch = conv_program(*b, kTiles);
  for (auto _ : state) b->run(launch);
  report(state, *b);
  state.counters["gemm_util_%"] = 100.0 * static_cast<double>(b->stats().total.get("gemm.active_cycles")) /
                                  static_cast<double>(b->stats().total.get("cycles.total"));
}

void BM_GoldenSameProgram(benchmark::State& state) {
  auto b = vta::make_backend("golden", preset("vta-1x16x16"));
  const vta::Launch launch = conv_program(*b, kTiles);
  for (auto _ : state) b->run(launch);
  // Cycles of the same program from the cycle model, for a like-for-like rate.
  vta::BackendOptions timing_only;
  timing_only.timing_only = true;
  auto sc = vta::make_backend("systemc", preset("vta-1x16x16"), timing_only);
  sc->run(conv_program(*sc, kTiles));
  report(state, *sc);
}

// ResNet-18 on vta-1x16x16 with `memory.dram` = dram, timing-only, compiled
// once outside the loop: each iteration is a fresh backend running the
// network's device programs and its report; with `split`, the report's
// memory split too (run/memory_split.h: three more timing-only runs on
// variants of the memory), what `vta run` adds with a DRAM preset.
void resnet18_timing_only(benchmark::State& state, const char* dram, bool split) {
  using namespace vta::compiler;
  static const Graph g = build_zoo("resnet18");
  const vta::Config cfg = preset("vta-1x16x16", {{"memory.dram", dram}});
  const CompiledNetwork net = compile(g, cfg);
  const Tensor input = zoo_input(g, 1);
  uint64_t cycles = 0;
  int64_t lost = 0;
  for (auto _ : state) {
    vta::BackendOptions o;
    o.timing_only = true;
    auto backend = vta::make_backend("systemc", cfg, o);
    const NetworkResult res = run_network(net, *backend, input);
    Report r = make_report(net, res, cfg, "systemc");
    if (split) add_memory_split(r, net, cfg, res, input);
    cycles = r.total.cycles;
    lost = split ? r.total.mem_bw + r.total.mem_row + r.total.mem_refresh : 0;
  }
  state.counters["sim_cycles"] = static_cast<double>(cycles);
  state.counters["cycles/s"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsIterationInvariantRate);
  if (split) state.counters["dram_cycles_lost"] = static_cast<double>(lost);
}

void BM_ResNet18TimingOnly(benchmark::State& state, const char* dram) { resnet18_timing_only(state, dram, false); }
// Compare with BM_ResNet18TimingOnly/ddr3_1066.
void BM_ResNet18MemorySplit(benchmark::State& state) { resnet18_timing_only(state, "ddr3-1066", true); }

BENCHMARK_CAPTURE(BM_SystemC, values, false, "fixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SystemC, timing_only, true, "fixed")->Unit(benchmark::kMillisecond)->UseRealTime();
// The same program with the DRAM model behind the port (docs/timing.md,
// "DRAM model"): the port thread then runs every cycle a burst is in flight.
BENCHMARK_CAPTURE(BM_SystemC, values_ddr3_1066, false, "ddr3-1066")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SystemC, timing_only_ddr3_1066, true, "ddr3-1066")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SystemC, timing_only_ddr4_2400, true, "ddr4-2400")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ResNet18TimingOnly, fixed, "fixed")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResNet18TimingOnly, ddr3_1066, "ddr3-1066")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResNet18TimingOnly, ddr4_2400, "ddr4-2400")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResNet18TimingOnly, lpddr4_3200, "lpddr4-3200")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResNet18TimingOnly, hbm2_2000, "hbm2-2000")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet18MemorySplit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GoldenSameProgram)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
