// Schedule tuning on the SystemC cycle model (sweeps/tune.h): the tuned tile
// of a layer is never slower than the cost model's pick (measured), the
// tuned network stays bit-exact, the cache file answers a second tuning
// without a single SystemC run, and a damaged cache file is an error that
// names it (CompileOptions::tiles is the compiler's only hook).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/error.h"
#include "vta/sweeps/tune.h"

namespace {

using namespace vta::compiler;
using vta::sweeps::tune_network;
using vta::sweeps::TuneResult;
using vta::test::preset;
namespace fs = std::filesystem;

std::string temp_cache(const std::string& name) {
  const fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "tune";
  fs::create_directories(dir);
  fs::remove(dir / name);
  return (dir / name).string();
}

struct Net {
  Graph g;
  Tensor input;
};
Net zoo_net(const std::string& name) {
  Net x;
  x.g = build_zoo(name);
  x.input = zoo_input(x.g, 1001);
  return x;
}
const Net& resnet18() {
  static const Net n = zoo_net("resnet18");
  return n;
}

// Region cycles of each node of a timing-only SystemC run of `net`.
std::map<int, uint64_t> region_cycles(const CompiledNetwork& net, const vta::Config& c, const Tensor& in) {
  vta::BackendOptions bo;
  bo.timing_only = true;
  auto backend = vta::make_backend("systemc", c, bo);
  std::map<int, uint64_t> cycles;
  for (const LayerResult& l : run_network(net, *backend, in).layers)
    if (l.stats.has("cycles.total")) cycles[l.node] = l.stats.get("cycles.total");
  return cycles;
}

// MobileNet-v1 on vta-1x16x16 with the fixed port: one layer (conv25)
// measures more than kTuneMargin faster with its second candidate (with the
// board's DDR3 the cost model's pick is already the fastest on every layer);
// on ResNet-18 no candidate beats the model's pick by the margin on any preset.
TEST(Tune, NeverSlowerThanTheModelsPickAndBitExact) {
  const vta::Config cfg = preset("vta-1x16x16", {{"memory.dram", "fixed"}});
  static const Net n = zoo_net("mobilenet_v1");
  const TuneResult r = tune_network(n.g, cfg, 4, n.input, temp_cache("never-slower.json"));
  // One SystemC run per rank, the cost model's pick (rank 0) among them.
  EXPECT_EQ(r.systemc_runs, 4);
  EXPECT_EQ(r.from_cache, 0);
  ASSERT_GE(r.layers.size(), 10U);
  int changed = 0;
  for (const auto& t : r.layers) {
    ASSERT_EQ(t.candidates.size(), t.measured.size()) << t.layer;
    EXPECT_LE(t.measured[t.best()], t.measured[0]) << t.layer;
    if (t.best() != 0) {
      EXPECT_LE(t.measured[t.best()] + vta::sweeps::kTuneMargin, t.measured[0]) << t.layer;
    }
    // The candidates come cheapest estimate first, the first the model's pick.
    for (size_t i = 1; i < t.candidates.size(); ++i)
      EXPECT_LE(t.candidates[i - 1].est_cycles, t.candidates[i].est_cycles) << t.layer;
    changed += t.best() != 0;
  }
  EXPECT_GT(changed, 0) << "the measurement found no better tile on any layer: the test proves nothing";
  // The tuned network: the forced tiles are used, every retiled layer
  // measures no slower than the model's pick, the network is faster, and the
  // output is bit-exact on the golden and SystemC backends.
  CompileOptions o;
  o.tiles = r.tiles;
  const CompiledNetwork tuned = compile(n.g, cfg, o), model = compile(n.g, cfg);
  const auto tuned_cycles = region_cycles(tuned, cfg, n.input), model_cycles = region_cycles(model, cfg, n.input);
  uint64_t tuned_total = 0, model_total = 0;
  for (const auto& [id, info] : tuned.layers) {
    if (info.key.empty()) continue;
    const std::string& key = info.key;  // clang 14 cannot capture a structured binding
    const auto& t = *std::find_if(r.layers.begin(), r.layers.end(), [&](const auto& x) { return x.key == key; });
    EXPECT_EQ(info.tile.th, t.candidates[t.best()].th);
    EXPECT_EQ(info.tile.tic, t.candidates[t.best()].tic);
    EXPECT_EQ(info.model.tw, t.candidates[0].tw);
    // A retiled layer is no slower, and one left alone no different, but for
    // what the other layers' tiles change around it: their uop buffers shift
    // the DRAM addresses, and their tails overlap its head (measured: up to
    // 256 cycles a layer on ResNet-18, 0.05 % to 0.7 % of it).
    const auto a = static_cast<double>(tuned_cycles.at(id)), b = static_cast<double>(model_cycles.at(id));
    constexpr double kContext = 512;
    if (t.best() != 0)
      EXPECT_LE(a, b + kContext) << tuned.graph.at(id).name;
    else
      EXPECT_NEAR(a, b, kContext) << tuned.graph.at(id).name;
    tuned_total += tuned_cycles.at(id), model_total += model_cycles.at(id);
  }
  EXPECT_LT(tuned_total, model_total);
  const Tensor want = run_graph(n.g, n.input)[static_cast<size_t>(n.g.output)];
  for (const char* b : {"golden", "systemc"}) {
    auto backend = vta::make_backend(b, cfg);
    EXPECT_EQ(run_network(tuned, *backend, n.input).output.data, want.data) << b;
  }
}

TEST(Tune, CacheAnswersASecondTuningWithoutSystemCRuns) {
  const vta::Config cfg = preset("vta-1x32x32");
  const Net& n = resnet18();
  const std::string cache = temp_cache("reuse.json");
  const TuneResult first = tune_network(n.g, cfg, 3, n.input, cache);
  EXPECT_EQ(first.systemc_runs, 3);
  ASSERT_TRUE(fs::exists(cache));
  const TuneResult again = tune_network(n.g, cfg, 3, n.input, cache);
  EXPECT_EQ(again.systemc_runs, 0);
  EXPECT_EQ(again.from_cache, static_cast<int>(again.layers.size()));
  ASSERT_EQ(again.tiles.size(), first.tiles.size());
  for (const auto& [key, t] : first.tiles) {
    EXPECT_EQ(again.tiles.at(key).th, t.th) << key;
    EXPECT_EQ(again.tiles.at(key).tw, t.tw) << key;
  }
  // Fewer candidates: the first ones of the entry, still no run; more: measured again.
  EXPECT_EQ(tune_network(n.g, cfg, 2, n.input, cache).systemc_runs, 0);
  EXPECT_GT(tune_network(n.g, cfg, 4, n.input, cache).systemc_runs, 0);
  // Another config: other keys, measured.
  EXPECT_GT(tune_network(n.g, preset("vta-1x16x16"), 2, n.input, cache).systemc_runs, 0);
}

TEST(Tune, DamagedCacheIsAnErrorNamingIt) {
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = build_zoo("conv:32,14,14,32,3,1,1");
  const Tensor in = zoo_input(g, 1);
  for (const std::string& text : {std::string("{\"format\": 1, \"layers\": {\"k\": {\"asked\": 2}}}"),
                                  std::string("not json at all"), std::string("{\"format\": 1, \"lay")}) {
    const std::string cache = temp_cache("damaged.json");
    std::ofstream(cache) << text;
    try {
      tune_network(g, cfg, 2, in, cache);
      ADD_FAILURE() << "no error for " << text;
    } catch (const vta::Error& e) {
      EXPECT_NE(std::string(e.what()).find("tuning cache " + cache + ": not a valid tuning cache"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("delete it"), std::string::npos) << e.what();
    }
  }
  // Another format version's file is replaced, not an error.
  const std::string cache = temp_cache("old-format.json");
  std::ofstream(cache) << "{\"format\": 0, \"whatever\": []}";
  EXPECT_EQ(tune_network(g, cfg, 2, in, cache).systemc_runs, 2);
  std::ifstream f(cache);
  EXPECT_EQ(nlohmann::json::parse(f).at("format").get<int>(), vta::sweeps::kTuneFormat);
}

TEST(Tune, ForcedTileThatDoesNotFitIsAnErrorNamingTheLayer) {
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = build_zoo("conv:32,14,14,32,3,1,1");
  const CompiledNetwork net = compile(g, cfg);
  ASSERT_EQ(net.layers.size(), 1U);
  const auto& [id, info] = *net.layers.begin();
  CompileOptions o;
  o.tiles[info.key] = Tile{14, 14, 2, 9, 0};  // 9 input blocks of a layer of 2
  try {
    compile(g, cfg, o);
    ADD_FAILURE() << "no error";
  } catch (const vta::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("layer " + net.graph.at(id).name + ": the forced tile 14x14 oc2 ic9 does not fit"),
        std::string::npos)
        << e.what();
  }
  // A key of another config is not this layer's: ignored.
  CompileOptions other;
  other.tiles[info.key + "x"] = Tile{1, 1, 1, 1, 0};
  EXPECT_EQ(compile(g, cfg, other).layers.at(id).tile.tw, info.tile.tw);
}

}  // namespace
