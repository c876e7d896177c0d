// ONNX operators outside the supported subset (the integer operators, and
// MatMul / Reshape / Softmax in float models) fail with a vta::Error naming
// the node, the op and the input or attribute at fault.
#include <gtest/gtest.h>

#include <functional>

#include "onnx_builder.h"
#include "vta/compiler/onnx.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::compiler;
using vta::test::OnnxBuilder;
constexpr int U8 = onnx::TensorProto::UINT8, I8 = onnx::TensorProto::INT8, I32 = onnx::TensorProto::INT32;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const vta::Error& e) {
    return e.what();
  }
  return "(no error)";
}
std::string import_error(const OnnxBuilder& b) {
  return error_of([&] { import_onnx_bytes(b.bytes(), "bad.onnx"); });
}

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

// A QLinearConv 1x2x4x4 -> 1x2x.. (uint8) whose parts a test then spoils.
struct Conv {
  OnnxBuilder b;
  onnx::NodeProto* n;
  explicit Conv(int xz_type = U8, std::vector<int64_t> wz = {1}) {
    b.input("x", U8, {1, 2, 4, 4});
    b.scalar("xs", 0.1f), b.ints("xz", xz_type, {}, {3});
    b.ints("w", U8, {2, 2, 3, 3}, std::vector<int64_t>(36, 9)), b.scalar("ws", 0.2f);
    b.ints("wz", U8, {static_cast<int64_t>(wz.size())}, wz);
    b.scalar("ys", 0.3f), b.ints("yz", U8, {}, {4});
    n = b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"});
    b.output("y", U8, {1, 2, 2, 2});
  }
};

TEST(OnnxIntegerErrors, TheValidBaseModelImports) { EXPECT_EQ(import_error(Conv().b), "(no error)"); }

TEST(OnnxIntegerErrors, PerChannelZeroPointNamesIt) {
  const std::string msg = import_error(Conv(U8, {1, 2}).b);
  EXPECT_HAS(msg, "node 'QLinearConv_1' (QLinearConv)");
  EXPECT_HAS(msg, "w_zero_point 'wz' has 2 values");
}

TEST(OnnxIntegerErrors, ZeroPointOfAnotherSignedness) {
  EXPECT_HAS(import_error(Conv(I8).b), "x_zero_point 'xz' must be uint8 like its tensor");
}

TEST(OnnxIntegerErrors, AsymmetricPadsNameTheAttribute) {
  Conv c;
  OnnxBuilder::attr(c.n, "pads", std::vector<int64_t>{0, 1, 0, 1});
  const std::string msg = import_error(c.b);
  EXPECT_HAS(msg, "(QLinearConv)");
  EXPECT_HAS(msg, "attribute pads");
}

TEST(OnnxIntegerErrors, DilationsAndUnknownAttributes) {
  Conv c;
  OnnxBuilder::attr(c.n, "dilations", std::vector<int64_t>{2, 2});
  EXPECT_HAS(import_error(c.b), "attribute dilations must be 1");
  Conv d;
  OnnxBuilder::attr(d.n, "frobnicate", int64_t{1});
  EXPECT_HAS(import_error(d.b), "attribute 'frobnicate' is not supported");
}

TEST(OnnxIntegerErrors, BatchedWeightsNeedABatchedInput) {
  OnnxBuilder b(10);
  b.input("A", U8, {3, 5});
  b.ints("B", U8, {2, 5, 4}, std::vector<int64_t>(40, 1));
  b.node("MatMulInteger", {"A", "B"}, {"Y"});
  b.output("Y", I32, {2, 3, 4});
  const std::string msg = import_error(b);
  EXPECT_HAS(msg, "(MatMulInteger)");
  EXPECT_HAS(msg, "a 3-D B needs a 3-D A of the same batch");
}

TEST(OnnxIntegerErrors, Int32InputToAnIntegerOp) {
  OnnxBuilder b(10);
  b.input("x", U8, {1, 1, 3, 3});
  b.ints("w", U8, {1, 1, 1, 1}, {1});
  b.node("ConvInteger", {"x", "w"}, {"c"});
  b.node("ConvInteger", {"c", "w"}, {"y"});
  b.output("y", I32, {1, 1, 3, 3});
  EXPECT_HAS(import_error(b), "input 'c' is int32; it must be 8-bit");
}

