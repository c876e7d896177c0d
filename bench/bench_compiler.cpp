// Compiler figures: ResNet-18 compile time on 1x16x16 (target: <= 5 s),
// and the network's total cycles and GEMM-core utilisation over the VTA
// layers on the SystemC model (target >= 60 %; upstream TVM/VTA: about 21 %);
// that utilisation at batch 1 per design (targets: >= 80 % on
// vta-1x16x16, >= 75 % on vta-1x32x32, >= 70 % on vta-4x16x16), rectangular
// arrays included, timing-only; and the other zoo networks (ResNet-50,
// MobileNet-v1, VGG-16) on the three presets (Zoo benchmarks), with the
// report's roofline bound (the sum over the layers of max(MACs / array,
// DRAM bytes / bus)) beside the cycles; and the utilisation bound of each run
// (Report::util_bound: per layer max(roofline, GEMM + ALU), or with
// alu.concurrent max(roofline, GEMM, ALU)).
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"

namespace {

using namespace vta::compiler;

const Graph& resnet18() {
  static const Graph g = build_zoo("resnet18");
  return g;
}

void BM_CompileResNet18(benchmark::State& state) {
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const Graph& g = resnet18();  // built (and calibrated) outside the timed loop
  size_t insns = 0;
  for (auto _ : state) {
    CompiledNetwork net = compile(g, cfg);
    insns = 0;
    for (const auto& s : net.segments) insns += s.insn_count;
    benchmark::DoNotOptimize(net);
  }
  state.counters["instructions"] = static_cast<double>(insns);
}

void BM_RunResNet18(benchmark::State& state, bool timing_only) {
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(resnet18(), cfg);
  const Tensor input = zoo_input(resnet18(), 1);
  Report r;
  for (auto _ : state) {
    vta::BackendOptions o;
    o.timing_only = timing_only;
    auto backend = vta::make_backend("systemc", cfg, o);
    const NetworkResult res = run_network(net, *backend, input);
    r = make_report(net, res, cfg, "systemc");
  }
  state.counters["cycles"] = static_cast<double>(r.total.cycles);
  state.counters["gemm_util_%"] = r.total.util;
  state.counters["ms_at_clock"] = r.total.time_us / 1e3;
}

// The benchmark's iterations: `net` timing-only on the SystemC model; the
// last run's report.
Report timing_only_runs(benchmark::State& state, const CompiledNetwork& net, const vta::Config& cfg,
                        const Tensor& input) {
  Report r;
  for (auto _ : state) {
    vta::BackendOptions o;
    o.timing_only = true;
    auto backend = vta::make_backend("systemc", cfg, o);
    r = make_report(net, run_network(net, *backend, input), cfg, "systemc");
  }
  return r;
}

void BM_UtilResNet18(benchmark::State& state, const char* preset, const char* knob, const char* value) {
  const vta::Config cfg =
      vta::test::preset(preset, knob ? std::vector<vta::Override>{{knob, value}} : std::vector<vta::Override>{});
  const Report r = timing_only_runs(state, compile(resnet18(), cfg), cfg, zoo_input(resnet18(), 1));
  state.counters["cycles"] = static_cast<double>(r.total.cycles);
  state.counters["gemm_util_%"] = r.total.util;
  state.counters["bound_%"] = r.util_bound;
}

// A zoo network at batch 1 on a preset, timing-only: cycles, GEMM-core
// utilisation over the VTA layers, the roofline bound and the host re-layout
// (Bands nodes of batch-row mapping, Im2col of the stem) time.
void BM_Zoo(benchmark::State& state, const char* network, const char* preset, bool concurrent = false) {
  static std::map<std::string, Graph> graphs;
  if (!graphs.count(network)) graphs[network] = build_zoo(network);
  const Graph& g = graphs[network];
  const vta::Config cfg = vta::test::preset(
      preset, concurrent ? std::vector<vta::Override>{{"alu.concurrent", "true"}} : std::vector<vta::Override>{});
  const Report r = timing_only_runs(state, compile(g, cfg), cfg, zoo_input(g, 1));
  state.counters["cycles"] = static_cast<double>(r.total.cycles);
  state.counters["gemm_util_%"] = r.total.util;
  state.counters["roofline"] = static_cast<double>(r.total.roofline);
  state.counters["bound_%"] = r.util_bound;
  state.counters["host_ms"] = r.total.host_ms;
}

BENCHMARK(BM_CompileResNet18)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x16x16, "vta-1x16x16", nullptr, nullptr)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x32x32, "vta-1x32x32", nullptr, nullptr)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 4x16x16, "vta-4x16x16", nullptr, nullptr)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x16x32, "vta-1x16x16", "gemm.block_out", "32")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x32x16, "vta-1x16x16", "gemm.block_in", "32")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// alu.concurrent (docs/timing.md, "Concurrent ALU") on the three presets.
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x16x16_concurrent, "vta-1x16x16", "alu.concurrent", "true")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 1x32x32_concurrent, "vta-1x32x32", "alu.concurrent", "true")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_UtilResNet18, 4x16x16_concurrent, "vta-4x16x16", "alu.concurrent", "true")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_1x16x16, "resnet50", "vta-1x16x16")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_1x32x32, "resnet50", "vta-1x32x32")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_4x16x16, "resnet50", "vta-4x16x16")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_1x16x16, "mobilenet_v1", "vta-1x16x16")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_1x32x32, "mobilenet_v1", "vta-1x32x32")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_4x16x16, "mobilenet_v1", "vta-4x16x16")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_1x16x16, "vgg16", "vta-1x16x16")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_1x32x32, "vgg16", "vta-1x32x32")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_4x16x16, "vgg16", "vta-4x16x16")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_1x16x16_concurrent, "resnet50", "vta-1x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_1x32x32_concurrent, "resnet50", "vta-1x32x32", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, resnet50_4x16x16_concurrent, "resnet50", "vta-4x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_1x16x16_concurrent, "mobilenet_v1", "vta-1x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_1x32x32_concurrent, "mobilenet_v1", "vta-1x32x32", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, mobilenet_v1_4x16x16_concurrent, "mobilenet_v1", "vta-4x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_1x16x16_concurrent, "vgg16", "vta-1x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_1x32x32_concurrent, "vgg16", "vta-1x32x32", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Zoo, vgg16_4x16x16_concurrent, "vgg16", "vta-4x16x16", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RunResNet18, values, false)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_RunResNet18, timing_only, true)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
