// The tile search's memo (tile_search.h): choose_tile() keys a layer's tile
// by the layer's shape and search_knobs(), the knobs the search reads, not
// by the whole config's hash, so that designs differing only in knobs the
// search does not read share the search. These tests change each knob of
// config_knobs.def in turn (the table, not a list written here) and check
// that a change the key does not see changes no layer's tiles, and that a
// tile from the memo equals a fresh search's.
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/frontend/zoo_cache.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/tile_search.h"

namespace {

using namespace vta;
using namespace vta::compiler;
using vta::test::preset;

// Base designs: the preset as it is (its board's DRAM) and at a fixed-latency port.
std::vector<std::pair<std::string, std::vector<Override>>> bases() {
  return {{"vta-1x16x16", {}}, {"vta-1x16x16", {{"memory.dram", "fixed"}}}};
}

// Other values of knob `k` to try (those the loader refuses are skipped).
std::vector<std::string> other_values(const KnobInfo& k, const Config& c) {
  const std::string now = knob_value_text(c, k);
  std::vector<std::string> out;
  switch (k.kind) {
    case KnobKind::INT:
    case KnobKind::POW2:
    case KnobKind::SIZE: {
      const auto v = std::get<int64_t*>(k.ref(const_cast<Config&>(c)));
      for (int64_t x : {*v * 2, *v / 2, *v + 1, *v - 1, static_cast<int64_t>(k.min), static_cast<int64_t>(k.max)})
        out.push_back(std::to_string(x));
      break;
    }
    case KnobKind::REAL: {
      const auto v = std::get<double*>(k.ref(const_cast<Config&>(c)));
      for (double x : {*v * 1.5, *v * 0.5, *v + 1.0}) out.push_back(fmt::format("{}", x));
      break;
    }
    case KnobKind::BOOL:
      out.push_back(now == "true" ? "false" : "true");
      break;
    case KnobKind::ENUM: {
      std::string choices = k.choices;
      for (size_t at = 0; at <= choices.size();) {
        const size_t bar = std::min(choices.find('|', at), choices.size());
        out.push_back(choices.substr(at, bar - at));
        at = bar + 1;
      }
      break;
    }
    case KnobKind::STR:
      out.push_back(k.key() == "memory.dram_mapping" ? "ro.ba.ra.bg.ch.co" : "other");
      break;
  }
  std::erase(out, now);
  return out;
}

// The conv/dense layers of a network after the graph passes, with what each fuses.
struct Layer {
  const Node* node;
  Shape in;
  const Node* fused;
};
std::vector<Layer> layers_of(const Graph& g, const Config& c) {
  std::vector<Layer> out;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.device != Device::Vta || (n.op != Op::Conv2d && n.op != Op::Dense)) continue;
    const int f = fused_epilogue(g, static_cast<int>(i), c);
    out.push_back({&n, g.at(n.inputs[0]).out, f >= 0 ? &g.at(f) : nullptr});
  }
  return out;
}

// Small networks whose layers have every kind of epilogue: fused residual
// adds and a fused max pool (ResNet-18), depthwise convs and a dense layer (MobileNet-v1).
const std::vector<Graph>& networks() {
  static const std::vector<Graph> nets = [] {
    std::vector<Graph> v;
    for (const char* name : {"resnet18", "mobilenet_v1"}) {
      ZooOptions o;
      o.image = 64;
      v.push_back(zoo_run(name, o, kAnyConfig, false).graph);
    }
    return v;
  }();
  return nets;
}

bool same(const std::vector<Tile>& a, const std::vector<Tile>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].th != b[i].th || a[i].tw != b[i].tw || a[i].toc != b[i].toc || a[i].tic != b[i].tic ||
        a[i].est_cycles != b[i].est_cycles)
      return false;
  return true;
}

// Every legal design one knob of the table away from a base: calls
// f(base, its graphs after the passes, the design, "knob=value").
template <class F>
void for_each_neighbour(F f) {
  for (const auto& [name, set] : bases()) {
    const Config base = preset(name, set);
    std::vector<Graph> graphs;
    for (const Graph& g : networks()) graphs.push_back(run_graph_passes(g, base));
    for (const KnobInfo& k : knobs())
      for (const std::string& value : other_values(k, base)) {
        std::vector<Override> o = set;
        o.emplace_back(k.key(), value);
        Config c;
        try {
          c = preset(name, o);
        } catch (const Error&) {
          continue;  // not a legal design
        }
        f(base, graphs, c, k.key() + "=" + value);
      }
  }
}

