// RTL backend speed on the synthetic GEMM-dominated program of bench_systemc
// (about 30 M cycles on 1x16x16; conv_program.h): simulated cycles per
// second of the verilated core driven from C++ (`verilator`; target:
// >= 0.5 M cycles/s) and of the same core as a SystemC module inside the
// SystemC model's top level (`systemc-rtl`, the co-simulation), and the
// SystemC model on the same program for the SystemC/RTL speed ratio.
// `--benchmark_filter=short` runs a 300-tile cut on both RTL backends.
#include <benchmark/benchmark.h>

#include "conv_program.h"

namespace {

using namespace vta::test;

void BM_Rtl(benchmark::State& state, const char* backend) {
  const auto tiles = static_cast<uint32_t>(state.range(0));
  auto b = vta::make_backend(backend, preset("vta-1x16x16"));
  const vta::Launch launch = conv_program(*b, tiles);
  for (auto _ : state) b->run(launch);
  const auto cycles = static_cast<double>(b->stats().total.get("cycles.total"));
  state.counters["sim_cycles"] = cycles;
  state.counters["cycles/s"] = benchmark::Counter(cycles, benchmark::Counter::kIsIterationInvariantRate);
  // The cycle models must agree on this program.
  vta::BackendOptions timing_only;
  timing_only.timing_only = true;
  auto sc = vta::make_backend("systemc", preset("vta-1x16x16"), timing_only);
  sc->run(conv_program(*sc, tiles));
  state.counters["systemc_cycles"] = static_cast<double>(sc->stats().total.get("cycles.total"));
}

void BM_SystemCSameProgram(benchmark::State& state) {
  const auto tiles = static_cast<uint32_t>(state.range(0));
  auto b = vta::make_backend("systemc", preset("vta-1x16x16"));
  const vta::Launch launch = conv_program(*b, tiles);
  for (auto _ : state) b->run(launch);
  const auto cycles = static_cast<double>(b->stats().total.get("cycles.total"));
  state.counters["cycles/s"] = benchmark::Counter(cycles, benchmark::Counter::kIsIterationInvariantRate);
}

// BM_Rtl on `backend` over `tiles`, as NAME; `once`: a single (long) run.
void rtl_case(const char* name, const char* backend, int64_t tiles, bool once) {
  auto* b = benchmark::RegisterBenchmark(name, BM_Rtl, backend)->Arg(tiles)->UseRealTime();
  if (once) b->Iterations(1);
  b->Unit(once ? benchmark::kSecond : benchmark::kMillisecond);
}

[[maybe_unused]] const bool rtl_cases = [] {
  rtl_case("BM_Verilator/full", "verilator", 3200, true);
  rtl_case("BM_Verilator/short", "verilator", 300, false);
  rtl_case("BM_CoSim/short", "systemc-rtl", 300, true);
  return true;
}();
BENCHMARK(BM_SystemCSameProgram)->Arg(3200)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
