// ONNX export and import: zoo networks exported pass the official ONNX
// checker, import back to the same graph
// and run bit-exactly; malformed models give clear errors.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <set>

#include "error_of.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::compiler;

// Everything that defines a node's integer semantics.
void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    EXPECT_EQ(x.op, y.op) << i;
    EXPECT_EQ(x.inputs, y.inputs) << x.name;
    EXPECT_EQ(x.out, y.out) << x.name;
    EXPECT_EQ(x.exp, y.exp) << x.name;
    EXPECT_EQ(x.weight, y.weight) << x.name;
    EXPECT_EQ(x.bias, y.bias) << x.name;
    EXPECT_EQ(x.shift, y.shift) << x.name;
    EXPECT_EQ(x.relu, y.relu) << x.name;
    EXPECT_EQ(x.shift_a, y.shift_a) << x.name;
    EXPECT_EQ(x.shift_b, y.shift_b) << x.name;
    EXPECT_EQ(x.mult, y.mult) << x.name;
    EXPECT_EQ(x.kernel, y.kernel) << x.name;
    EXPECT_EQ(x.stride, y.stride) << x.name;
    EXPECT_EQ(x.pad, y.pad) << x.name;
    EXPECT_EQ(x.groups, y.groups) << x.name;
    if (x.op == Op::MaxPool || x.op == Op::AvgPool) {
      EXPECT_EQ(x.pool, y.pool) << x.name;
      EXPECT_EQ(x.pool_stride, y.pool_stride) << x.name;
      EXPECT_EQ(x.pool_pad, y.pool_pad) << x.name;
    }
  }
  EXPECT_EQ(a.output, b.output);
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, ExportPassesTheCheckerAndImportsIdentically) {
  const Graph g = build_zoo(GetParam());
  const std::string bytes = export_onnx_bytes(g);
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  EXPECT_NO_THROW(onnx::checker::check_model(m));
  const Graph back = import_onnx_bytes(bytes, GetParam() + ".onnx");
  expect_same_graph(g, back);
  // And the imported network runs bit-exactly on VTA.
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const Tensor in = zoo_input(back, 5);
  auto backend = vta::make_backend("golden", cfg);
  const CompiledNetwork net = compile(back, cfg);
  const NetworkResult res = run_network(net, *backend, in);
  EXPECT_EQ(res.output.data, run_graph(g, in)[static_cast<size_t>(g.output)].data);
  // Placed as the original (the integer form's layers too: on VTA).
  const CompiledNetwork orig = compile(g, cfg);
  ASSERT_EQ(net.graph.nodes.size(), orig.graph.nodes.size());
  for (size_t i = 0; i < net.graph.nodes.size(); ++i)
    EXPECT_EQ(net.graph.nodes[i].device, orig.graph.nodes[i].device) << orig.graph.nodes[i].name;
}

INSTANTIATE_TEST_SUITE_P(Zoo, RoundTrip,
                         ::testing::Values("lenet5", "resnet18", "mobilenet_v1", "conv:20,9,9,40,3,2,1",
                                           "dense:4096,8"));

// The layers whose accumulator can reach 2^22 are written in the integer
// form (ConvInteger / MatMulInteger and int32 requantization), the others in
// the float form; the file passes ONNX's full shape inference with type
// checks (ONNX Runtime's loader is stricter than the checker).
TEST(OnnxExport, LayersBeyondTwoToThe22AreWrittenInTheIntegerForm) {
  const Graph g = build_zoo("resnet18");
  std::set<std::string> want;
  for (const auto& l : export_limits(g)) {
    EXPECT_TRUE(l.integer) << l.node;
    want.insert(l.node);
  }
  EXPECT_EQ(want.size(), 12u);
  for (bool integer : {true, false}) {
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(export_onnx_bytes(g, integer)));
    EXPECT_NO_THROW(onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                                       onnx::ShapeInferenceOptions(true, 1)));
    std::set<std::string> got;
    size_t float_convs = 0;
    for (const auto& n : m.graph().node()) {
      if (n.op_type() == "ConvInteger" || n.op_type() == "MatMulInteger")
        got.insert(n.name().substr(0, n.name().size() - 4));
      float_convs += n.op_type() == "Conv" || n.op_type() == "Gemm";
    }
    EXPECT_EQ(got, integer ? want : std::set<std::string>{});
    EXPECT_EQ(float_convs + got.size(), 21u) << "20 convolutions and the dense layer";
  }
}

std::string error_of(const std::string& bytes) {
  return vta::test::error_of([&] { import_onnx_bytes(bytes, "bad.onnx"); });
}

onnx::ModelProto lenet() {
  onnx::ModelProto m;
  m.ParseFromString(export_onnx_bytes(build_zoo("lenet5")));
  return m;
}

