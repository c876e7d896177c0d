// SystemC cycle model speed on a synthetic GEMM-dominated program of about
// 30 M cycles on 1x16x16: a blocked convolution-like loop nest whose input
// and weight tiles are double-buffered (two halves of each SRAM alternate,
// synchronised by dependency tokens) so that loads overlap the GEMMs.
// Reports simulated cycles per second with values on and timing-only, and
// the golden model's wall time on the same program (issue 3 targets:
// values >= 30 M cycles/s and <= 1.5x golden; timing-only >= 100 M cycles/s).
#include <benchmark/benchmark.h>

#include "test_support.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

// Per tile t on half h = t % 2 (INP halves of 1024, WGT of 512, ACC of 1024):
//   load:    LOAD INP h (waits for compute to free h), LOAD WGT h -> compute
//   compute: GEMM 16 uops x 64 x 8 = 8192 iterations (waits for the store of
//            tile t-2 to free ACC half h), SHR, MAX -> frees h for load, -> store
//   store:   STORE 512 OUT elements -> compute
vta::Launch conv_program(vta::Backend& b, uint32_t tiles) {
  ProgramBuilder p(b);
  std::vector<vta::isa::Insn> uops;
  for (uint32_t h = 0; h < 2; ++h)
    for (uint32_t k = 0; k < 16; ++k) uops.push_back(make_uop(1024 * h, 1024 * h + k, 512 * h + k));
  uops.push_back(make_uop(0, 0, 0));
  uops.push_back(make_uop(1024, 1024, 0));
  const uint32_t u = p.uops(uops);
  const uint32_t inp = p.buffer(MemId::INP, 1024, random_bytes(1024 * 16, 1));
  const uint32_t wgt = p.buffer(MemId::WGT, 128, random_bytes(128 * 256, 2));
  const uint32_t out = p.buffer(MemId::OUT, 512);
  p.add(make_load(MemId::UOP, 0, u, 1, 34, 34));
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t h = t % 2;
    const bool reuse = t >= 2;
    p.add(with_deps(make_load(MemId::INP, 1024 * h, inp, 1, 1024, 1024), false, reuse, false, false));
    p.add(with_deps(make_load(MemId::WGT, 512 * h, wgt, 1, 128, 128), false, false, false, true));
    p.add(with_deps(make_gemm(t < 2, 16 * h, 16 * h + 16, 64, 8, 8, 1, 16, 0, 0, 16), true, reuse, false, false));
    p.add(make_alu(AluOp::SHR, true, 8, 32 + h, 33 + h, 64, 8, 8, 1, 8, 1));
    p.add(with_deps(make_alu(AluOp::MAX, true, 0, 32 + h, 33 + h, 64, 8, 8, 1, 8, 1), false, false, true, true));
    p.add(with_deps(make_store(1024 * h, out, 1, 512, 512), true, false, true, false));
  }
  p.add(with_deps(make_finish(), false, true, false, false));
  return p.install();
}

constexpr uint32_t kTiles = 3200;

void report(benchmark::State& state, vta::Backend& b) {
  const auto cycles = static_cast<double>(b.stats().total.get("cycles.total"));
  state.counters["sim_cycles"] = cycles;
  state.counters["cycles/s"] = benchmark::Counter(cycles, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SystemC(benchmark::State& state, bool timing_only) {
  vta::BackendOptions o;
  o.timing_only = timing_only;
  auto b = vta::make_backend("systemc", preset("vta-1x16x16"), o);
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
  auto sc = vta::make_backend("systemc", preset("vta-1x16x16"), vta::BackendOptions{true, "", 0});
  sc->run(conv_program(*sc, kTiles));
  report(state, *sc);
}

BENCHMARK_CAPTURE(BM_SystemC, values, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SystemC, timing_only, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GoldenSameProgram)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
