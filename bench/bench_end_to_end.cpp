// What a user waits for: the whole `vta run --model NET -b systemc` process
// (building and calibrating the zoo network or reading it from the zoo
// cache, compiling, the SystemC run, the integer reference check, the
// report), forked and executed as from a shell. Cold: an empty cache folder
// each time (the run builds, calibrates and writes the entry); warm: the
// entry is there. Counters: cpu_s, the process's user + system CPU seconds
// (the figure to read on a shared machine; manual time is wall-clock).
// Issue 15 targets: ResNet-18 <= 0.3 s, VGG-16 <= 3 s.
//   VTA_CONFIG_DIR=configs ./build/dev/bench/bench_end_to_end
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Timed {
  double wall = -1, cpu = 0;
};

// `vta ARGS...` with VTA_CACHE_DIR=cache, output discarded.
Timed run_vta(const std::vector<std::string>& args, const fs::path& cache) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("VTA_CACHE_DIR", cache.c_str(), 1);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    std::vector<char*> argv{const_cast<char*>(VTA_EXE)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(VTA_EXE, argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
          secs(ru.ru_utime) + secs(ru.ru_stime)};
}

void BM_Run(benchmark::State& state, const char* net, bool timing_only, bool warm) {
  const fs::path cache = fs::temp_directory_path() / ("vta-bench-e2e-" + std::string(net));
  std::vector<std::string> args{"run", "--model", net, "-b", "systemc"};
  if (timing_only) args.emplace_back("--timing-only");
  fs::remove_all(cache);
  if (warm && run_vta(args, cache).wall < 0) state.SkipWithError("vta run failed");
  double cpu = 0;
  for (auto _ : state) {
    if (!warm) fs::remove_all(cache);
    const Timed t = run_vta(args, cache);
    if (t.wall < 0) state.SkipWithError("vta run failed");
    state.SetIterationTime(t.wall);
    cpu += t.cpu;
  }
  state.counters["cpu_s"] = benchmark::Counter(cpu, benchmark::Counter::kAvgIterations);
  fs::remove_all(cache);
}

}  // namespace

BENCHMARK_CAPTURE(BM_Run, resnet18_cold, "resnet18", false, false)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Run, resnet18_warm, "resnet18", false, true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Run, resnet18_timing_only_cold, "resnet18", true, false)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Run, resnet18_timing_only_warm, "resnet18", true, true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Run, vgg16_cold, "vgg16", false, false)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Run, vgg16_warm, "vgg16", false, true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

BENCHMARK_MAIN();
