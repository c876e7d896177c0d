// The tile search without divisor limits: tile widths and
// input-channel steps that do not divide their layer, with remainder tiles
// (tile_classes(), conv_banks()). The search picks such a tile where the
// cost model says it is cheaper than every divisor tile; programs with
// remainder tiles in every conv of a network (fused residual adds, the
// im2col stem, strided 1x1 convs, dense) stay bit-exact on the golden and
// SystemC backends and pass the race checker.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "race_free.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/passes/band_rows.h"
#include "vta/compiler/passes/pack_stem.h"
#include "vta/compiler/passes/partition.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/tile_search.h"
#include "vta/model/program.h"
#include "vta/model/race.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

// The cheapest tile whose width divides wo and whose step divides cib (the
// search had before it dropped that limit), th the largest that fits, balanced.
Tile best_divisor_tile(const ConvGeom& g, const vta::Config& c, int requant_ops) {
  Tile best;
  best.est_cycles = -1;
  for (int64_t tic = 1; tic <= g.cib; ++tic)
    for (int64_t toc = 1; toc <= g.cob; ++toc)
      for (int64_t tw = 1; tw <= g.wo; ++tw) {
        if (g.cib % tic != 0 || g.wo % tw != 0) continue;
        Tile t{1, tw, toc, tic, 0};
        if (!tile_fits(g, t, c)) continue;
        while (t.th < g.ho && tile_fits(g, Tile{t.th + 1, tw, toc, tic, 0}, c)) ++t.th;
        const int64_t n = (g.ho + t.th - 1) / t.th;
        t.th = (g.ho + n - 1) / n;
        t.est_cycles = tile_cost(g, t, c, requant_ops);
        if (best.est_cycles < 0 || t.est_cycles < best.est_cycles) best = t;
      }
  return best;
}

// The single conv/dense node of a zoo layer spec.
const Node& only_layer(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op == Op::Conv2d || n.op == Op::Dense) return n;
  throw std::runtime_error("no conv or dense node");
}

// compile() with the tile of every conv/dense node replaced by `tile`
// (run on a one-layer network).
CompiledNetwork compile_with_tile(const Graph& g, const vta::Config& cfg, const Tile& tile) {
  CompiledNetwork net;
  net.config_hash = cfg.hash();
  net.graph = partition(band_rows(pack_stem(g, cfg), cfg), cfg);
  net = tiling_pass(segments_pass(layout_pass(std::move(net), cfg, {}), cfg, {}), cfg, {});
  for (auto& [id, info] : net.layers) info.tile = tile;
  return codegen_pass(std::move(net), cfg, {});
}

// SystemC cycles of the network's VTA layers, and whether its output matches `want`.
uint64_t systemc_cycles(const CompiledNetwork& net, const vta::Config& cfg, const Tensor& in, const Tensor& want) {
  auto backend = vta::make_backend("systemc", cfg);
  const NetworkResult res = run_network(net, *backend, in);
  EXPECT_EQ(res.output.data, want.data);
  uint64_t cycles = 0;
  for (const LayerResult& l : res.layers) cycles += l.stats.has("cycles.total") ? l.stats.get("cycles.total") : 0;
  return cycles;
}

TEST(Tiling, PrimeWidthRemainderTileHasItsOwnBankAndIsExact) {
  // 113 is prime: a tile of 57 columns leaves a remainder column of 56. With
  // a 3x3 kernel the narrower tile names another INP row pitch, so it gets
  // its own uop bank; the cost model follows the SystemC model within 1 %.
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = build_zoo("conv:64,113,113,64,3,1,1");
  const Node& n = only_layer(g);
  const Shape in = g.at(n.inputs[0]).out;
  const ConvGeom geo = conv_geom(n, in, cfg);
  Tile t{8, 57, 2, 1, 0};
  ASSERT_TRUE(tile_fits(geo, t, cfg));
  t.est_cycles = tile_cost(geo, t, cfg, requant_imm_ops(n));
  const auto classes = tile_classes(geo, t);
  int64_t positions = 0;
  for (const TileClass& tc : classes) positions += tc.count * tc.th * tc.tw * tc.toc;
  EXPECT_EQ(positions, geo.ho * geo.wo * geo.cob);
  const ConvBanks b = conv_banks(t, geo);
  EXPECT_EQ(b.width[1], 56);
  EXPECT_NE(b.at[1][0], b.at[0][0]);
  EXPECT_EQ(b.total, 8 * b.size[0][0]);
  EXPECT_EQ(conv_uops(t, geo), b.total + 4 * t.toc * geo.ro + (geo.scratch ? 6 : 0) * t.toc * geo.ro +
                                   (geo.bias_gemm ? 4 : 0) * t.toc * geo.ro);
  const Tensor x = zoo_input(g, 5);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  const uint64_t cycles = systemc_cycles(compile_with_tile(g, cfg, t), cfg, x, want);
  EXPECT_NEAR(t.est_cycles, static_cast<double>(cycles), 0.01 * static_cast<double>(cycles));
  // The search's own choice is at least as cheap by the cost model.
  EXPECT_LE(choose_tile(n, in, cfg).est_cycles, t.est_cycles);
}

