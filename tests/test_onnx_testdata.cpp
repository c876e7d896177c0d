// ONNX operator test data (Debian's libonnx-testdata): the float Conv,
// MaxPool, AveragePool and GlobalAveragePool cases that fit VTA are imported,
// quantized post-training on their own input, compiled, run on every backend
// and compared with ONNX's float outputs within one LSB of the output scale
// (the quantization step); the VTA result is also bit-exact with the integer
// reference. Cases outside the supported subset must fail with a message
// naming the attribute. Skipped when the package's data folder is missing.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/onnx.h"
#include "vta/compiler/reference.h"
#include "vta/compiler/runtime.h"
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
    EXPECT_LE(worst, lsb * 1.001f) << GetParam() << " on " << be << ": worst error " << worst << " with an LSB of " << lsb;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Node, Supported,
    ::testing::Values("test_basic_conv_with_padding", "test_basic_conv_without_padding", "test_conv_with_strides_padding",
                      "test_conv_with_strides_no_padding", "test_maxpool_2d_default", "test_maxpool_2d_pads",
                      "test_maxpool_2d_strides", "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_strides",
                      "test_globalaveragepool", "test_globalaveragepool_precomputed"));

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
