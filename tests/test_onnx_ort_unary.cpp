// ONNX Runtime's DequantizeLinear -> Sigmoid / HardSigmoid / HardSwish ->
// QuantizeLinear on every input code, DQ, DQ -> Mul -> Q (QLinearMul) on
// every pair of codes, same shape and broadcast over H x W as
// squeeze-excitation writes it, and DQ -> Softmax -> Q (QLinearSoftmax) on
// random rows of logits: imported, run by the integer reference and compared
// with ONNX Runtime (ort_ops.h has the formulas).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "onnx_builder.h"
#include "ort_oracle.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::compiler;
using vta::test::OnnxBuilder;

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::path(VTA_BINARY_DIR) / "onnx_oracle" / "ort_unary" / name;
  fs::create_directories(d);
  return d;
}

int elem(bool u8) { return u8 ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8; }

std::string dq(OnnxBuilder& b, const std::string& x, float s, int z, bool u8) {
  b.scalar(x + "_s", s);
  b.ints(x + "_z", elem(u8), {}, {z});
  b.node("DequantizeLinear", {x, x + "_s", x + "_z"}, {x + "_f"});
  return x + "_f";
}
void quantize(OnnxBuilder& b, const std::string& f, float s, int z, bool u8, const std::vector<int64_t>& dims) {
  b.scalar("y_s", s);
  b.ints("y_z", elem(u8), {}, {z});
  b.node("QuantizeLinear", {f, "y_s", "y_z"}, {"y"});
  b.output("y", elem(u8), dims);
}

// Runs the imported graph on `x` (ONNX codes) and returns its output codes.
std::vector<int64_t> run_host(const Graph& g, const std::vector<NpyArray>& xs) {
  std::vector<Tensor> values(g.nodes.size());
  size_t k = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::Input) {
      Tensor t{n.out, {}};
      for (int64_t v : xs.at(k++).values) t.data.push_back(static_cast<int16_t>(v - (n.uint8 ? 128 : 0)));
      values[i] = t;
      continue;
    }
    std::vector<const Tensor*> ins;
    for (int in : n.inputs) ins.push_back(&values[static_cast<size_t>(in)]);
    values[i] = run_node(n, ins);
  }
  std::vector<int64_t> out;
  const Node& o = g.at(g.output);
  for (int16_t v : values[static_cast<size_t>(g.output)].data) out.push_back(v + (o.uint8 ? 128 : 0));
  return out;
}

struct UnaryCase {
  std::string name, op;
  float sx, sy;
  int zx, zy;
  bool u8;
  float alpha = 0;  // HardSigmoid's (0: the default)
};

class OrtUnary : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(OrtUnary, EveryCodeAsOnnxRuntime) {
  REQUIRE_ORACLE();
  const UnaryCase& c = GetParam();
  OnnxBuilder b(17);
  const std::vector<int64_t> dims{1, 1, 16, 16};
  b.input("x", elem(c.u8), dims);
  auto* n = b.node(c.op, {dq(b, "x", c.sx, c.zx, c.u8)}, {"f"});
  if (c.alpha != 0) OnnxBuilder::attr_f(n, "alpha", c.alpha);
  quantize(b, "f", c.sy, c.zy, c.u8, dims);
  const fs::path dir = work_dir(c.name);
  { std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes(); }
  const Graph g = import_onnx((dir / "model.onnx").string());
  ASSERT_EQ(g.at(g.output).op, Op::Lookup);
  NpyArray x;
  x.type = c.u8 ? NpyType::Uint8 : NpyType::Int8;
  x.dims = dims;
  for (int v = 0; v < 256; ++v) x.values.push_back(c.u8 ? v : v - 128);
  const NpyArray ort = vta::test::run_ort(dir / "model.onnx", "x", x);
  const vta::test::Diff d = vta::test::compare(ort.values, run_host(g, {x}));
  std::cout << fmt::format("ORT {} {}: {} codes, {} differ from the host\n", c.op, c.name, d.elements, d.differing);
  EXPECT_EQ(ort.values.size(), 256u);
  EXPECT_EQ(d.differing, 0u) << "largest difference " << d.largest;
  EXPECT_EQ(g.at(g.output).lookup.onnx_op, c.op);
}

INSTANTIATE_TEST_SUITE_P(
    Codes, OrtUnary,
    ::testing::Values(UnaryCase{"sigmoid_u8", "Sigmoid", 0.0473f, 1 / 255.0f, 131, 0, true},
                      UnaryCase{"sigmoid_wide", "Sigmoid", 0.1234f, 0.00392f, 77, 3, true},
                      UnaryCase{"sigmoid_s8", "Sigmoid", 0.05f, 0.0039f, 5, -128, false},
                      UnaryCase{"hard_sigmoid_mnv3", "HardSigmoid", 0.0473f, 1 / 255.0f, 131, 0, true, 1 / 6.0f},
                      UnaryCase{"hard_sigmoid_default", "HardSigmoid", 0.02f, 0.0041f, 128, 0, true},
                      UnaryCase{"hard_sigmoid_s8", "HardSigmoid", 0.04f, 0.004f, -3, -128, false, 1 / 6.0f},
                      UnaryCase{"hard_swish_u8", "HardSwish", 0.0473f, 0.031f, 131, 20, true},
                      UnaryCase{"hard_swish_s8", "HardSwish", 0.03f, 0.02f, 0, -20, false}),
    [](const auto& i) { return i.param.name; });

struct MulCase {
  std::string name;
  float sa, sb, sc;
  int za, zb, zc;
  bool broadcast;
};