TEST(OnnxIntegerErrors, MultiplierTooLarge) {
  Conv c;
  for (auto& t : *c.b.model().mutable_graph()->mutable_initializer())
    if (t.name() == "ys") t.set_float_data(0, 1e-12f);
  EXPECT_HAS(import_error(c.b), "requantization multiplier");
}

TEST(OnnxIntegerErrors, Uint8InQdqFormIsRefused) {
  OnnxBuilder b;
  b.input("x", U8, {1, 1, 2, 2});
  b.scalar("s", 0.5f);
  b.node("DequantizeLinear", {"x", "s"}, {"xf"});
  b.node("QuantizeLinear", {"xf", "s"}, {"y"});
  b.output("y", I8, {1, 1, 2, 2});
  const std::string msg = import_error(b);
  EXPECT_HAS(msg, "(DequantizeLinear)");
  EXPECT_HAS(msg, "uint8 tensors");
}

TEST(OnnxIntegerErrors, ExportOfAnAsymmetricGraphIsRefused) {
  const Graph g = import_onnx_bytes(Conv().b.bytes(), "conv.onnx");
  EXPECT_HAS(error_of([&] { export_onnx_bytes(g); }), "has zero points");
}

// A float model: x [1, 8] -> MatMul [8, 4] -> Softmax, spoiled by the tests.
OnnxBuilder float_model() {
  OnnxBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 8});
  b.floats("B", {8, 4}, std::vector<float>(32, 0.25f));
  b.node("MatMul", {"x", "B"}, {"l"});
  b.node("Softmax", {"l"}, {"p"});
  b.output("p", onnx::TensorProto::FLOAT, {1, 4});
  return b;
}
std::string float_error(const OnnxBuilder& b) {
  return error_of([&] { import_onnx_float(b.bytes(), "bad.onnx", {}); });
}

TEST(OnnxFloatOpErrors, TheValidBaseModelImports) { EXPECT_EQ(float_error(float_model()), "(no error)"); }

TEST(OnnxFloatOpErrors, SoftmaxMustBeTheFinalOp) {
  OnnxBuilder b = float_model();
  b.model().mutable_graph()->mutable_output(0)->set_name("r");
  b.node("Flatten", {"p"}, {"r"});
  const std::string msg = float_error(b);
  EXPECT_HAS(msg, "(Flatten)");
  EXPECT_HAS(msg, "Softmax is supported only as the final op");
}

TEST(OnnxFloatOpErrors, SoftmaxAxisNamesTheAttribute) {
  OnnxBuilder b = float_model();
  OnnxBuilder::attr(b.model().mutable_graph()->mutable_node(1), "axis", int64_t{0});
  const std::string msg = float_error(b);
  EXPECT_HAS(msg, "(Softmax)");
  EXPECT_HAS(msg, "attribute axis");
}

TEST(OnnxFloatOpErrors, ReshapeToThreeDimensions) {
  OnnxBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 2, 2, 2});
  auto* t = b.model().mutable_graph()->add_initializer();
  t->set_name("shape");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(3);
  for (int64_t v : {1, 2, 4}) t->add_int64_data(v);
  b.node("Reshape", {"x", "shape"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, 2, 4});
  const std::string msg = float_error(b);
  EXPECT_HAS(msg, "(Reshape)");
  EXPECT_HAS(msg, "shape has 3 dimensions");
}

TEST(OnnxFloatOpErrors, MatMulOverAFourDimensionalInput) {
  OnnxBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 2, 2, 2});
  b.floats("B", {2, 3}, std::vector<float>(6, 0.5f));
  b.node("MatMul", {"x", "B"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, 2, 2, 3});
  const std::string msg = float_error(b);
  EXPECT_HAS(msg, "(MatMul)");
  EXPECT_HAS(msg, "input A must be 2-D");
}

}  // namespace
