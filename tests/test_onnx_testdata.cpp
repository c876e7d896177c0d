// ONNX operator test data (Debian's libonnx-testdata): the float Conv,
// MaxPool, AveragePool and GlobalAveragePool cases that fit VTA are imported,
// quantized post-training on their own input, compiled, run on every backend
// and compared with ONNX's float outputs within one LSB of the output scale
// (the quantization step); the VTA result is also bit-exact with the integer
// reference. Cases outside the supported subset must fail with a message
// naming the attribute. The integer operators (QLinearConv, ConvInteger,
// QLinearMatMul, MatMulInteger) are imported as they are and compared with
// ONNX's integer outputs. Skipped when the package's data folder is missing.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/error.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::compiler;

const fs::path kData = "/usr/share/libonnx-testdata/data/node";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<float> floats(const onnx::TensorProto& t) {
  std::vector<float> v;
  if (!t.raw_data().empty()) {
    v.resize(t.raw_data().size() / 4);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
  }
  return v;
}

// The model with every input but the first turned into an initializer
// holding that input's test value (the test data passes weights as inputs).
std::string with_weights_as_initializers(const fs::path& dir, onnx::TensorProto& x, onnx::TensorProto& y) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(slurp(dir / "model.onnx")));
  const fs::path set = dir / "test_data_set_0";
  EXPECT_TRUE(x.ParseFromString(slurp(set / "input_0.pb")));
  EXPECT_TRUE(y.ParseFromString(slurp(set / "output_0.pb")));
  auto* g = m.mutable_graph();
  for (int i = 1; i < g->input_size(); ++i) {
    onnx::TensorProto w;
    EXPECT_TRUE(w.ParseFromString(slurp(set / fmt::format("input_{}.pb", i))));
    w.set_name(g->input(i).name());
    *g->add_initializer() = w;
  }
  std::string out;
  m.SerializeToString(&out);
  return out;
}

class Supported : public ::testing::TestWithParam<std::string> {};

TEST_P(Supported, WithinOneLsbOfOnnxAndBitExactWithTheReference) {
  const fs::path dir = kData / GetParam();
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is missing (install libonnx-testdata)";
  onnx::TensorProto x, y;
  const std::string bytes = with_weights_as_initializers(dir, x, y);
  ASSERT_TRUE(onnx_is_float_model(bytes));
  const QuantizedModel q = import_onnx_float(bytes, GetParam(), floats(x));
  const Node& out = q.graph.at(q.graph.output);
  const std::vector<float> want = floats(y);
  ASSERT_EQ(static_cast<int64_t>(want.size()), out.out.size());
  const Tensor ref = run_graph(q.graph, q.input)[static_cast<size_t>(q.graph.output)];
  for (const auto& be : {std::string("golden"), std::string("systemc")}) {
    const vta::Config cfg = vta::test::preset("vta-1x16x16");
    auto backend = vta::make_backend(be, cfg);
    const NetworkResult res = run_network(compile(q.graph, cfg), *backend, q.input);
    EXPECT_EQ(res.output.data, ref.data) << be;
    const float lsb = std::ldexp(1.0f, out.exp);
    float worst = 0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(res.output.data[i] * lsb - want[i]));
    EXPECT_LE(worst, lsb * 1.001f) << GetParam() << " on " << be << ": worst error " << worst << " with an LSB of "
                                   << lsb;
  }
}

INSTANTIATE_TEST_SUITE_P(Node, Supported,
                         ::testing::Values("test_basic_conv_with_padding", "test_basic_conv_without_padding",
                                           "test_conv_with_strides_padding", "test_conv_with_strides_no_padding",
                                           "test_maxpool_2d_default", "test_maxpool_2d_pads", "test_maxpool_2d_strides",
                                           "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_strides",
                                           "test_globalaveragepool", "test_globalaveragepool_precomputed"));

