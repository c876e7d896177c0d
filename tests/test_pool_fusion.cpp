// Max pools fused into the epilogue of the conv that is their only input
// (fusion.cpp, emit_conv()): bit-exact against the integer reference on the
// golden and SystemC models, race-free, for maps the tile does not divide,
// with the rows above a tile read from the other ACC half; the pool's report
// row is empty; where the rules do not hold the pool keeps its own pass.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "race_free.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/calibrate.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/model/backend.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

// Input -> conv (k x k, stride 1, `relu`) -> max pool (pk, ps, pp), batch
// `n`, `c` channels of h x w. Without ReLU the conv's outputs go negative
// (partition() places a padded max pool on VTA only after a ReLU).
Graph conv_pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, bool relu, int64_t pk, int64_t ps, int64_t pp,
                unsigned seed, bool even = false) {
  std::mt19937 rng(seed);
  auto int8s = [&](size_t len) {
    std::vector<int16_t> v(len);
    for (auto& x : v) x = static_cast<int16_t>(std::uniform_int_distribution<int>(-50, 50)(rng));
    return v;
  };
  Calibrator cal("conv_pool");
  const Shape s{n, 16, h, w};
  const int x = cal.input(s, -7, Tensor{s, int8s(static_cast<size_t>(s.size()))});
  std::vector<int32_t> bias(static_cast<size_t>(c));
  for (auto& b : bias) b = std::uniform_int_distribution<int>(-300, 300)(rng);
  const int y = cal.conv(x, int8s(static_cast<size_t>(c * 16 * k * k)), bias, -7, c, k, 1, k / 2, relu, 1, "conv");
  Graph g = cal.take(cal.max_pool(y, pk, ps, pp, "pool"));
  g.nodes[static_cast<size_t>(y)].round_even = even;  // a scratch tile: the pool runs after the requantization
  return g;
}

