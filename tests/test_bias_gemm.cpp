// The bias and a fused residual Add's operand accumulated by the GEMM core
// (bias_gemm.h): the lanes give back every bias in range exactly,
// a layer whose bias is out of range keeps the ALU ADD, an operand shifted by
// more than 6 keeps its ACC_8BIT load and ALU ADD, and every form is
// bit-exact on the golden and SystemC backends and race-free, the GEMM forms
// with fewer ALU cycles.
#include <gtest/gtest.h>

#include <cstring>

#include "race_free.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ir/node_facts.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/bias_gemm.h"
#include "vta/compiler/schedule/conv_geom.h"
#include "vta/compiler/schedule/fusion.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

// The dot product of the constant INP element's batch row 0 with the bias
// WGT row of channel o, as the GEMM computes it.
int32_t gemm_bias(const std::vector<uint8_t>& wgt, const std::vector<uint8_t>& inp, int64_t o, int64_t bi) {
  int32_t acc = 0;
  for (int64_t j = 0; j < bi; ++j)
    acc += static_cast<int8_t>(inp[static_cast<size_t>(j)]) * static_cast<int8_t>(wgt[static_cast<size_t>(o * bi + j)]);
  return acc;
}

TEST(BiasGemm, LanesGiveBackEveryBiasInRange) {
  for (const char* name : {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16"}) {
    const vta::Config cfg = preset(name);
    const int64_t bi = cfg.gemm.block_in, bo = cfg.gemm.block_out;
    // b = r + 128 q with 0 <= r < 128 and -q the sum of block_in - 1 lanes in [-128, 127].
    const int32_t hi = static_cast<int32_t>(128 * 128 * (bi - 1) + 127),
                  lo = static_cast<int32_t>(-128 * 127 * (bi - 1));
    const std::vector<int32_t> in_range = {0, 1, -1, 127, 128, -128, 16383, -16385, 100000, -100000, hi, lo};
    Node n;
    n.op = Op::Conv2d;
    n.out.c = static_cast<int64_t>(in_range.size());
    n.bias = in_range;
    ASSERT_TRUE(bias_by_gemm(n, cfg)) << name;
    const int64_t blocks = (n.out.c + bo - 1) / bo;
    const std::vector<uint8_t> w = pack_bias_weights(n, blocks, cfg), x = bias_input(cfg);
    ASSERT_EQ(w.size(), static_cast<size_t>(blocks * bo * bi));
    ASSERT_EQ(x.size(), static_cast<size_t>(cfg.gemm.batch * bi));
    for (int64_t b = 1; b < cfg.gemm.batch; ++b)
      EXPECT_EQ(0, std::memcmp(x.data(), x.data() + b * bi, static_cast<size_t>(bi))) << "batch row " << b;
    for (int64_t o = 0; o < n.out.c; ++o)
      EXPECT_EQ(gemm_bias(w, x, o, bi), packed_bias(n, o)) << name << " bias " << in_range[static_cast<size_t>(o)];
    for (const int32_t out : {hi + 1, lo - 1}) {
      n.bias = {out};
      n.out.c = 1;
      EXPECT_FALSE(bias_by_gemm(n, cfg)) << name << " bias " << out;
    }
  }
}

// bias_lanes(): the fewest lanes whose form holds the bias (the range of
// the test above at L lanes, not at L - 1), as bias_by_gemm() compares
// gemm.block_in with it; a KeepNodeFacts keeps it for its graph's nodes only.
TEST(BiasGemm, BiasLanesIsTheFewestThatHoldEveryBias) {
  auto in_range = [](int64_t b, int64_t lanes) {
    return lanes >= 2 && b <= 128 * 128 * (lanes - 1) + 127 && b >= -128 * 127 * (lanes - 1);
  };
  Node n;
  n.op = Op::Conv2d;
  n.out.c = 1;
  for (int64_t b = -1200000; b <= 1200000; b += 997) {
    n.bias = {static_cast<int32_t>(b)};
    const int64_t l = bias_lanes(n);
    EXPECT_TRUE(in_range(packed_bias(n, 0), l)) << b;
    EXPECT_TRUE(l == 2 || !in_range(packed_bias(n, 0), l - 1)) << b;
  }
  Graph g;
  g.nodes.push_back(n);
  g.nodes[0].out.c = 2;
  g.nodes[0].bias = {0, 300000};  // 20 lanes
  const vta::Config c16 = preset("vta-1x16x16"), c32 = preset("vta-1x32x32");
  {
    const KeepNodeFacts keep(g);
    EXPECT_FALSE(bias_by_gemm(g.nodes[0], c16));
    EXPECT_TRUE(bias_by_gemm(g.nodes[0], c32));
    Node other = g.nodes[0];  // not a node of the kept graph: its own bias
    other.bias = {0, 1};
    EXPECT_TRUE(bias_by_gemm(other, c16));
    EXPECT_FALSE(bias_by_gemm(g.nodes[0], c16));
  }
  g.nodes[0].bias = {0, 1};  // the keeper gone, the graph may change
  EXPECT_TRUE(bias_by_gemm(g.nodes[0], c16));
}

// ALU cycles of the network's VTA layers on SystemC, and whether its output is exact and race-free.
uint64_t alu_cycles(const Graph& g, const vta::Config& cfg) {
  const Tensor x = zoo_input(g, 3);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  const CompiledNetwork net = compile(g, cfg);
  vta::test::expect_race_free(net, cfg);
  uint64_t alu = 0;
  for (const char* be : {"golden", "systemc"}) {
    auto backend = vta::make_backend(be, cfg);
    const NetworkResult res = run_network(net, *backend, x);
    EXPECT_EQ(res.output.data, want.data) << be;
    if (std::string(be) == "systemc")
      for (const LayerResult& l : res.layers)
        alu += l.stats.has("alu.active_cycles") ? l.stats.get("alu.active_cycles") : 0;
  }
  return alu;
}

TEST(BiasGemm, OutOfRangeBiasKeepsTheAluAddAndBothAreExact) {
  for (const char* name : {"vta-1x16x16", "vta-4x16x16"}) {
    const vta::Config cfg = preset(name);
    Graph g = build_zoo("conv:32,12,12,48,3,1,1");
    Node* conv = nullptr;
    for (Node& n : g.nodes)
      if (n.op == Op::Conv2d) conv = &n;
    ASSERT_NE(conv, nullptr);
    const Shape in = g.at(conv->inputs[0]).out;
    ASSERT_TRUE(conv_geom(*conv, in, cfg).bias_gemm) << name;
    const uint64_t by_gemm = alu_cycles(g, cfg);
    conv->bias[5] = 1 << 22;  // beyond the lanes: the ALU ADD of a bias row
    ASSERT_FALSE(conv_geom(*conv, in, cfg).bias_gemm) << name;
    const uint64_t by_alu = alu_cycles(g, cfg);
    // The ADD reads two ACC operands (ii_vector) per output element.
    const auto elems = static_cast<uint64_t>(12 * 12 * 3 * cfg.gemm.batch * cfg.gemm.block_out / cfg.alu.lanes);
    EXPECT_EQ(by_alu - by_gemm,
              elems * static_cast<uint64_t>(cfg.alu.ii_vector) / static_cast<uint64_t>(cfg.gemm.batch))
        << name << ": " << by_alu << " against " << by_gemm;
  }
}

TEST(BiasGemm, ResidualOperandByGemmOrByAluIsExact) {
  const vta::Config cfg = preset("vta-1x16x16");
  Graph g = build_zoo("resnet18");
  // Every fused Add of ResNet-18 has its operand added by the GEMM core.
  int fused = 0;
  int first = -1;  // the first fused Add
  for (size_t id = 0; id < g.nodes.size(); ++id) {
    const int add = fused_add(g, static_cast<int>(id), cfg);
    if (add < 0) continue;
    const Node& n = g.nodes[id];
    EXPECT_TRUE(conv_geom(n, g.at(n.inputs[0]).out, cfg, &g.at(add)).skip_gemm) << n.name;
    EXPECT_EQ(operand_shift(g.at(add), static_cast<int>(id)), fused_operand_shift(g.at(add))) << n.name;
    ++fused;
    if (first < 0) first = add;
  }
  ASSERT_EQ(fused, 8);
  const uint64_t by_gemm = alu_cycles(g, cfg);
  // The first Add's operand shifted by 7: 2^7 is no int8 weight, so the ACC_8BIT load and the ALU ADD.
  Node& add = g.nodes[static_cast<size_t>(first)];
  (add.inputs[0] > add.inputs[1] ? add.shift_b : add.shift_a) = 7;
  EXPECT_FALSE(residual_by_gemm(add, cfg));
  const uint64_t by_alu = alu_cycles(g, cfg);
  EXPECT_GT(by_alu, by_gemm);
}

// The cost model follows both GEMM epilogues (the target: median
// error <= 3 %, worst <= 10 % per conv/dense layer).
TEST(BiasGemm, CostModelFollowsTheGemmEpilogues) {
  const Graph g = build_zoo("resnet18");
  const Tensor x = zoo_input(g, 3);
  for (const char* name : {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16"}) {
    const vta::Config cfg = preset(name);
    const CompiledNetwork net = compile(g, cfg);
    auto backend = vta::make_backend("systemc", cfg);
    const Report r = make_report(net, run_network(net, *backend, x), cfg, "systemc");
    EXPECT_GE(r.cost_model.layers, 21) << name;
    EXPECT_LE(r.cost_model.median_abs_pct, 3.0) << name;
    EXPECT_LE(r.cost_model.worst_abs_pct, 10.0) << name;
  }
}

}  // namespace