// Every knob of the table: where a change leaves search_knobs() as it was,
// every layer's best three tiles, and their cycles, stay as they were.
TEST(TileMemo, AKnobTheKeyLeavesOutChangesNoTile) {
  int left_out = 0, tried = 0;
  for_each_neighbour([&](const Config& base, const std::vector<Graph>& graphs, const Config& c,
                         const std::string& what) {
    ++tried;
    if (search_knobs(c) != search_knobs(base)) return;
    ++left_out;
    for (const Graph& g : graphs)
      for (const Layer& l : layers_of(g, base)) {
        std::vector<Tile> want, got;
        try {
          want = tile_candidates(*l.node, l.in, base, l.fused, 3);
        } catch (const Error&) {
          continue;  // no tile fits the base
        }
        EXPECT_NO_THROW(got = tile_candidates(*l.node, l.in, c, l.fused, 3)) << what;
        EXPECT_TRUE(same(want, got)) << what << " changes the tiles of " << l.node->name << " but not search_knobs()";
      }
  });
  EXPECT_GT(tried, 100);    // most knobs have legal other values
  EXPECT_GT(left_out, 10);  // the host's and OpenCL's knobs, the clock at a fixed port
}

// The same for the graph passes (graph_pass_knobs(), the key of the graph a
// sweep's stage 1 keeps): a change of a knob that key leaves out (the clock,
// the memory system, the pipeline depth) leaves every network's graph as the
// passes made it on the base.
TEST(TileMemo, AKnobTheGraphPassKeyLeavesOutChangesNoGraph) {
  int left_out = 0;
  for_each_neighbour([&](const Config& base, const std::vector<Graph>& graphs, Config c, const std::string& what) {
    if (graph_pass_knobs(c) != graph_pass_knobs(base)) return;
    ++left_out;
    c.name = base.name;  // a host node's reason names the config
    for (size_t i = 0; i < graphs.size(); ++i)
      EXPECT_TRUE(run_graph_passes(networks()[i], c) == graphs[i])
          << what << " changes the graph but not graph_pass_knobs()";
  });
  EXPECT_GT(left_out, 20);  // the clock's, the memory system's, the depth's
}

// The memo's tile equals a fresh search's, also where it was stored by
// another design (the same search knobs at another clock, another host).
TEST(TileMemo, AMemoisedTileIsTheSearchsOwn) {
  for (const char* dram : {"fixed", "ddr4-2400"})
    for (const char* mhz : {"100", "250", "333"})
      for (const char* bus : {"64", "128"}) {
        const Config c = preset(
            "vta-1x16x16", {{"memory.dram", dram}, {"clock.mhz", mhz}, {"memory.bus_bits", bus}, {"host.op_ns", mhz}});
        for (const Graph& net : networks()) {
          const Graph g = run_graph_passes(net, c);
          for (const Layer& l : layers_of(g, c)) {
            const Tile memo = choose_tile(*l.node, l.in, c, l.fused);
            const Tile fresh = tile_candidates(*l.node, l.in, c, l.fused, 1).front();
            EXPECT_TRUE(same({memo}, {fresh})) << dram << " " << mhz << " MHz " << bus << " bits " << l.node->name;
          }
        }
      }
}

// At each depth, in this order, with the knob off and on: choose_tile()'s
// tile of every layer (from the memo, the kept bounds or the depth lanes)
// is the one timing every candidate with no bound at all picks.
void expect_every_candidates_tile(const std::vector<const char*>& depths,
                                  const std::vector<std::pair<std::string, std::string>>& memory = {}) {
  for (const char* concurrent : {"false", "true"})
    for (const char* depth : depths) {
      std::vector<std::pair<std::string, std::string>> knobs = memory;
      knobs.insert(knobs.end(), {{"gemm.pipeline_depth", depth}, {"alu.concurrent", concurrent}});
      const Config c = preset("vta-1x16x16", knobs);
      for (const Graph& net : networks()) {
        const Graph g = run_graph_passes(net, c);
        for (const Layer& l : layers_of(g, c)) {
          const Tile chosen = choose_tile(*l.node, l.in, c, l.fused);
          const Tile every = tile_candidates(*l.node, l.in, c, l.fused, 1 << 20).front();
          EXPECT_TRUE(same({chosen}, {every}))
              << "depth " << depth << " concurrent " << concurrent << " " << l.node->name;
        }
      }
    }
}

