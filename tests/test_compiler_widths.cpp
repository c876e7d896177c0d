// The compiler at the dtype widths (docs/design.md, "Data types"): the zoo
// quantized to A-bit activations and W-bit weights, compiled, run on golden
// and SystemC bit-exact against the integer reference, and its accuracy
// against the one float network of every width.
#include <gtest/gtest.h>

#include <iostream>
#include <tuple>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/float_reference.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/accuracy.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"

namespace {

using namespace vta::compiler;

struct Widths {
  int a, w;
};

Graph lenet(Widths x) {
  ZooOptions o;
  o.act_bits = x.a;
  o.wgt_bits = x.w;
  return build_zoo("lenet5", o);
}

// vta-1x16x16 at the widths; 4-bit weights with half the WGT buffer and
// 4-bit activations with half the INP buffer (the same 1024 and 4096
// elements: deeper buffers would not fit GEMM's 64-bit word).
vta::Config config(Widths x) {
  const std::string a = std::to_string(x.a);
  std::vector<vta::Override> o = {
      {"dtype.inp_bits", a}, {"dtype.out_bits", a}, {"dtype.wgt_bits", std::to_string(x.w)}};
  if (x.w == 4) o.push_back({"buffers.wgt", "128KiB"});
  if (x.a == 4) o.push_back({"buffers.inp", "16KiB"});
  return vta::test::preset("vta-1x16x16", o);
}

class WidthRun : public ::testing::TestWithParam<std::tuple<int, int, std::string>> {};

// LeNet-5 at the widths, every value of the network on VTA and the host
// equal to the integer reference's.
TEST_P(WidthRun, Lenet5IsBitExact) {
  const auto& [a, w, backend_name] = GetParam();
  const Graph g = lenet({a, w});
  const vta::Config c = config({a, w});
  const CompiledNetwork net = compile(g, c);
  const Tensor x = zoo_input(g, 7);
  for (const Node& n : g.nodes) EXPECT_EQ(n.bits, a) << n.name;
  auto backend = vta::make_backend(backend_name, c);
  const NetworkResult res = run_network(net, *backend, x);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  EXPECT_EQ(res.output.data, want.data);
  // Values use the width: 16-bit activations beyond int8, 4-bit ones
  // within [-8, 7] (and not all zero).
  int top = 0;
  for (int16_t v : want.data) top = std::max(top, std::abs(static_cast<int>(v)));
  if (a == 16) {
    EXPECT_GT(top, 127);
  }
  if (a == 4) {
    EXPECT_LE(top, 8);
    EXPECT_GT(top, 0);
  }
  uint64_t macs = 0;
  for (const auto& l : res.layers) macs += l.stats.get("gemm.macs");
  EXPECT_GT(macs, 0u) << "the convolutions ran on VTA";
}

INSTANTIATE_TEST_SUITE_P(Widths, WidthRun,
                         ::testing::Combine(::testing::Values(4, 8, 16), ::testing::Values(4, 8, 16),
                                            ::testing::Values(std::string("golden"), std::string("systemc"))),
                         [](const auto& p) {
                           return "a" + std::to_string(std::get<0>(p.param)) + "w" +
                                  std::to_string(std::get<1>(p.param)) + "_" + std::get<2>(p.param);
                         });

// 16-bit accumulators (w4a4 on vta-1x16x16; ACC at 16 bits holds twice the
// elements, so half the ACC bytes): a node runs on VTA only when every
// value its accumulators can hold fits (acc_peak()), exactly as the
// 32-bit integer reference computes it; the others go to the host, saying
// how many bits they need.
vta::Config acc16() {
  return vta::test::preset("vta-1x16x16", {{"dtype.inp_bits", "4"},
                                           {"dtype.out_bits", "4"},
                                           {"dtype.wgt_bits", "4"},
                                           {"dtype.acc_bits", "16"},
                                           {"buffers.wgt", "128KiB"},
                                           {"buffers.inp", "16KiB"},
                                           {"buffers.acc", "64KiB"}});
}

TEST(Widths, SixteenBitAccumulatorsRunLeNetOnVtaBitExact) {
  const Graph g = lenet({4, 4});
  const vta::Config c = acc16();
  const CompiledNetwork net = compile(g, c);
  int on_vta = 0;
  for (const Node& n : net.graph.nodes)
    if (n.op == Op::Conv2d || n.op == Op::Dense) {
      EXPECT_EQ(placement(net.graph, n, c), Device::Vta) << n.name << ": " << host_reason(net.graph, n, c);
      ASSERT_TRUE(acc_peak(n).has_value()) << n.name;
      EXPECT_LE(*acc_peak(n), 32767) << n.name;
      ++on_vta;
    }
  EXPECT_EQ(on_vta, 5);
  const Tensor x = zoo_input(g, 7);
  const Tensor want = run_graph(g, x)[static_cast<size_t>(g.output)];
  for (const char* backend_name : {"golden", "systemc"}) {
    auto backend = vta::make_backend(backend_name, c);
    EXPECT_EQ(run_network(net, *backend, x).output.data, want.data) << backend_name;
  }
}

TEST(Widths, SixteenBitAccumulatorsSendLayersThatCouldWrapToTheHost) {
  ZooOptions o;
  o.act_bits = 4;
  o.wgt_bits = 4;
  o.image = 32;
  const Graph g = build_zoo("resnet18", o);
  const vta::Config c = acc16();
  const CompiledNetwork net = compile(g, c);
  int host = 0, vta = 0;
  for (const Node& n : net.graph.nodes) {
    if (n.op != Op::Conv2d && n.op != Op::Dense && n.op != Op::Add) continue;
    const auto peak = acc_peak(n);
    ASSERT_TRUE(peak.has_value()) << n.name;
    if (*peak <= 32767) {
      EXPECT_EQ(placement(net.graph, n, c), Device::Vta) << n.name << ": " << host_reason(net.graph, n, c);
      ++vta;
    } else {
      EXPECT_EQ(placement(net.graph, n, c), Device::Host) << n.name;
      const std::string why = host_reason(net.graph, n, c);
      EXPECT_NE(why.find("dtype.acc_bits 16"), std::string::npos) << why;
      EXPECT_NE(why.find(fmt::format("reach +-{} ", *peak)), std::string::npos) << why;
      EXPECT_NE(why.find("which needs 1"), std::string::npos) << why;
      ++host;
    }
  }
  EXPECT_GT(vta, 5) << "the early layers fit 16 bits";
  EXPECT_GT(host, 5) << "the deep layers' sums need 17 to 19 bits";
  const Tensor x = zoo_input(g, 3);
  auto backend = vta::make_backend("golden", c);
  EXPECT_EQ(run_network(net, *backend, x).output.data, run_graph(g, x)[static_cast<size_t>(g.output)].data);
}

TEST(Widths, W8IsTheDefaultNetworkBitForBit) {
  const Graph d = build_zoo("lenet5");
  const Graph w8 = lenet({8, 8});
  EXPECT_EQ(d, w8);
  // Its weights are the real weights rounded to 2^-7 steps; 16 bits keep them.
  const Graph w16 = lenet({8, 16});
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    const Node& n = d.nodes[i];
    if (n.weight.empty()) continue;
    EXPECT_EQ(n.real_weight, w16.nodes[i].real_weight) << n.name;
    EXPECT_EQ(n.real_w_exp, -15);
    for (size_t k = 0; k < n.weight.size(); ++k)
      ASSERT_EQ(n.weight[k], (n.real_weight[k] + (n.real_weight[k] < 0 ? -128 : 128)) / 256) << n.name << " " << k;
  }
}