// The integer operators: uint8 inputs held as int8 (value - 128), compared
// exactly for int32 outputs and within one LSB (counting the exact ones) for
// requantized outputs, whose ONNX rounding is float round-half-to-even.
std::vector<int64_t> int_values(const onnx::TensorProto& t) {
  std::vector<int64_t> v;
  const std::string& raw = t.raw_data();
  if (t.data_type() == onnx::TensorProto::INT32) {
    for (size_t i = 0; i + 4 <= raw.size(); i += 4) {
      int32_t x;
      std::memcpy(&x, raw.data() + i, 4);
      v.push_back(x);
    }
    if (raw.empty()) v.assign(t.int32_data().begin(), t.int32_data().end());
  } else {
    const bool u8 = t.data_type() == onnx::TensorProto::UINT8;
    for (char c : raw) v.push_back(u8 ? static_cast<uint8_t>(c) : static_cast<int8_t>(c));
    if (raw.empty()) v.assign(t.int32_data().begin(), t.int32_data().end());
  }
  return v;
}

class Integer : public ::testing::TestWithParam<std::string> {};

TEST_P(Integer, MatchesOnnxExactlyOrWithinOneLsb) {
  const fs::path dir = kData / GetParam();
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is missing (install libonnx-testdata)";
  onnx::TensorProto x, y;
  const std::string bytes = with_weights_as_initializers(dir, x, y);
  ASSERT_FALSE(onnx_is_float_model(bytes));
  const Graph g = import_onnx_bytes(bytes, GetParam());
  const Node& in = g.at(0);
  ASSERT_EQ(in.op, Op::Input);
  Tensor input{in.out, {}};
  for (int64_t v : int_values(x)) input.data.push_back(static_cast<int8_t>(in.uint8 ? v - 128 : v));
  ASSERT_EQ(static_cast<int64_t>(input.data.size()), in.out.size());
  const Node& out = g.at(g.output);
  const std::vector<int64_t> want = int_values(y);
  ASSERT_EQ(static_cast<int64_t>(want.size()), out.out.size());
  EXPECT_EQ(out.int32_out, y.data_type() == onnx::TensorProto::INT32);
  EXPECT_EQ(out.uint8, y.data_type() == onnx::TensorProto::UINT8);

  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  // Zero points and non-power-of-two scales: the host, annotated so.
  EXPECT_EQ(net.graph.at(g.output).device, Device::Host) << net.graph.dump();
  auto backend = vta::make_backend("golden", cfg);
  const NetworkResult res = run_network(net, *backend, input);
  const Tensor ref = run_graph(g, input)[static_cast<size_t>(g.output)];
  EXPECT_EQ(res.output.data, ref.data);
  EXPECT_EQ(res.output.wide, ref.wide);
  int exact = 0, worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const int64_t got = out.int32_out ? ref.wide.at(i) : ref.data.at(i) + (out.uint8 ? 128 : 0);
    const int d = static_cast<int>(std::abs(got - want[i]));
    exact += d == 0;
    worst = std::max(worst, d);
  }
  if (out.int32_out) {
    EXPECT_EQ(worst, 0) << GetParam() << ": int32 results must be exact";
  }
  EXPECT_LE(worst, 1) << GetParam();
  RecordProperty("exact", exact);
  RecordProperty("values", static_cast<int>(want.size()));
  std::cout << GetParam() << ": " << exact << " of " << want.size() << " values exact, worst difference " << worst
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(Node, Integer,
                         ::testing::Values("test_basic_convinteger", "test_convinteger_with_padding",
                                           "test_convinteger_without_padding", "test_matmulinteger", "test_qlinearconv",
                                           "test_qlinearmatmul_2D", "test_qlinearmatmul_3D"));

class Unsupported : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(Unsupported, FailsNamingTheReason) {
  const fs::path dir = kData / GetParam().first;
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is missing (install libonnx-testdata)";
  onnx::TensorProto x, y;
  const std::string bytes = with_weights_as_initializers(dir, x, y);
  try {
    import_onnx_float(bytes, GetParam().first, floats(x));
    FAIL() << GetParam().first << " was accepted";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().second), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Node, Unsupported,
    ::testing::Values(std::make_pair(std::string("test_conv_with_autopad_same"), std::string("attribute auto_pad")),
                      std::make_pair(std::string("test_conv_with_strides_and_asymmetric_padding"), std::string("pads")),
                      std::make_pair(std::string("test_maxpool_2d_ceil"), std::string("attribute ceil_mode")),
                      std::make_pair(std::string("test_maxpool_2d_dilations"), std::string("dilations"))));

}  // namespace
