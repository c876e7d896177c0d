// Sweep throughput as a user sees it: the whole `vta sweep run` command on a
// fresh store, building the network included, 2 workers. The space varies
// the knobs that change the tile search's choices, as the slides' space
// does: GEMM shape, the INP/WGT/ACC buffers and the bus width, with clock,
// pipeline depth and ALU lanes, on the base design's DRAM (a preset: the
// clock converts its ns to cycles, so every knob is a search knob).
// Counters: points_per_s of the stage measured (stage 0 alone over every
// design; stage 1 alone over the designs stage 0 passed; stage 2 on a store
// whose stage 1 is done), the points it ran, and the whole command's seconds.
// BM_Stage0Slides is issue 34's acceptance run: stage 0 of
// sweeps/examples/slides-1m.yaml (1 088 640 designs on ResNet-50), with the
// store's bytes per point and the command's peak RSS (about a minute;
// --benchmark_filter=-Slides leaves it out).
//   VTA_CONFIG_DIR=configs ./build/ci/bench/bench_sweep
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <sys/resource.h>

#include "vta/isa/shell_quote.h"

namespace {

namespace fs = std::filesystem;

const char* const kNetworks[] = {"resnet18", "resnet50"};

// 3 GEMM shapes x INP 32/64 KiB x WGT 256/512 KiB x ACC 128/256 KiB x bus
// 64/128 bits x `clocks` clocks from 200 MHz x pipeline depth 4/8/12 x ALU
// lanes 16/32: 288 x clocks designs.
std::string spec(const fs::path& dir, const std::string& net, int clocks, int stage2_all) {
  std::ofstream f(dir / "bench.yaml");
  f << "name: bench\nbase: vta-1x16x16\nnetworks: [" << net << "]\naxes:\n"
    << "  - zip:\n      gemm.batch: [1, 1, 4]\n      gemm.block_in: [16, 32, 16]\n"
    << "      gemm.block_out: [16, 32, 16]\n"
    << "  - {knob: buffers.inp, values: [32KiB, 64KiB]}\n"
    << "  - {knob: buffers.wgt, values: [256KiB, 512KiB]}\n"
    << "  - {knob: buffers.acc, values: [128KiB, 256KiB]}\n"
    << "  - {knob: memory.bus_bits, values: [64, 128]}\n"
    << "  - {knob: clock.mhz, range: {from: 200, to: " << 200 + clocks - 1 << "}}\n"
    << "  - {knob: gemm.pipeline_depth, values: [4, 8, 12]}\n"
    << "  - {knob: alu.lanes, values: [16, 32]}\n";
  if (stage2_all) f << "funnel:\n  stage2: {all: true}\n";
  return (dir / "bench.yaml").string();
}

// Runs `vta ARGS`; its output, or "" when it failed.
std::string vta(const std::string& args) {
  const std::string cmd = vta::shell_quote(VTA_EXE) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  return ::pclose(p) == 0 ? out : "";
}

// The peak RSS in MiB of the children waited for so far (getrusage).
double children_peak_rss_mib() {
  struct rusage u {};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The points stage `stage` ran, from the run's summary ("stage 1 analytic: N points (M from the store)").
double ran(const std::string& summary, int stage) {
  std::smatch m;
  const std::regex re("stage " + std::to_string(stage) + " \\w+ *: (\\d+) points \\((\\d+) from the store\\)");
  if (!std::regex_search(summary, m, re)) return -1;
  return std::stod(m[1]) - std::stod(m[2]);
}

void fresh(const std::string& db) {
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db + ext);
}

// Stage `stage` alone (0: every design, from an empty store; 1 and 2: with
// the stages before it stored) on network kNetworks[range(0)], range(1) clocks.
void sweep_stage(benchmark::State& state, int stage) {
  const std::string net = kNetworks[state.range(0)];
  const fs::path dir = fs::temp_directory_path() / "vta-bench-sweep";
  fs::create_directories(dir);
  const std::string s = spec(dir, net, static_cast<int>(state.range(1)), stage == 2);
  const std::string db = (dir / "s.db").string(),
                    args = " " + vta::shell_quote(s) + " -j 2 --db " + vta::shell_quote(db);
  for (auto _ : state) {
    state.PauseTiming();
    fresh(db);
    if (stage > 0 && vta("sweep run -q --max-stage " + std::to_string(stage - 1) + args).empty())
      state.SkipWithError("the stages before failed");
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string out = vta("sweep run -q --max-stage " + std::to_string(stage) + args);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double points = ran(out, stage);
    if (points < 0) state.SkipWithError("vta sweep run failed");
    state.SetIterationTime(secs);
    state.counters["points"] = points;
    state.counters["points_per_s"] = points / secs;
  }
  state.SetLabel(net);
}

// Stage 0 of the slides' 1 088 640 designs (issue 34's acceptance space).
void BM_Stage0Slides(benchmark::State& state) {
  const fs::path dir = fs::temp_directory_path() / "vta-bench-sweep";
  fs::create_directories(dir);
  const std::string db = (dir / "slides.db").string();
  const std::string args = "sweep run -q --max-stage 0 " +
                           vta::shell_quote(std::string(VTA_SOURCE_DIR) + "/sweeps/examples/slides-1m.yaml") +
                           " -j 2 --db " + vta::shell_quote(db);
  for (auto _ : state) {
    state.PauseTiming();
    fresh(db);
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string out = vta(args);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double points = ran(out, 0);
    if (points < 0) state.SkipWithError("vta sweep run failed");
    state.SetIterationTime(secs);
    state.counters["points"] = points;
    state.counters["points_per_s"] = points / secs;
    state.counters["bytes_per_point"] = static_cast<double>(fs::file_size(db)) / points;
    state.counters["peak_rss_mib"] = children_peak_rss_mib();
  }
  state.SetLabel("resnet50");
}

void BM_Stage0(benchmark::State& state) { sweep_stage(state, 0); }
void BM_Stage1(benchmark::State& state) { sweep_stage(state, 1); }
void BM_Stage2(benchmark::State& state) { sweep_stage(state, 2); }

// Stage 0: 288 x 100 = 28 800 designs; stage 1: 288 x 3 (the valid ones);
// stage 2: 288 on ResNet-18.
BENCHMARK(BM_Stage0)->Args({0, 100})->Args({1, 100})->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Stage1)->Args({0, 3})->Args({1, 3})->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Stage2)->Args({0, 1})->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Stage0Slides)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
