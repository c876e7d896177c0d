// ONNX Runtime quantizer models (tests/data/onnx-qdq) changed where the
// importer has no exact form, and float inputs that cannot be quantized:
// one line naming the file, the node and the value at fault, exit code 2.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "run_cli.h"
#include "vta/compiler/frontend/npy.h"

namespace {

using vta::test::run_vta;
namespace fs = std::filesystem;

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "output: " << (msg)

const fs::path kModels = fs::path(VTA_SOURCE_DIR) / "tests" / "data" / "onnx-qdq";

fs::path tmp_dir() {
  const fs::path d = fs::path(VTA_BINARY_DIR) / "test-tmp" / ("onnx-qdq-errors-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// The committed model `name` with `edit` applied to its initializer `init`,
// written under the test folder.
fs::path edited(const std::string& name, const std::string& init, const std::function<void(onnx::TensorProto&)>& edit) {
  onnx::ModelProto m;
  std::ifstream f(kModels / (name + ".onnx"), std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f));
  bool found = false;
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == init) edit(t), found = true;
  EXPECT_TRUE(found) << init;
  const fs::path out = tmp_dir() / (name + "_" + init + ".onnx");
  std::ofstream o(out, std::ios::binary);
  m.SerializeToOstream(&o);
  return out;
}

void expect_refused(const fs::path& model, const std::vector<std::string>& needles, const std::string& extra = "") {
  const auto r = run_vta("run --onnx " + model.string() + " " + extra);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "vta: error: " + model.string() + ": ");
  for (const auto& n : needles) EXPECT_HAS(r.out, n);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

// Per-channel weight zero points that differ (ONNX Runtime's quantizer writes
// one value for all channels, and its QLinearConv fails others): refused,
// naming the node, the zero point, its value and channel.
TEST(OnnxQdqErrors, PerChannelWeightZeroPointsThatDiffer) {
  const fs::path m = edited("cnn_flatten_s8_pc", "conv2_w_zero_point", [](onnx::TensorProto& t) {
    std::string raw = t.raw_data();
    if (raw.empty()) {
      t.set_int32_data(3, 5);
    } else {
      raw[3] = 5;
      t.set_raw_data(raw);
    }
  });
  expect_refused(m, {"node 'conv2_w_DequantizeLinear'",
                     "zero point 'conv2_w_zero_point' is 5 at channel 3 and 0 at "
                     "channel 0",
                     "per-channel weight zero points must be equal"});
}

// DQ -> MaxPool -> Q at another scale: the 8-bit max pool would not keep the values.
TEST(OnnxQdqErrors, MaxPoolRequantizedAtAnotherScale) {
  onnx::ModelProto m;
  std::ifstream f(kModels / "cnn_flatten_u8.onnx", std::ios::binary);
  ASSERT_TRUE(m.ParseFromIstream(&f));
  auto* g = m.mutable_graph();
  auto* s = g->add_initializer();
  s->set_name("pool1_other_scale");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(0.02f);
  for (auto& n : *g->mutable_node())
    if (n.name() == "pool1_QuantizeLinear") n.set_input(1, "pool1_other_scale");
  const fs::path out = tmp_dir() / "maxpool_scale.onnx";
  {
    std::ofstream o(out, std::ios::binary);
    m.SerializeToOstream(&o);
  }
  expect_refused(out, {"node 'pool1_QuantizeLinear'", "'pool1' is quantized with scale 0.02 and zero point 0 (uint8)",
                       "supported where they are equal"});
}

// A Reshape that is not a flatten to [N, C*H*W].
TEST(OnnxQdqErrors, ReshapeThatIsNotAFlatten) {
  const fs::path m = edited("cnn_reshape_u8", "flat_shape", [](onnx::TensorProto& t) {
    t.clear_raw_data();
    t.clear_int64_data();
    t.add_int64_data(2);
    t.add_int64_data(-1);
  });
  expect_refused(
      m, {"node 'reshape' (Reshape)", "shape [2, -1] of a 1x16x8x8 input", "supported as a flatten to [1, 1024] only"});
}

// Pad with pads other than [0, 0, p, p, 0, 0, p, p] (H and W alike).
TEST(OnnxQdqErrors, PadThatIsNotSymmetric) {
  const fs::path m = edited("branches_u8", "pads", [](onnx::TensorProto& t) {
    t.clear_raw_data();
    t.clear_int64_data();
    for (int64_t v : {0, 0, 1, 0, 0, 0, 1, 1}) t.add_int64_data(v);
  });
  expect_refused(m, {"node 'pad' (Pad)", "pads [0, 0, 1, 0, 0, 0, 1, 1]", "supported as [0, 0, p, p, 0, 0, p, p]"});
}

// Concat along another axis than the channels.
TEST(OnnxQdqErrors, ConcatAlongAnotherAxis) {
  onnx::ModelProto m;
  std::ifstream f(kModels / "branches_u8.onnx", std::ios::binary);
  ASSERT_TRUE(m.ParseFromIstream(&f));
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.name() == "cat") n.mutable_attribute(0)->set_i(2);
  const fs::path out = tmp_dir() / "concat_axis.onnx";
  {
    std::ofstream o(out, std::ios::binary);
    m.SerializeToOstream(&o);
  }
  expect_refused(out, {"node 'cat' (Concat)", "attribute axis is 2: supported along the channels (1) only"});
}

