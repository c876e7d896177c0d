// Accuracy beside speed (compiler/include/vta/compiler/run/accuracy.h): the
// float network of ops/float_reference.h and the integer network's SQNR and
// top-1 agreement against it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/float_reference.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/accuracy.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::compiler;

// Input 1x4x3x3 at 2^in_exp -> Conv2d 3x3, pad 1, 2 output channels.
Graph small_conv(int in_exp, int shift, int out_exp, bool relu) {
  Graph g;
  g.name = "small";
  Node in;
  in.name = "x";
  in.op = Op::Input;
  in.out = {1, 4, 3, 3};
  in.exp = in_exp;
  const int x = g.add(in);
  Node c;
  c.name = "conv";
  c.op = Op::Conv2d;
  c.inputs = {x};
  c.out = {1, 2, 3, 3};
  c.kernel = 3;
  c.pad = 1;
  for (int i = 0; i < 2 * 4 * 9; ++i) c.weight.push_back(static_cast<int8_t>(i % 3 - 1));
  c.bias = {5, -7};
  c.shift = shift;
  c.exp = out_exp;
  c.relu = relu;
  g.output = g.add(c);
  return g;
}

Tensor small_input() {
  Tensor t{{1, 4, 3, 3}, {}};
  for (int i = 0; i < 36; ++i) t.data.push_back(static_cast<int8_t>(i % 7 - 3));
  return t;
}

TEST(FloatReference, EqualsTheIntegerNetworkWhereItIsExact) {
  // Shift 0 and sums inside int8: the integer conv is the real one.
  const Graph g = small_conv(0, 0, 0, false);
  const Tensor x = small_input();
  const Tensor q = run_graph(g, x)[1];
  const auto f = run_float(g, dequantize(g.nodes[0], x, g.nodes[0]));
  ASSERT_EQ(f[1].data.size(), q.data.size());
  for (size_t i = 0; i < q.data.size(); ++i) EXPECT_EQ(f[1].data[i], q.data[i]) << "element " << i;
  EXPECT_TRUE(std::isinf(sqnr_db(f[1].data, dequantize(g.nodes[1], q, g.nodes[0]).data)));
}

TEST(FloatReference, WeightAndBiasStandForTheirRealValues) {
  // in.exp -3, shift 2, out.exp 1: w_exp = 1 - 2 + 3 = 2, the bias at 2^(-3 + 2).
  const Graph g = small_conv(-3, 2, 1, true);
  const Tensor x = small_input();
  const auto f = run_float(g, dequantize(g.nodes[0], x, g.nodes[0]));
  // Output channel 1 at (1, 1): the whole 3x3 window of every input channel.
  double acc = 0;
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 9; ++k) {
      const int widx = (1 * 4 + c) * 9 + k, xidx = c * 9 + k;
      acc += (xidx % 7 - 3) * std::ldexp(1.0, -3) * (widx % 3 - 1) * std::ldexp(1.0, 2);
    }
  const double want = std::max(acc + -7 * std::ldexp(1.0, -1), 0.0);
  EXPECT_DOUBLE_EQ(f[1].data[static_cast<size_t>(9 + 4)], want);
}

TEST(FloatReference, AGraphWithoutAFloatFormIsNamed) {
  Graph g = small_conv(0, 0, 0, false);
  g.nodes[1].zp = 3;
  EXPECT_EQ(float_form_problem(g), "node conv (conv2d): its scales are not powers of two or it has zero points");
  try {
    run_float(g, RealTensor{{1, 4, 3, 3}, std::vector<double>(36)});
    FAIL() << "no error";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("node conv (conv2d)"), std::string::npos) << e.what();
  }
}

TEST(Accuracy, SqnrInDecibels) {
  EXPECT_DOUBLE_EQ(sqnr_db({3, 4}, {3, 4.5}), 20.0);  // 25 / 0.25
  EXPECT_TRUE(std::isinf(sqnr_db({1, 2}, {1, 2})));
  EXPECT_LT(sqnr_db({0, 0}, {1, 0}), 0);
}

TEST(Accuracy, Lenet5IsMeasuredPerLayerAndRepeatable) {
  const Graph g = build_zoo("lenet5");
  const Accuracy a = measure_accuracy(g, 4, 1001);
  EXPECT_EQ(a.inputs, 4);
  EXPECT_EQ(a.rows, 4);  // one classified row per input (1 x 10 logits)
  EXPECT_LE(a.agree, a.rows);
  EXPECT_GT(a.output_sqnr_db, 15.0);  // 8-bit activations: about 6 dB a bit, less the accumulated layers
  EXPECT_LT(a.output_sqnr_db, 60.0);
  EXPECT_LE(a.worst_input_sqnr_db, a.output_sqnr_db + 3.0);
  size_t layers = 0;
  for (const Node& n : g.nodes)
    layers += n.op == Op::Conv2d || n.op == Op::Dense || n.op == Op::Add || n.op == Op::MaxPool ||
              n.op == Op::AvgPool || n.op == Op::GlobalAvgPool;
  EXPECT_EQ(a.layers.size(), layers);
  const Accuracy b = measure_accuracy(g, 4, 1001);
  EXPECT_EQ(a.agree, b.agree);
  EXPECT_EQ(a.output_sqnr_db, b.output_sqnr_db);
  const std::string text = accuracy_text(a);
  EXPECT_NE(text.find("over 4 inputs (seeds 1001..1004): top-1 agreement "), std::string::npos) << text;
  EXPECT_NE(text.find("lowest layer SQNR: "), std::string::npos) << text;
}

TEST(Accuracy, RunReportsItAndWritesItToTheJsonReport) {
  const auto dir = std::filesystem::path(VTA_BINARY_DIR) / "test-tmp" / "accuracy";
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "r.json").string();
  const auto r = vta::test::run_vta("run --model lenet5 --accuracy 3 --report-json " + json);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("accuracy against the float network (the real weights in real arithmetic) over 3 inputs"),
            std::string::npos)
      << r.out;
  std::ifstream f(json);
  const auto j = nlohmann::json::parse(f);
  ASSERT_TRUE(j.contains("accuracy")) << j.dump(2);
  EXPECT_EQ(j["accuracy"]["inputs"], 3);
  EXPECT_GE(j["accuracy"]["top1_agree"].get<double>(), 0.0);
  EXPECT_LE(j["accuracy"]["top1_agree"].get<double>(), 1.0);
  EXPECT_GT(j["accuracy"]["layers"].size(), 3u);
}

}  // namespace
