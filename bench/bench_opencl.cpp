// OpenCL backend figures: device time and effective GOPS
// (2 x MACs / device time) of a GEMM-dominated program and of ResNet-18
// (the compiler's zoo network, one run per VTA segment) for both kernel
// variants, the launch overhead of a near-empty program, and the kernel
// build time; the golden model on the same programs for reference (its
// time is wall time).
//
// The device is the opencl backend's choice: VTA_OPENCL_DEVICE /
// VTA_OPENCL_PLATFORM pick another (see `vta devices`); VTA_BENCH_CONFIG
// picks the preset (default vta-1x16x16). The reported time of the GEMM and
// empty benchmarks is the device time from OpenCL profiling events; host_ms
// is the whole run() (upload, kernel, read-back, synchronisation).
//
// PoCL caches compiled kernels on disk: unless POCL_CACHE_DIR is set, this
// program points it at a fresh temporary folder, so that build_ms is a cold
// build.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "vta/bringup/programs.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/config.h"
#include "vta/kernels/opencl.h"
#include "vta/model/image.h"

namespace {

vta::Config bench_config(const std::string& variant) {
  const char* name = std::getenv("VTA_BENCH_CONFIG");
  vta::Config c = vta::load_config(vta::resolve_config_path(name && *name ? name : "vta-1x16x16"));
  c.opencl.variant = variant;
  return c;
}

/// One backend per variant for the whole program (the kernel builds once).
vta::Backend& backend(const std::string& variant) {
  static std::map<std::string, std::unique_ptr<vta::Backend>> made;
  auto& b = made[variant];
  if (!b)
    b = variant == "golden"
            ? vta::make_backend("golden", bench_config("single"))
            : std::make_unique<vta::opencl::OpenclBackend>(bench_config(variant), vta::BackendOptions{});
  return *b;
}

// 8 GEMMs of 512 x 64 uop iterations over resident INP/WGT windows: 67 M MACs on 1x16x16.
constexpr uint32_t kGemms = 8, kIters = 512, kUops = 64;

void BM_Gemm(benchmark::State& state, const std::string& variant) {
  vta::Backend& b = backend(variant);
  uint64_t macs = 0;
  vta::ProgramImage img = vta::programs::gemm_program(b.config(), kGemms, kIters, kUops, macs);
  b.dram().reset();
  const vta::Launch l = vta::install(img, b);
  double device_s = 0, host_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    b.run(l);
    const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t ns = b.stats().total.get("opencl.device_ns");
    const double dev = variant == "golden" ? host : static_cast<double>(ns) * 1e-9;
    state.SetIterationTime(dev);
    device_s += dev;
    host_s += host;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["MACs"] = static_cast<double>(macs);
  state.counters["GOPS"] = 2.0 * static_cast<double>(macs) * n / device_s * 1e-9;
  state.counters["host_ms"] = host_s / n * 1e3;
  if (variant != "golden") {
    auto& o = static_cast<vta::opencl::OpenclBackend&>(b);
    state.counters["build_ms"] = o.build_ms();
    state.counters["work_items"] = static_cast<double>(o.work_group_size());
    state.SetLabel(o.device().name + (o.sram_on_chip() ? " (SRAM on chip)" : ""));
  }
}

// A LOAD and FINISH: what one run() costs beyond the instructions themselves.
void BM_Empty(benchmark::State& state, const std::string& variant) {
  vta::Backend& b = backend(variant);
  vta::programs::ImageBuilder ib(b.config(), "empty");
  const uint32_t inp = ib.buffer("inp", vta::isa::MemId::INP, 1);
  ib.tile({vta::programs::load(vta::isa::MemId::INP, 0, inp, 1, 1, 1)}, {}, {});
  vta::ProgramImage img = ib.finish();
  b.dram().reset();
  const vta::Launch l = vta::install(img, b);
  double host_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    b.run(l);
    const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(static_cast<double>(b.stats().total.get("opencl.device_ns")) * 1e-9);
    host_s += host;
  }
  state.counters["host_ms"] = host_s / static_cast<double>(state.iterations()) * 1e3;
}

// ResNet-18 at 224x224: every VTA segment one run; device time is the
// kernel time attributed to the layers.
void BM_ResNet18(benchmark::State& state, const std::string& variant) {
  vta::Backend& b = backend(variant);
  static const vta::compiler::Graph g = vta::compiler::build_zoo("resnet18");
  static const vta::compiler::Tensor input = vta::compiler::zoo_input(g, 1001);
  const vta::compiler::CompiledNetwork net = vta::compiler::compile(g, b.config());
  double device_s = 0, host_s = 0;
  uint64_t macs = 0;
  for (auto _ : state) {
    b.dram().reset();  // run_network allocates the network's buffers itself
    const vta::compiler::NetworkResult r = vta::compiler::run_network(net, b, input);
    uint64_t ns = 0;
    macs = 0;
    for (const auto& l : r.layers) ns += l.stats.get("opencl.device_ns"), macs += l.stats.get("gemm.macs");
    const double dev = variant == "golden" ? r.wall_seconds : static_cast<double>(ns) * 1e-9;
    state.SetIterationTime(dev);
    device_s += dev;
    host_s += r.wall_seconds;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["MACs"] = static_cast<double>(macs);
  state.counters["GOPS"] = 2.0 * static_cast<double>(macs) * n / device_s * 1e-9;
  state.counters["host_ms"] = host_s / n * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("POCL_CACHE_DIR")) {
    const auto dir = std::filesystem::temp_directory_path() / ("vta-bench-pocl-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    setenv("POCL_CACHE_DIR", dir.c_str(), 1);
  }
  for (const std::string v : {"single", "workgroup"}) {
    benchmark::RegisterBenchmark(("BM_Gemm/" + v).c_str(), BM_Gemm, v)->UseManualTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Empty/" + v).c_str(), BM_Empty, v)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_Gemm/golden", BM_Gemm, std::string("golden"))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  for (const std::string v : {"single", "workgroup", "golden"})
    benchmark::RegisterBenchmark(("BM_ResNet18/" + v).c_str(), BM_ResNet18, v)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(2);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
