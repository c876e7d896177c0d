// Float models with MatMul (a dense layer, its bias from a following Add),
// Reshape (host) and a final Softmax (host): quantized post-training, run on
// the golden backend bit-exactly against the integer reference, and close to
// the float network computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "onnx_builder.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"

namespace {

using namespace vta::compiler;
using vta::test::OnnxBuilder;

std::vector<float> random_floats(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(FloatOps, ConvReshapeMatMulAddSoftmax) {
  const int64_t c = 2, h = 4, w = 4, o = 4, k = 3, classes = 10, inner = o * h * w;
  const auto x = random_floats(static_cast<size_t>(c * h * w), 1.0f, 1);
  const auto cw = random_floats(static_cast<size_t>(o * c * k * k), 0.5f, 2);
  const auto mw = random_floats(static_cast<size_t>(inner * classes), 0.3f, 3);
  const auto mb = random_floats(static_cast<size_t>(classes), 0.5f, 4);
  OnnxBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, c, h, w});
  b.floats("W", {o, c, k, k}, cw);
  auto* conv = b.node("Conv", {"x", "W"}, {"c"});
  OnnxBuilder::attr(conv, "kernel_shape", std::vector<int64_t>{k, k});
  OnnxBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  auto* shape = b.model().mutable_graph()->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(0);
  shape->add_int64_data(-1);
  b.node("Reshape", {"r", "shape"}, {"flat"});
  b.floats("M", {inner, classes}, mw);
  b.node("MatMul", {"flat", "M"}, {"mm"});
  b.floats("bias", {classes}, mb);
  b.node("Add", {"mm", "bias"}, {"logits"});
  b.node("Softmax", {"logits"}, {"p"});
  b.output("p", onnx::TensorProto::FLOAT, {1, classes});

  const QuantizedModel q = import_onnx_float(b.bytes(), "float_ops.onnx", x);
  const Graph& g = q.graph;
  ASSERT_EQ(g.at(g.output).op, Op::Softmax);
  const int logits = g.at(g.output).inputs[0];
  EXPECT_EQ(g.at(logits).op, Op::Dense);
  EXPECT_EQ(g.at(g.at(logits).inputs[0]).op, Op::Reshape);

  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  // The compiled graph's ids may differ (stem packing adds a host im2col).
  const Graph& cg = net.graph;
  // (and device copies sit where the device changes: the value before them)
  auto made_by = [&](int k) {
    while (cg.at(k).op == Op::DeviceCopy) k = cg.at(k).inputs[0];
    return k;
  };
  const int clogits = made_by(cg.at(cg.output).inputs[0]);
  EXPECT_EQ(cg.at(clogits).op, Op::Dense);
  EXPECT_EQ(cg.at(clogits).device, Device::Vta);
  EXPECT_EQ(cg.at(made_by(cg.at(clogits).inputs[0])).device, Device::Host);
  EXPECT_EQ(cg.at(cg.output).device, Device::Host);
  auto backend = vta::make_backend("golden", cfg);
  const NetworkResult res = run_network(net, *backend, q.input);
  const Tensor ref = run_graph(g, q.input)[static_cast<size_t>(g.output)];
  EXPECT_EQ(res.output.data, ref.data);
  const std::vector<float> p = softmax(res.output, g.at(g.output));

  // The float network.
  std::vector<float> act(static_cast<size_t>(inner), 0.0f);
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t xx = 0; xx < w; ++xx) {
        float s = 0;
        for (int64_t ic = 0; ic < c; ++ic)
          for (int64_t kh = 0; kh < k; ++kh)
            for (int64_t kw = 0; kw < k; ++kw) {
              const int64_t ih = y + kh - 1, iw = xx + kw - 1;
              if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
              s += x[static_cast<size_t>((ic * h + ih) * w + iw)] *
                   cw[static_cast<size_t>(((oc * c + ic) * k + kh) * k + kw)];
            }
        act[static_cast<size_t>((oc * h + y) * w + xx)] = std::max(s, 0.0f);
      }
  std::vector<double> l(static_cast<size_t>(classes));
  double top = -1e30, sum = 0;
  for (int64_t j = 0; j < classes; ++j) {
    double s = mb[static_cast<size_t>(j)];
    for (int64_t i = 0; i < inner; ++i) s += act[static_cast<size_t>(i)] * mw[static_cast<size_t>(i * classes + j)];
    l[static_cast<size_t>(j)] = s;
    top = std::max(top, s);
  }
  for (double v : l) sum += std::exp(v - top);
  double sum_p = 0;
  for (int64_t j = 0; j < classes; ++j) {
    const double want = std::exp(l[static_cast<size_t>(j)] - top) / sum;
    EXPECT_NEAR(p[static_cast<size_t>(j)], want, 0.03) << j;
    sum_p += p[static_cast<size_t>(j)];
  }
  EXPECT_NEAR(sum_p, 1.0, 1e-5);
}

TEST(FloatOps, ReshapeKeepsTheDataAndRunsOnTheHost) {
  OnnxBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 16, 2, 2});
  auto* shape = b.model().mutable_graph()->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(4);
  for (int64_t v : {1, 4, -1, 2}) shape->add_int64_data(v);
  b.node("Reshape", {"x", "shape"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, 4, 8, 2});
  const QuantizedModel q = import_onnx_float(b.bytes(), "reshape.onnx", random_floats(64, 1.0f, 5));
  const Node& out = q.graph.at(q.graph.output);
  EXPECT_EQ(out.op, Op::Reshape);
  EXPECT_EQ(out.out, (Shape{1, 4, 8, 2}));
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  auto backend = vta::make_backend("golden", cfg);
  const NetworkResult res = run_network(compile(q.graph, cfg), *backend, q.input);
  EXPECT_EQ(res.output.data, q.input.data);
}

}  // namespace