TEST(Widths, FourBitWeightsClipToTheirRange) {
  const Graph g = lenet({8, 4});
  EXPECT_EQ(g.wgt_bits, 4);
  for (const Node& n : g.nodes)
    for (int16_t v : n.weight) ASSERT_TRUE(v >= -8 && v <= 7) << n.name << " " << v;
}

// The finer the widths, the closer to the float network (one float network
// for all: the same real weights and biases).
TEST(Widths, AccuracyImprovesWithWidth) {
  const double w4a4 = measure_accuracy(lenet({4, 4}), 4, 1001).output_sqnr_db;
  const double w4a8 = measure_accuracy(lenet({8, 4}), 4, 1001).output_sqnr_db;
  const double w8a8 = measure_accuracy(lenet({8, 8}), 4, 1001).output_sqnr_db;
  const double w8a16 = measure_accuracy(lenet({16, 8}), 4, 1001).output_sqnr_db;
  const double w16a16 = measure_accuracy(lenet({16, 16}), 4, 1001).output_sqnr_db;
  std::cout << "LeNet-5 output SQNR: w4a4 " << w4a4 << " dB, w4a8 " << w4a8 << " dB, w8a8 " << w8a8 << " dB, w8a16 "
            << w8a16 << " dB, w16a16 " << w16a16 << " dB\n";
  EXPECT_LT(w4a4, w4a8);
  EXPECT_LT(w4a8, w8a8);
  EXPECT_LT(w8a8, w8a16);
  EXPECT_LT(w8a16, w16a16);
}

}  // namespace
