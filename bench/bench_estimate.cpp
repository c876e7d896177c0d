// Time of one FPGA estimate per config (target: at most 1 ms), for
// the presets on a Xilinx and an Intel device, and with energy.
#include <benchmark/benchmark.h>

#include "vta/estimate/estimate.h"
#include "vta/isa/config.h"

namespace {

void run(benchmark::State& state, const char* preset, const char* device, bool with_energy) {
  const vta::Config c = vta::load_config(vta::resolve_config_path(preset));
  vta::estimate::EstimateOptions o;
  o.device = device;
  if (with_energy) {
    vta::estimate::Activity a;
    a.cycles = 1000000;
    a.macs = 100000000;
    a.dram_read_bytes = 1 << 20;
    o.activity = a;
  }
  for (auto _ : state) {
    vta::estimate::Estimate e = vta::estimate::estimate(c, o);
    benchmark::DoNotOptimize(e.total.lut);
  }
}

// Estimate plus the flat columns a sweep stores.
void run_columns(benchmark::State& state) {
  const vta::Config c = vta::load_config(vta::resolve_config_path("vta-1x16x16"));
  vta::estimate::EstimateOptions o;
  o.device = "xczu7ev";
  for (auto _ : state) {
    auto cols = vta::estimate::columns(vta::estimate::estimate(c, o));
    benchmark::DoNotOptimize(cols.data());
  }
}

}  // namespace

BENCHMARK_CAPTURE(run, vta_1x16x16_xc7z020, "vta-1x16x16", "xc7z020", false);
BENCHMARK_CAPTURE(run, vta_4x16x16_xcu250, "vta-4x16x16", "xcu250", false);
BENCHMARK_CAPTURE(run, vta_1x32x32_1sg280, "vta-1x32x32", "1sg280", false);
BENCHMARK_CAPTURE(run, vta_1x16x16_energy, "vta-1x16x16", "xc7z020", true);
BENCHMARK(run_columns);
BENCHMARK_MAIN();
