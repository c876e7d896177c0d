// How close each search strategy gets to the exact Pareto front of the
// slides' knobs, against the number of designs it evaluates: the grid
// evaluates every point (its front is exact), random samples and evolve
// generations evaluate a share. Each run is the whole `vta sweep run
// --max-stage 1` command on a fresh store (ResNet-18 on the ZCU104's
// xczu7ev with its DDR4; GEMM shape, ALU lanes, pipeline depth, clock, INP
// buffer and bus width), then the stage-1 front's hypervolume (objectives
// time_ms and gops_per_dsp, sweeps/pareto.h) up to the worst value of each
// objective over the grid's valid points. Counters: evaluated (design
// points run at stage 1), hv_pct (the hypervolume as a percentage of the
// grid's), front (points on the run's front).
//   VTA_CONFIG_DIR=configs ./build/ci/bench/bench_search
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "vta/isa/shell_quote.h"
#include "vta/sweeps/pareto.h"
#include "vta/sweeps/spec.h"
#include "vta/sweeps/stages.h"
#include "vta/sweeps/store.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::sweeps;
using vta::shell_quote;

const fs::path& dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / "vta-bench-search";
    fs::create_directories(p);
    return p;
  }();
  return d;
}

// The space (3 shapes x 3 lane counts x 10 depths x 3 clocks x 3 INP sizes x 2 bus widths = 1 620 points).
std::string spec(const std::string& name, const std::string& strategy) {
  const fs::path f = dir() / (name + ".yaml");
  std::ofstream(f) << "name: " << name << "\nbase: vta-1x16x16\ndevice: xczu7ev\n"
                   << "set:\n  memory.dram: ddr4-2400\naxes:\n"
                   << "  - zip:\n      gemm.batch: [1, 1, 4]\n      gemm.block_in: [16, 32, 16]\n"
                   << "      gemm.block_out: [16, 32, 16]\n      buffers.wgt: [256KiB, 1MiB, 256KiB]\n"
                   << "      buffers.acc: [128KiB, 256KiB, 512KiB]\n"
                   << "  - knob: alu.lanes\n    values: [8, 16, 32]\n"
                   << "  - knob: gemm.pipeline_depth\n    range: {from: 4, to: 13}\n"
                   << "  - knob: clock.mhz\n    values: [250, 300, 333]\n"
                   << "  - knob: buffers.inp\n    values: [32KiB, 64KiB, 128KiB]\n"
                   << "  - knob: memory.bus_bits\n    values: [64, 128]\n"
                   << "constraints:\n  - \"buffers.inp + buffers.wgt + buffers.acc + buffers.uop <= 2MiB\"\n"
                   << "networks: [resnet18]\nobjectives:\n  - minimize: time_ms\n  - maximize: gops_per_dsp\n"
                   << "strategy: " << strategy << "\n";
  return f.string();
}

struct Front {
  std::vector<std::vector<double>> rows;  // oriented stage-1 objectives of the valid points
  double seconds = -1;
};

Front run(const std::string& name, const std::string& strategy) {
  const std::string s = spec(name, strategy), db = (dir() / (name + ".db")).string();
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db + ext);
  const auto t0 = std::chrono::steady_clock::now();
  // Every path quoted for the shell: TMPDIR or the build folder may hold spaces or quotes.
  const std::string cmd = shell_quote(VTA_EXE) + " sweep run -q --max-stage 1 " + shell_quote(s) + " --db " +
                          shell_quote(db) + " > " + shell_quote((dir() / (name + ".log")).string()) + " 2>&1";
  Front f;
  if (std::system(cmd.c_str()) != 0) return f;
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const SweepSpec sp = load_spec(s);
  for (const auto& p : Store(db, false).load(false))
    if (auto it = p.stages.find(kStageAnalytic); it != p.stages.end() && it->second.status == "ok")
      f.rows.push_back(oriented(it->second.metrics, sp.objectives));
  return f;
}

// The grid's front and the reference point, once.
struct Exact {
  std::vector<double> ref;
  double hv = 0;
  size_t evaluated = 0;
};
const Exact& exact() {
  static const Exact e = [] {
    Exact x;
    const Front g = run("grid", "{kind: grid}");
    if (g.rows.empty()) return x;
    x.ref.assign(g.rows[0].size(), -INFINITY);
    for (const auto& r : g.rows)
      for (size_t k = 0; k < r.size(); ++k) x.ref[k] = std::max(x.ref[k], r[k]);
    for (auto& v : x.ref) v += std::abs(v) * 1e-3 + 1e-12;  // the worst points still count a sliver
    x.hv = hypervolume(g.rows, x.ref);
    x.evaluated = g.rows.size();
    return x;
  }();
  return e;
}

void report(benchmark::State& state, const Front& f) {
  const Exact& e = exact();
  if (f.seconds < 0 || e.hv <= 0) {
    state.SkipWithError("vta sweep run failed (see the log in the temporary folder vta-bench-search)");
    return;
  }
  state.SetIterationTime(f.seconds);
  state.counters["evaluated"] = static_cast<double>(f.rows.size());
  state.counters["hv_pct"] = 100.0 * hypervolume(f.rows, e.ref) / e.hv;
  state.counters["front"] = static_cast<double>(pareto_front(f.rows).size());
}

void BM_Grid(benchmark::State& state) {
  for (auto _ : state) report(state, run("grid", "{kind: grid}"));
}
BENCHMARK(BM_Grid)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

void BM_Random(benchmark::State& state) {
  const std::string strategy = "{kind: random, samples: " + std::to_string(state.range(0)) + ", seed: 1}";
  for (auto _ : state) report(state, run("random" + std::to_string(state.range(0)), strategy));
}
BENCHMARK(BM_Random)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(400)
    ->Arg(800)
    ->UseManualTime()
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

void BM_Evolve(benchmark::State& state) {
  const std::string strategy =
      "{kind: evolve, population: 40, generations: " + std::to_string(state.range(0)) + ", seed: 1}";
  for (auto _ : state) report(state, run("evolve" + std::to_string(state.range(0)), strategy));
}
BENCHMARK(BM_Evolve)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->UseManualTime()->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
