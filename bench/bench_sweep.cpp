// Sweep throughput as a user sees it: the whole `vta sweep run` command on a
// fresh store, ResNet-18, building the network included. Counters:
// points_per_hour of the stage measured (stage 1 alone; stage 2 on a store
// whose stage 1 is done), and the whole command's seconds.
//   VTA_CONFIG_DIR=configs ./build/dev/bench/bench_sweep
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "vta/isa/shell_quote.h"

namespace {

namespace fs = std::filesystem;

// A ResNet-18 space of `points` designs (clock x pipeline depth x ALU lanes x INP size).
std::string spec(const fs::path& dir, int clocks, int stage2_all) {
  std::ofstream f(dir / "bench.yaml");
  f << "name: bench\nbase: vta-1x16x16\nnetworks: [resnet18]\naxes:\n"
    << "  - knob: clock.mhz\n    range: {from: 100, to: " << 100 + clocks - 1 << "}\n"
    << "  - knob: gemm.pipeline_depth\n    range: {from: 4, to: 13}\n"
    << "  - knob: alu.lanes\n    values: [16, 32]\n";
  if (stage2_all) f << "funnel:\n  stage2: {all: true}\n";
  return (dir / "bench.yaml").string();
}

int vta(const std::string& args) {
  const std::string cmd = vta::shell_quote(VTA_EXE) + " " + args + " > /dev/null 2>&1";
  return std::system(cmd.c_str());
}

double run_seconds(const std::string& args) {
  const auto t0 = std::chrono::steady_clock::now();
  if (vta(args) != 0) return -1;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Stage 1 alone: clocks x 10 pipeline depths x 2 ALU widths of ResNet-18, from an empty store.
void BM_Stage1(benchmark::State& state) {
  const int clocks = static_cast<int>(state.range(0));
  const fs::path dir = fs::temp_directory_path() / "vta-bench-sweep";
  fs::create_directories(dir);
  const std::string s = spec(dir, clocks, 0), db = (dir / "s1.db").string();
  const double points = clocks * 10.0 * 2.0;
  for (auto _ : state) {
    fs::remove(db);
    fs::remove(db + "-wal");
    fs::remove(db + "-shm");
    const double secs =
        run_seconds("sweep run -q --max-stage 1 " + vta::shell_quote(s) + " --db " + vta::shell_quote(db));
    if (secs < 0) state.SkipWithError("vta sweep run failed");
    state.SetIterationTime(secs);
    state.counters["points"] = points;
    state.counters["points_per_hour"] = points / secs * 3600.0;
  }
}
BENCHMARK(BM_Stage1)->Arg(100)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

// Stage 2 (compile + timing-only SystemC) for every point, stage 1 already stored.
void BM_Stage2(benchmark::State& state) {
  const int clocks = static_cast<int>(state.range(0));
  const fs::path dir = fs::temp_directory_path() / "vta-bench-sweep";
  fs::create_directories(dir);
  const std::string s = spec(dir, clocks, 1), db = (dir / "s2.db").string();
  const double points = clocks * 10.0 * 2.0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(db);
    fs::remove(db + "-wal");
    fs::remove(db + "-shm");
    if (vta("sweep run -q --max-stage 1 " + vta::shell_quote(s) + " --db " + vta::shell_quote(db)) != 0)
      state.SkipWithError("stage 1 failed");
    state.ResumeTiming();
    const double secs =
        run_seconds("sweep run -q --max-stage 2 " + vta::shell_quote(s) + " --db " + vta::shell_quote(db));
    if (secs < 0) state.SkipWithError("vta sweep run failed");
    state.SetIterationTime(secs);
    state.counters["points"] = points;
    state.counters["points_per_hour"] = points / secs * 3600.0;
  }
}
BENCHMARK(BM_Stage2)->Arg(10)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