// The search's bounds are kept across designs that differ only in the GEMM
// pipeline depth (each side of a bound is affine in it): visited deepest
// last, each depth's tile is still the one a search without any memo picks,
// and every candidate timed (no bound at all), with the epilogues serial and
// beside the GEMMs (alu.concurrent: the bound then counts the GEMM pipe
// alone).
TEST(TileMemo, BoundsKeptAcrossDepthsPickTheSearchsTile) { expect_every_candidates_tile({"4", "9", "17"}); }

// The floors under the bounds are kept across designs that differ only in
// the memory knobs and the clock (each bound at least its floor at the
// fastest memory): visited in turn, every design's tile is still the one
// timing every candidate picks.
TEST(TileMemo, FloorsKeptAcrossMemoryKnobsPickTheSearchsTile) {
  for (const auto& memory : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"memory.dram", "ddr4-2400"}, {"clock.mhz", "200"}, {"memory.bus_bits", "64"}},
           {{"memory.dram", "ddr4-2400"}, {"clock.mhz", "375"}, {"memory.bus_bits", "256"}},
           {{"memory.dram", "lpddr4-3200"}, {"clock.mhz", "300"}, {"memory.bus_bits", "128"}},
           {{"memory.read_latency", "200"}, {"memory.bus_bits", "32"}}})
    expect_every_candidates_tile({"9"}, memory);
}

// set_search_clocks(): the bounds at a sweep's lowest clock are floors under
// those of its designs at higher clocks with a DRAM preset. Visited highest
// clock first and in turn, every design's tile is still the one timing
// every candidate picks.
TEST(TileMemo, ClockFloorsPickTheSearchsTile) {
  set_search_clocks({375, 200, 250});
  for (const char* mhz : {"375", "250", "200"})
    expect_every_candidates_tile({"9"}, {{"memory.dram", "ddr4-2400"}, {"clock.mhz", mhz}, {"memory.bus_bits", "64"}});
  set_search_clocks({});
}

// reuses_weights(): in a layer of two output channel groups of one step
// each, the two WGT halves hold one group's weights each, so no step after
// the first position loads its weights. The bound must not count them: it
// did, above the timeline, and MobileNet-v1's 28x28 layers on 1x32x32 then
// got a tile 0.9 % slower than the best (the network 2 857 649 cycles, not
// 2 833 166), and which one depended on the designs searched before.
TEST(TileMemo, WeightsHeldInBothHalvesAreNotBounded) {
  const Config c = preset("vta-1x16x16", {{"gemm.block_in", "32"},
                                          {"gemm.block_out", "32"},
                                          {"alu.concurrent", "true"},
                                          {"buffers.acc", "256KiB"},
                                          {"gemm.pipeline_depth", "11"},
                                          {"memory.dram", "fixed"},
                                          {"memory.bus_bits", "64"}});
  const Graph g = run_graph_passes(zoo_run("mobilenet_v1", ZooOptions{}, kAnyConfig, false).graph, c);
  for (const Layer& l : layers_of(g, c)) {
    if (l.in.h != 28) continue;
    const Tile every = tile_candidates(*l.node, l.in, c, l.fused, 1 << 20).front();
    EXPECT_TRUE(same({choose_tile(*l.node, l.in, c, l.fused)}, {every})) << l.node->name;
  }
}

// set_search_depths(): a memo miss at one of a sweep's depths searches the
// depths of its run of four (lanes.h) at once and memoises each. Every
// depth's tile, from the lanes or the memo they filled, must be the one
// timing every candidate at that depth alone picks.
TEST(TileMemo, DepthLanesPickEachDepthsOwnTile) {
  set_search_depths({5, 6, 7, 13, 14});  // runs: 5 6 7 13, then 14 alone (its lanes repeat it)
  expect_every_candidates_tile({"6", "5", "13", "7", "14"});
  set_search_depths({});
}

// What the memo buys: at a fixed-latency port the clock is not a search knob.
TEST(TileMemo, TheClockIsASearchKnobOnlyWithADramPreset) {
  auto key = [&](const char* dram, const char* mhz) {
    return search_knobs(preset("vta-1x16x16", {{"memory.dram", dram}, {"clock.mhz", mhz}}));
  };
  EXPECT_EQ(key("fixed", "100"), key("fixed", "300"));
  EXPECT_NE(key("ddr4-2400", "100"), key("ddr4-2400", "300"));
  EXPECT_NE(key("fixed", "100"), key("ddr4-2400", "100"));
}

}  // namespace
