// The race checker's cost on the golden model (vta/model/race.h): a compiled
// ResNet-18 run end to end with the check (the default) and without it
// (--no-race-check), and check_races alone (no tensors computed).
#include <benchmark/benchmark.h>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/runtime.h"
#include "vta/model/race.h"

namespace {

using namespace vta::compiler;

struct Net {
  vta::Config cfg;
  Graph graph;
  Tensor input;
  CompiledNetwork net;
};

const Net& resnet18() {
  static const Net n = [] {
    Net x{vta::test::preset("vta-1x16x16"), build_zoo("resnet18"), {}, {}};
    x.input = zoo_input(x.graph, 7);
    x.net = compile(x.graph, x.cfg);
    return x;
  }();
  return n;
}

// state.range(0): 1 with the race check, 0 without.
void BM_GoldenResNet18(benchmark::State& state) {
  const Net& n = resnet18();
  vta::BackendOptions o;
  o.skip_race_check = state.range(0) == 0;
  for (auto _ : state) {
    auto backend = vta::make_backend("golden", n.cfg, o);
    benchmark::DoNotOptimize(run_network(n.net, *backend, n.input));
  }
}

void BM_CheckRacesResNet18(benchmark::State& state) {
  const Net& n = resnet18();
  vta::Dram dram(static_cast<uint64_t>(n.cfg.memory.dram_size));
  for (const auto& b : n.net.buffers) {
    dram.alloc(b.bytes);
    if (!b.init.empty()) dram.write(b.addr, b.init);
  }
  for (auto _ : state)
    for (const auto& seg : n.net.segments)
      vta::model::check_races(
          n.cfg, dram,
          vta::Launch{n.net.buffers[static_cast<size_t>(seg.insn_buffer)].addr, seg.insn_count, seg.regions});
}

BENCHMARK(BM_GoldenResNet18)->ArgName("race_check")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckRacesResNet18)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