std::string serialize(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

TEST(OnnxErrors, TruncatedFile) {
  const std::string bytes = serialize(lenet());
  EXPECT_HAS(error_of(bytes.substr(0, bytes.size() / 2)), "not a valid ONNX model");
  EXPECT_HAS(error_of(""), "not a valid ONNX model");
}

TEST(OnnxErrors, MissingInitializer) {
  onnx::ModelProto m = lenet();
  auto* inits = m.mutable_graph()->mutable_initializer();
  for (int i = 0; i < inits->size(); ++i)
    if (inits->Get(i).name() == "conv1_W") {
      inits->DeleteSubrange(i, 1);
      break;
    }
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "conv1_W");
  EXPECT_HAS(msg, "neither a graph input, an initializer nor the output of a node");
}

TEST(OnnxErrors, WrongElementType) {
  onnx::ModelProto m = lenet();
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == "conv1_W") t.set_data_type(onnx::TensorProto::FLOAT);
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "conv1_W");
  EXPECT_HAS(msg, "expected INT8, INT32");
}

// The export's half-up rounding offset must be a quarter of the unit of the
// value it is added to; another value is refused, not silently rounded.
TEST(OnnxErrors, RoundingOffsetOfAnotherSize) {
  onnx::ModelProto m = lenet();
  std::string offset;
  for (const auto& n : m.graph().node())
    if (n.op_type() == "Add" && n.name() == "conv1_round") offset = n.input(1);
  ASSERT_FALSE(offset.empty());
  for (auto& n : *m.mutable_graph()->mutable_node())  // its own, doubled offset
    if (n.name() == "conv1_round") n.set_input(1, "odd_offset");
  for (const auto& t : m.graph().initializer())
    if (t.name() == offset) {
      onnx::TensorProto o = t;
      o.set_name("odd_offset");
      o.set_float_data(0, o.float_data(0) * 2);
      *m.mutable_graph()->add_initializer() = o;
      break;
    }
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "conv1_q");
  EXPECT_HAS(msg, "rounding offset");
}

// resnet18 exported once (it ends in a global average pool).
const std::string& resnet18_bytes() {
  static const std::string bytes = export_onnx_bytes(build_zoo("resnet18"));
  return bytes;
}

// The global average pool is written as ReduceSum * mult * 2^-12.
TEST(OnnxExport, GlobalAveragePoolIsReduceSumTimesMultiplier) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(resnet18_bytes()));
  int sums = 0, muls = 0;
  for (const auto& n : m.graph().node()) {
    sums += n.op_type() == "ReduceSum";
    muls += n.op_type() == "Mul";
    EXPECT_NE(n.op_type(), "GlobalAveragePool");
  }
  EXPECT_EQ(sums, 1);
  EXPECT_EQ(muls, 1);
}

TEST(OnnxErrors, MulNotAfterReduceSum) {
  onnx::ModelProto m = lenet();
  auto* n = m.mutable_graph()->mutable_node();
  for (auto& x : *n)
    if (x.name() == "conv1_round") x.set_op_type("Mul");
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "conv1_round");
  EXPECT_HAS(msg, "right after a ReduceSum");
}

TEST(OnnxErrors, ReduceSumOverOtherAxes) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(resnet18_bytes()));
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == "axes_hw") t.set_int64_data(1, 1);
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "ReduceSum");
  EXPECT_HAS(msg, "only the sum over H and W");
}

TEST(OnnxErrors, Cycle) {
  onnx::ModelProto m = lenet();
  // Feed the first Conv from the last QuantizeLinear's output.
  auto* nodes = m.mutable_graph()->mutable_node();
  const std::string last = nodes->Get(nodes->size() - 1).output(0);
  for (auto& n : *nodes)
    if (n.op_type() == "DequantizeLinear" && n.input(0) == "input") n.set_input(0, last);
  EXPECT_HAS(error_of(serialize(m)), "cycle");
}

TEST(OnnxErrors, UnsupportedOperatorNamesNodeAndOp) {
  onnx::ModelProto m = lenet();
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "AveragePool") {
      n.set_op_type("LpPool");
      break;
    }
  const std::string msg = error_of(serialize(m));
  EXPECT_HAS(msg, "(LpPool)");
  EXPECT_HAS(msg, "operator is not supported");
}

TEST(OnnxErrors, UnsupportedAttributeNamesIt) {
  onnx::ModelProto m = lenet();
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == "Conv") {
      auto* a = n.add_attribute();
      a->set_name("dilations");
      a->set_type(onnx::AttributeProto::INTS);
      a->add_ints(2);
      a->add_ints(2);
      break;
    }
  EXPECT_HAS(error_of(serialize(m)), "attribute dilations must be 1");
}

// Non-power-of-two scales import (ONNX Runtime's quantizer makes them), but
// the bias must still be quantized with input scale x weight scale, as
// ONNX Runtime's QLinearConv fusion assumes: changing one scale alone breaks
// that, and the message names the node and both scales.
TEST(OnnxErrors, NonPowerOfTwoScaleMustStillMatchTheBiasScale) {
  onnx::ModelProto m = lenet();
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name().rfind("scale_", 0) == 0) {
      t.set_float_data(0, 0.3f);
      break;
    }
  EXPECT_HAS(error_of(serialize(m)),
             "node 'conv1' (Conv): bias scale 6.1035156e-05 of channel 0 is not input scale x "
             "weight scale (0.09)");
}

}  // namespace
