// Golden-model speed: simulated MAC/s on a large blocked GEMM program, and
// ALU throughput. Figures go in docs/measurements.md (target: >= 5 G MAC/s on
// one core for 1x16x16).
#include <benchmark/benchmark.h>

#include <cstring>

#include "test_support.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::test;
using vta::isa::AluOp;
using vta::isa::MemId;

// A blocked matrix multiply C[M x N] += A[M x K] . B[N x K]^T in blocks:
// uops walk K, the inner loop walks N, the outer loop walks M. Each GEMM
// instruction is M*N*K uop iterations; `reps` of them follow one reset.
struct GemmProgram {
  std::unique_ptr<vta::Backend> backend;
  vta::Launch launch;
  uint64_t macs = 0;
};

GemmProgram make_gemm_program(const std::string& preset_name, uint32_t m, uint32_t n, uint32_t k, uint32_t reps) {
  GemmProgram g;
  vta::BackendOptions o;
  o.skip_race_check = true;  // the datapath's speed; bench_race_check measures the check
  g.backend = vta::make_backend("golden", preset(preset_name), o);
  ProgramBuilder p(*g.backend);
  std::vector<vta::isa::Insn> uops;
  for (uint32_t kk = 0; kk < k; ++kk) uops.push_back(make_uop(0, kk, kk));
  uint32_t u = p.uops(uops);
  const auto& cfg = g.backend->config();
  uint32_t a = p.buffer(MemId::INP, m * k, random_bytes(static_cast<size_t>(m * k * cfg.derived.inp_elem_bytes), 1));
  uint32_t b = p.buffer(MemId::WGT, n * k, random_bytes(static_cast<size_t>(n * k * cfg.derived.wgt_elem_bytes), 2));
  p.add(make_load(MemId::UOP, 0, u, 1, k, k));
  p.add(make_load(MemId::INP, 0, a, 1, m * k, m * k));
  p.add(with_deps(make_load(MemId::WGT, 0, b, 1, n * k, n * k), false, false, false, true));
  p.add(with_deps(make_gemm(true, 0, 1, m, n, n, 1, 0, 0, 0, 0), true, false, false, false));
  for (uint32_t r = 0; r < reps; ++r) p.add(make_gemm(false, 0, k, m, n, n, 1, k, 0, 0, k));
  p.add(make_finish());
  g.launch = p.install();
  g.macs = uint64_t{m} * n * k * reps * static_cast<uint64_t>(cfg.gemm.batch * cfg.gemm.block_in * cfg.gemm.block_out);
  return g;
}

void BM_GoldenGemm(benchmark::State& state, const std::string& preset_name) {
  GemmProgram g = make_gemm_program(preset_name, 64, 16, 16, 16);
  for (auto _ : state) g.backend->run(g.launch);
  if (g.backend->stats().total.get("gemm.macs") != g.macs) state.SkipWithError("MAC count mismatch");
  state.counters["MAC/s"] =
      benchmark::Counter(static_cast<double>(g.macs), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MACs/run"] = static_cast<double>(g.macs);
}

void BM_GoldenAlu(benchmark::State& state) {
  vta::BackendOptions o;
  o.skip_race_check = true;
  auto backend = vta::make_backend("golden", preset("vta-1x16x16"), o);
  ProgramBuilder p(*backend);
  uint32_t u = p.uops({make_uop(0, 1024, 0)});
  p.add(make_load(MemId::UOP, 0, u, 1, 1, 1));
  for (int r = 0; r < 8; ++r) {
    p.add(make_alu(AluOp::ADD, false, 0, 0, 1, 32, 32, 32, 1, 32, 1));
    p.add(make_alu(AluOp::SHR, true, 3, 0, 1, 32, 32, 32, 1, 32, 1));
  }
  p.add(make_finish());
  const vta::Launch launch = p.install();
  backend->run(launch);  // warm up and validate once
  uint64_t lanes = backend->stats().total.get("uops.alu") * 16;
  for (auto _ : state) backend->run(launch);
  state.counters["lane-ops/s"] =
      benchmark::Counter(static_cast<double>(lanes), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(BM_GoldenGemm, vta_1x16x16, std::string("vta-1x16x16"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GoldenGemm, vta_1x32x32, std::string("vta-1x32x32"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GoldenGemm, vta_4x16x16, std::string("vta-4x16x16"))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GoldenAlu)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