int node(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

// Bit-exact on golden and SystemC and race-free; returns the compiled network.
CompiledNetwork expect_exact(const Graph& g, const vta::Config& cfg, const CompileOptions& o, const std::string& what) {
  const Tensor x = zoo_input(g, 3);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  CompiledNetwork net = compile(g, cfg, o);
  vta::test::expect_race_free(net, cfg);
  for (const char* be : {"golden", "systemc"}) {
    auto backend = vta::make_backend(be, cfg);
    EXPECT_EQ(run_network(net, *backend, x).output.data, want.data) << what << " on " << be;
  }
  return net;
}

struct Case {
  int64_t c, h, w, k;
  bool relu;
  int64_t pk, ps, pp;
  bool even;  // half-to-even requantization (not pooled before it)
};

// 3x3 stride 2 pad 1 (ResNet's) and 2x2 stride 2, on odd maps whose height
// no tile divides, with the cost model's tile and with tiles of one stride
// of rows and one channel block (every tile but the top one reads the rows
// above it from the other half); pooled on the accumulators before the
// requantization, and after a half-to-even one.
TEST(PoolFusion, ConvMaxPoolIsExactAndRaceFreeOnThePresets) {
  const Case cases[] = {{40, 23, 19, 3, true, 3, 2, 1, false},
                        {32, 17, 14, 1, true, 3, 2, 1, false},
                        {24, 15, 21, 3, false, 2, 2, 0, false},
                        {40, 21, 13, 3, true, 3, 2, 1, true},
                        {24, 15, 21, 3, false, 2, 2, 0, true}};
  for (const char* name : {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16"}) {
    const vta::Config cfg = preset(name);
    for (const Case& k : cases) {
      // A batch of the config's batch rows: no batch bands, so the pool stays the conv's reader.
      const Graph g = conv_pool(cfg.gemm.batch, k.c, k.h, k.w, k.k, k.relu, k.pk, k.ps, k.pp, 7, k.even);
      const std::string what = fmt::format("{} {}x{}x{} k{} pool {}/{}/{}{}", name, k.c, k.h, k.w, k.k, k.pk, k.ps,
                                           k.pp, k.even ? " even" : "");
      const CompiledNetwork net = expect_exact(g, cfg, {}, what);
      const Graph& cg = net.graph;
      const int conv = node(cg, "conv"), pool = node(cg, "pool");
      ASSERT_EQ(pool_fused_into(cg, pool, cfg), conv) << what;
      EXPECT_EQ(fused_pool(cg, conv, cfg), pool) << what;
      EXPECT_EQ(pool_before_requant(cg.at(conv)), !k.even) << what;
      EXPECT_EQ(net.layers.at(pool).insns, 0u) << what;
      const Tile& t = net.layers.at(conv).tile;
      EXPECT_EQ(t.tw, k.w) << what;
      EXPECT_TRUE(t.th % k.ps == 0 || t.th >= k.h) << what;
      // Forced: two rows, one channel block a tile.
      CompileOptions o;
      o.tiles[net.layers.at(conv).key] = Tile{2, k.w, 1, 1, 0};
      const CompiledNetwork small = expect_exact(g, cfg, o, what + " tile 2 rows");
      EXPECT_EQ(small.layers.at(conv).tile.th, 2) << what;
    }
  }
}

// A forced tile that is not whole rows of a multiple of the stride is
// refused in one message naming the layer, as any tile that does not fit.
TEST(PoolFusion, ForcedTileOfPartRowsIsRefused) {
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = conv_pool(1, 16, 12, 12, 3, true, 3, 2, 1, 2);
  const CompiledNetwork net = compile(g, cfg);
  const int conv = node(net.graph, "conv");
  for (const Tile& bad : {Tile{2, 11, 1, 1, 0}, Tile{3, 12, 1, 1, 0}}) {
    CompileOptions o;
    o.tiles[net.layers.at(conv).key] = bad;
    try {
      (void)compile(g, cfg, o);
      ADD_FAILURE() << "tile " << bad.th << "x" << bad.tw << " accepted";
    } catch (const vta::Error& e) {
      EXPECT_NE(std::string(e.what()).find("layer conv: the forced tile"), std::string::npos) << e.what();
    }
  }
}

// ResNet-18's stem pool runs in the stem's epilogue on the batch-1 presets:
// its row reads 0 cycles, the network stays bit-exact and race-free, and the
// cost model follows the fused layer within the worst-case target (10 % per layer).
TEST(PoolFusion, ResNet18StemPoolIsFusedAndItsRowIsEmpty) {
  const Graph g = build_zoo("resnet18");
  const Tensor x = zoo_input(g, 3);
  for (const char* name : {"vta-1x16x16", "vta-1x32x32"}) {
    const vta::Config cfg = preset(name);
    const CompiledNetwork net = compile(g, cfg);
    vta::test::expect_race_free(net, cfg);
    const int pool = node(net.graph, "maxpool1"), conv = node(net.graph, "conv1");
    ASSERT_EQ(pool_fused_into(net.graph, pool, cfg), conv) << name;
    const std::vector<int16_t> want = run_graph(g, x)[static_cast<size_t>(g.output)].data;
    auto golden = vta::make_backend("golden", cfg);
    EXPECT_EQ(run_network(net, *golden, x).output.data, want) << name << " on golden";
    auto backend = vta::make_backend("systemc", cfg);
    const NetworkResult res = run_network(net, *backend, x);
    EXPECT_EQ(res.output.data, want) << name;
    const Report r = make_report(net, res, cfg, "systemc");
    bool seen_pool = false, seen_conv = false;
    for (const auto& row : r.rows) {
      if (row.layer == "maxpool1") {
        seen_pool = true;
        EXPECT_EQ(row.cycles, 0u) << name;
      }
      if (row.layer == "conv1") {
        seen_conv = true;
        EXPECT_GT(row.cycles, 0u) << name;
        EXPECT_LE(std::abs(row.est_err_pct), 10.0) << name;
      }
    }
    EXPECT_TRUE(seen_pool && seen_conv) << name;
  }
}

// Not fused: a pool whose conv another node reads, a pool of stride 1, a
// 3x3 stride 2 pool without padding (its windows overlap two rows above a
// tile of whole strides); each stays exact with its own pass.
TEST(PoolFusion, PoolsOutsideTheRulesKeepTheirPass) {
  const vta::Config cfg = preset("vta-1x16x16");
  {
    const Graph g = conv_pool(1, 16, 12, 12, 3, true, 3, 1, 1, 3);
    EXPECT_EQ(pool_fused_into(g, node(g, "pool"), cfg), -1);
    expect_exact(g, cfg, {}, "stride 1");
  }
  {
    const Graph g = conv_pool(1, 16, 13, 13, 3, true, 3, 2, 0, 4);
    EXPECT_EQ(pool_fused_into(g, node(g, "pool"), cfg), -1);
    expect_exact(g, cfg, {}, "3x3 stride 2 pad 0");
  }
  {
    std::mt19937 rng(9);
    Calibrator cal("shared");
    const Shape s{1, 16, 10, 10};
    std::vector<int16_t> v(static_cast<size_t>(s.size()));
    for (auto& e : v) e = static_cast<int16_t>(std::uniform_int_distribution<int>(-40, 40)(rng));
    const int x = cal.input(s, -7, Tensor{s, v});
    std::vector<int16_t> w(16 * 16 * 9, 3);
    const int y = cal.conv(x, w, std::vector<int32_t>(16, 1), -7, 16, 3, 1, 1, true, 1, "conv");
    const int p = cal.max_pool(y, 3, 2, 1, "pool");
    const int q = cal.max_pool(y, 2, 2, 0, "other");
    const Graph g = cal.take(cal.add(p, q, false));
    EXPECT_EQ(pool_fused_into(g, node(g, "pool"), cfg), -1);
    EXPECT_EQ(fused_pool(g, node(g, "conv"), cfg), -1);
    expect_exact(g, cfg, {}, "shared conv");
  }
}

// With alu.concurrent a max pool that keeps its own pass loads its input
// bands as INP elements and copies them into ACC by an identity GEMM
// (pool_by_gemm()): 3x3 stride 2 without padding (never fused) on the three
// presets, and with padding 1 where it is not fused (vta-4x16x16's batch
// bands), over six or three channel blocks (every ACC half is used by
// three bands or more); exact on golden and SystemC and race-free.
TEST(PoolFusion, UnfusedMaxPoolCopiesItsBandsByGemmWithTheKnob) {
  int by_gemm = 0;
  for (const char* name : {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16"}) {
    const vta::Config cfg = preset(name, {{"alu.concurrent", "true"}});
    for (const int64_t pp : {0, 1}) {
      const Graph g = conv_pool(1, 96, 23, 19, 3, true, 3, 2, pp, static_cast<unsigned>(11 + pp));
      const std::string what = fmt::format("{} pad {}", name, pp);
      const CompiledNetwork net = expect_exact(g, cfg, {}, what);
      const int p = node(net.graph, "pool");
      ASSERT_GE(p, 0) << what;
      if (pool_fused_into(net.graph, p, cfg) >= 0) continue;  // vta-1x16x16, vta-1x32x32 with padding
      EXPECT_TRUE(pool_by_gemm(net.graph.at(p), cfg)) << what;
      EXPECT_FALSE(pool_by_gemm(net.graph.at(p), preset(name))) << what;
      ++by_gemm;
    }
  }
  EXPECT_EQ(by_gemm, 4);  // pad 0 on every preset, pad 1 on vta-4x16x16
}

// The pool runs before the requantization only where no step can leave 32
// bits: not with a bias near the int32 limit, nor with a MUL that can overflow.
TEST(PoolFusion, PoolBeforeRequantNeedsStepsThatStayIn32Bits) {
  Graph g = conv_pool(1, 16, 8, 8, 3, true, 3, 2, 1, 5);
  const int conv = node(g, "conv");
  Node n = g.at(conv);
  EXPECT_TRUE(pool_before_requant(n));
  n.bias.assign(static_cast<size_t>(n.out.c), 2147000000);
  EXPECT_FALSE(pool_before_requant(n));
  Node m = g.at(conv);
  m.vta_rq = VtaRequant{0, 32767, 4};
  EXPECT_FALSE(pool_before_requant(m));
}

}  // namespace