class OrtMul : public ::testing::TestWithParam<MulCase> {};

TEST_P(OrtMul, EveryPairAsOnnxRuntime) {
  REQUIRE_ORACLE();
  const MulCase& c = GetParam();
  OnnxBuilder b(17);
  const std::vector<int64_t> da{1, 256, 16, 16}, db = c.broadcast ? std::vector<int64_t>{1, 256, 1, 1} : da;
  b.input("a", onnx::TensorProto::UINT8, da);
  b.input("b", onnx::TensorProto::UINT8, db);
  b.node("Mul", {dq(b, "a", c.sa, c.za, true), dq(b, "b", c.sb, c.zb, true)}, {"m"});
  quantize(b, "m", c.sc, c.zc, true, da);
  const fs::path dir = work_dir("mul_" + c.name);
  { std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes(); }
  const Graph g = import_onnx((dir / "model.onnx").string());
  ASSERT_EQ(g.at(g.output).op, Op::Mul);
  NpyArray x, y;  // channel q of b is the code q; a runs through every code in each channel
  x.type = y.type = NpyType::Uint8;
  x.dims = da, y.dims = db;
  for (int q = 0; q < 256; ++q)
    for (int i = 0; i < 256; ++i) {
      x.values.push_back(i);
      if (!c.broadcast || i == 0) y.values.push_back(c.broadcast ? q : (q + i) % 256);
    }
  write_npy((dir / "a.npy").string(), x);
  write_npy((dir / "b.npy").string(), y);
  const std::string args = fmt::format("'a={}' 'b={}'", (dir / "a.npy").string(), (dir / "b.npy").string());
  const NpyArray ort = vta::test::run_ort_files(dir / "model.onnx", args, dir);
  const vta::test::Diff d = vta::test::compare(ort.values, run_host(g, {x, y}));
  std::cout << fmt::format("ORT Mul {}: {} pairs, {} differ from the host\n", c.name, d.elements, d.differing);
  EXPECT_EQ(ort.values.size(), 65536u);
  EXPECT_EQ(d.differing, 0u) << "largest difference " << d.largest;
}

INSTANTIATE_TEST_SUITE_P(Scales, OrtMul,
                         ::testing::Values(MulCase{"hard_swish", 0.0473f, 1 / 255.0f, 0.031f, 131, 0, 120, false},
                                           MulCase{"odd", 0.1234f, 0.00392f, 0.05f, 77, 3, 10, false},
                                           MulCase{"squeeze_excite", 0.0473f, 1 / 255.0f, 0.029f, 131, 0, 0, true},
                                           MulCase{"ties", 0.5f, 0.25f, 0.25f, 128, 128, 128, true}),
                         [](const auto& i) { return i.param.name; });

struct SoftmaxCase {
  std::string name;
  int64_t d;  // logits a row
  float sx, sy;
  int zx, zy;
  bool u8;
};

class OrtSoftmax : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(OrtSoftmax, RandomRowsAsOnnxRuntime) {
  REQUIRE_ORACLE();
  const SoftmaxCase& c = GetParam();
  OnnxBuilder b(17);
  const int64_t rows = 256;
  b.input("x", elem(c.u8), {rows, c.d, 1, 1});
  b.node("Flatten", {dq(b, "x", c.sx, c.zx, c.u8)}, {"flat"});
  b.node("QuantizeLinear", {"flat", "x_s", "x_z"}, {"flat_q"});
  b.node("DequantizeLinear", {"flat_q", "x_s", "x_z"}, {"flat_f"});
  b.node("Softmax", {"flat_f"}, {"p"});
  quantize(b, "p", c.sy, c.zy, c.u8, {rows, c.d});
  const fs::path dir = work_dir("softmax_" + c.name);
  { std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes(); }
  if (!c.u8) {  // ONNX Runtime 1.17 fuses uint8 only; its float Softmax for int8 is refused, naming the input
    EXPECT_THROW(import_onnx((dir / "model.onnx").string()), vta::Error);
    return;
  }
  const Graph g = import_onnx((dir / "model.onnx").string());
  ASSERT_EQ(g.at(g.output).op, Op::Softmax);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> u(c.u8 ? 0 : -128, c.u8 ? 255 : 127);
  NpyArray x;
  x.type = c.u8 ? NpyType::Uint8 : NpyType::Int8;
  x.dims = {rows, c.d, 1, 1};
  for (int64_t i = 0; i < rows * c.d; ++i) x.values.push_back(u(rng));
  const NpyArray ort = vta::test::run_ort(dir / "model.onnx", "x", x);
  const vta::test::Diff d = vta::test::compare(ort.values, run_host(g, {x}));
  std::cout << fmt::format("ORT Softmax {}: {} elements, {} differ from the host\n", c.name, d.elements, d.differing);
  EXPECT_EQ(ort.values.size(), static_cast<size_t>(rows * c.d));
  EXPECT_EQ(d.differing, 0u) << "largest difference " << d.largest;
}

INSTANTIATE_TEST_SUITE_P(Rows, OrtSoftmax,
                         ::testing::Values(SoftmaxCase{"logits_u8", 10, 0.0091f, 1 / 255.0f, 125, 0, true},
                                           SoftmaxCase{"wide_u8", 1000, 0.02f, 0.00392f, 128, 0, true},
                                           SoftmaxCase{"logits_s8_refused", 10, 0.13f, 0.0039f, 0, -128, false}),
                         [](const auto& i) { return i.param.name; });

}  // namespace