TEST(Tiling, NonDivisorTileIsFasterOnSystemC) {
  // A 1x1 conv over 19 x 19 positions (19 is prime) and 80 channels, 3
  // blocks of 32 on vta-1x32x32: the cost model takes 19x5 positions, 2
  // output and 2 of the 3 input blocks a step, 8 % below the best tile
  // whose width and step divide the layer (19x19, 1 output block).
  const vta::Config cfg = preset("vta-1x32x32");
  const Graph g = build_zoo("conv:80,19,19,64,1,1,0");
  const Node& n = only_layer(g);
  const Shape in = g.at(n.inputs[0]).out;
  const ConvGeom geo = conv_geom(n, in, cfg);
  ASSERT_EQ(geo.cib, 3);
  const Tile t = choose_tile(n, in, cfg);
  EXPECT_NE(geo.wo % t.tw, 0) << t.tw;
  EXPECT_NE(geo.cib % t.tic, 0) << t.tic;
  const Tile d = best_divisor_tile(geo, cfg, requant_imm_ops(n));
  EXPECT_LT(t.est_cycles, 0.95 * d.est_cycles);
  // Measured: both bit-exact, the non-divisor tile faster.
  const Tensor x = zoo_input(g, 5);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  const uint64_t chosen = systemc_cycles(compile_with_tile(g, cfg, t), cfg, x, want);
  const uint64_t divisor = systemc_cycles(compile_with_tile(g, cfg, d), cfg, x, want);
  RecordProperty("cycles", fmt::format("{} against {}", chosen, divisor));
  EXPECT_LT(static_cast<double>(chosen), 0.95 * static_cast<double>(divisor))
      << chosen << " against " << divisor << " cycles of divisor tile " << d.th << "x" << d.tw << " oc" << d.toc
      << " ic" << d.tic;
}

TEST(Tiling, InputChannelsNotAMultipleOfTheStep) {
  // Dense 2000 -> 100 on 16-wide blocks: 125 input blocks (5^3), so only
  // steps of 1, 5, 25 or 125 blocks divide; the search takes another one.
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = build_zoo("dense:2000,100");
  const Node& n = only_layer(g);
  const Shape in = g.at(n.inputs[0]).out;
  const ConvGeom geo = conv_geom(n, in, cfg);
  ASSERT_EQ(geo.cib, 125);
  const Tile t = choose_tile(n, in, cfg);
  EXPECT_NE(geo.cib % t.tic, 0) << t.tic;
  EXPECT_LT(t.est_cycles, best_divisor_tile(geo, cfg, requant_imm_ops(n)).est_cycles);
  // A 1x1 kernel: the last step has its own (smaller) bank; no width class.
  const ConvBanks b = conv_banks(t, geo);
  EXPECT_EQ(b.chans[1], geo.cib % t.tic);
  EXPECT_EQ(b.size[0][1], t.toc * geo.ro * b.chans[1] * geo.ri);
  const auto classes = tile_classes(geo, t);
  for (const TileClass& tc : classes) {
    EXPECT_EQ(tc.steps[0] * tc.tic[0] + tc.steps[1] * tc.tic[1], geo.cib);
  }
}

TEST(Tiling, OneByOneRemainderWidthSharesTheFullBank) {
  const vta::Config cfg = preset("vta-1x16x16");
  const Graph g = build_zoo("conv:144,31,31,64,1,1,0");
  const Node& n = only_layer(g);
  const ConvGeom geo = conv_geom(n, g.at(n.inputs[0]).out, cfg);
  const Tile t{8, 10, 4, 2, 0};  // 31 = 3 x 10 + 1, 9 blocks = 4 x 2 + 1
  const ConvBanks b = conv_banks(t, geo);
  EXPECT_EQ(b.at[1][0], b.at[0][0]);
  EXPECT_EQ(b.at[1][1], b.at[0][1]);
  EXPECT_EQ(b.total, 4 * (t.toc * 2 + t.toc * 1) * geo.ro * geo.ri);
  EXPECT_EQ(conv_uops(t, geo), b.total + 4 * t.toc * geo.ro + (geo.scratch ? 6 : 0) * t.toc * geo.ro +
                                   (geo.t_rows ? 4 : 2) * geo.rows * t.toc * geo.ro +
                                   (geo.bias_gemm ? 4 : 0) * t.toc * geo.ro);
}

// The largest value <= v, >= 1, that does not divide `total` and for which
// `fits` holds; v itself when every smaller value divides or does not fit.
int64_t non_divisor(int64_t total, int64_t v, const std::function<bool(int64_t)>& fits) {
  for (int64_t x = v; x >= 1; --x)
    if (total % x != 0 && fits(x)) return x;
  return v;
}