// Concat of int8 activations: ONNX Runtime turns the graph around it into
// uint8 and runs the convolutions beside it in float (branches_s8_pc: 3 of 10
// floats differed at seed 1 when it was imported), so it is refused.
TEST(OnnxQdqErrors, ConcatOfInt8Activations) {
  expect_refused(
      kModels / "branches_s8_pc.onnx",
      {"node 'cat' (Concat)", "input 'left_DequantizeLinear_Output' is int8", "quantize with uint8 activations"});
}

// The quantizer's model with one node's attribute or operator changed.
fs::path edited_node(const std::string& name, const std::string& node,
                     const std::function<void(onnx::NodeProto&)>& edit) {
  onnx::ModelProto m;
  std::ifstream f(kModels / (name + ".onnx"), std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f));
  bool found = false;
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.name() == node) edit(n), found = true;
  EXPECT_TRUE(found) << node;
  const fs::path out = tmp_dir() / (name + "_" + node + ".onnx");
  std::ofstream o(out, std::ios::binary);
  m.SerializeToOstream(&o);
  return out;
}

// Softmax over another axis than the logits' (QLinearSoftmax's form is over
// the last axis of Gemm's 2-D output).
TEST(OnnxQdqErrors, SoftmaxOverAnotherAxis) {
  const fs::path m = edited_node("softmax_u8", "softmax", [](onnx::NodeProto& n) {
    n.clear_attribute();
    auto* a = n.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
  });
  expect_refused(m, {"node 'softmax' (Softmax)", "not axis 0 of the output of dense"});
}

// Resize other than nearest by a whole factor: refused, naming the attribute
// or the scales.
TEST(OnnxQdqErrors, ResizeOtherThanNearest) {
  const fs::path lin =
      edited_node("resize_u8", "up", [](onnx::NodeProto& n) { n.mutable_attribute(0)->set_s("linear"); });
  expect_refused(lin, {"node 'up' (Resize)", "attribute mode is 'linear': only 'nearest' is supported"});
  const fs::path m = edited("resize_u8", "scales", [](onnx::TensorProto& t) {
    t.clear_raw_data();
    t.clear_float_data();
    for (float v : {1.0f, 1.0f, 1.5f, 1.5f}) t.add_float_data(v);
  });
  expect_refused(m, {"node 'up' (Resize)", "scales [1, 1, f, f]"});
}

// Sigmoid on the 8-bit tensor itself (no DequantizeLinear before it), and
// Mul by a float constant: refused, the node named (the lookup table and
// QLinearMul take dequantized 8-bit tensors).
TEST(OnnxQdqErrors, SigmoidAndMulNeedDequantizedInputs) {
  const fs::path sig = edited_node("softmax_u8", "softmax", [](onnx::NodeProto& n) {
    n.set_op_type("Sigmoid");
    n.clear_attribute();
    n.set_input(0, "fc_QuantizeLinear_Output");
  });
  expect_refused(sig,
                 {"node 'softmax' (Sigmoid)", "input 'fc_QuantizeLinear_Output' must be a DequantizeLinear output"});
  const fs::path mul = edited_node("softmax_u8", "softmax", [](onnx::NodeProto& n) {
    n.set_op_type("Mul");
    n.clear_attribute();
    n.add_input("fc_scale");
  });
  expect_refused(mul, {"node 'softmax' (Mul)", "between two DequantizeLinear outputs (QLinearMul)"});
}

// A float input given as integers, and a NaN: the file and the input named.
TEST(OnnxQdqErrors, FloatInputFiles) {
  const fs::path model = kModels / "pools_u8.onnx";
  vta::compiler::NpyArray a;
  a.type = vta::compiler::NpyType::Int8;
  a.dims = {1, 3, 32, 32};
  a.values.assign(3 * 32 * 32, 1);
  const fs::path ints = tmp_dir() / "ints.npy";
  write_npy(ints.string(), a);
  auto r = run_vta("run --onnx " + model.string() + " --input input=" + ints.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "vta: error: " + ints.string() + ": the model's input 'input' is float32, the file holds integers");
  a.type = vta::compiler::NpyType::Float32;
  std::vector<float> v(a.values.size(), 0.5f);
  v[7] = std::numeric_limits<float>::quiet_NaN();
  a.values = vta::compiler::float_bits(v);
  const fs::path nan = tmp_dir() / "nan.npy";
  write_npy(nan.string(), a);
  r = run_vta("run --onnx " + model.string() + " --input input=" + nan.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "vta: error: " + nan.string() + ": element 7 is NaN (input 'input')");
}

}  // namespace