// compile() with every conv/dense tile replaced by one that divides neither
// the layer's width nor its input blocks, where one fits.
CompiledNetwork compile_with_remainders(const Graph& g, const vta::Config& cfg, int* forced) {
  CompiledNetwork net;
  net.config_hash = cfg.hash();
  net.graph = partition(band_rows(pack_stem(g, cfg), cfg), cfg);
  net = tiling_pass(segments_pass(layout_pass(std::move(net), cfg, {}), cfg, {}), cfg, {});
  for (auto& [id, info] : net.layers) {
    const Node& n = net.graph.at(id);
    // The Add or max pool fused into the conv (a fused pool's tiles stay whole rows).
    const int add = fused_epilogue(net.graph, id, cfg);
    const ConvGeom geo = conv_geom(n, net.graph.at(n.inputs[0]).out, cfg, add >= 0 ? &net.graph.at(add) : nullptr);
    const bool residual = add >= 0 && net.graph.at(add).op == Op::Add;
    Tile t = info.tile;
    t.tw = non_divisor(geo.wo, t.tw, [&](int64_t tw) {
      return tile_fits(geo, Tile{t.th, tw, t.toc, t.tic, 0}, cfg, residual);
    });
    if (!geo.dw)
      t.tic = non_divisor(geo.cib, t.tic, [&](int64_t tic) {
        return tile_fits(geo, Tile{t.th, t.tw, t.toc, tic, 0}, cfg, residual);
      });
    *forced += geo.wo % t.tw != 0 || geo.cib % t.tic != 0;
    info.tile = t;
  }
  return codegen_pass(std::move(net), cfg, {});
}

// A pool whose output row does not fit half of the ACC buffer runs in bands
// of one row and tw columns, tw the widest divisor of the row that fits
// (pool_band()); before, such a layer was refused ("one output row of the
// pool does not fit half of the ACC buffer": ResNet-18's max pool on
// vta-1x16x16 with gemm.batch 4 failed stage 2 of a sweep that stage 1 had
// passed). Both pool forms, bit-exact on golden and SystemC, with the cost
// model near the cycle model.
TEST(Tiling, PoolRowsWiderThanTheAccBufferRunInColumnBands) {
  for (const std::string net : {"maxpool:16,56,112,3,2,1", "avgpool:16,56,112,2"}) {
    const vta::Config cfg = vta::load_config(vta::resolve_config_path("vta-1x16x16"), {{"buffers.acc", "8KiB"}});
    const Graph g = build_zoo(net);
    const Node& n = g.nodes.back();
    const PoolBand b = pool_band(n, cfg);
    EXPECT_EQ(b.th, 1) << net;
    EXPECT_LT(b.tw, n.out.w) << net;
    EXPECT_EQ(n.out.w % b.tw, 0) << net;
    const Tensor x = zoo_input(g, 4);
    const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
    const CompiledNetwork net_c = compile(g, cfg);
    for (const std::string be : {"golden", "systemc"}) {
      auto backend = vta::make_backend(be, cfg);
      const NetworkResult r = run_network(net_c, *backend, x);
      EXPECT_EQ(r.output.data, want.data) << net << " on " << be;
    }
  }
  // The network the sweep failed on.
  const vta::Config b4 = vta::load_config(vta::resolve_config_path("vta-1x16x16"), {{"gemm.batch", "4"}});
  EXPECT_NO_THROW((void)compile(build_zoo("resnet18"), b4));
}

class Remainders : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Remainders, ForcedRemainderTilesStayBitExactAndRaceFree) {
  const auto& [net_name, preset_name] = GetParam();
  const vta::Config cfg = preset(preset_name);
  const Graph g = build_zoo(net_name);
  const Tensor input = zoo_input(g, 3);
  const Tensor want = run_graph(g, input)[static_cast<size_t>(g.output)];
  int forced = 0;
  const CompiledNetwork net = compile_with_remainders(g, cfg, &forced);
  EXPECT_GE(forced, 5) << "too few layers with a remainder tile to test anything";
  for (const auto& [be, desc] : vta::backends()) {
    if (be != "golden" && be != "systemc") continue;
    auto backend = vta::make_backend(be, cfg);
    EXPECT_EQ(run_network(net, *backend, input).output.data, want.data)
        << net_name << " on " << preset_name << "/" << be;
  }
  vta::test::expect_race_free(net, cfg);
}

INSTANTIATE_TEST_SUITE_P(Zoo, Remainders,
                         ::testing::Combine(::testing::Values("resnet18", "mobilenet_v1"),
                                            ::testing::Values("vta-1x16x16", "vta-1x32x32", "vta-4x16x16")),
                         vta::test::NetPresetName());

}  // namespace
