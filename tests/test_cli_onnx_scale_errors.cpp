// `vta run --onnx M` on QDQ models (ONNX Runtime's quantizer form, scales
// that are not powers of two) with a bad scale or zero point: one line that
// names the file, the node and the value at fault, exit code 2.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "onnx_builder.h"
#include "run_cli.h"

namespace {

using vta::test::OnnxBuilder;
using vta::test::run_vta;
namespace fs = std::filesystem;
constexpr int U8 = onnx::TensorProto::UINT8, I8 = onnx::TensorProto::INT8, I32 = onnx::TensorProto::INT32;
constexpr float kXs = 0.0098f, kWs = 0.0063f, kYs = 0.021f;

// x (uint8) -> DequantizeLinear -> Conv (int8 weights, int32 bias at
// x_scale * w_scale) -> QuantizeLinear -> y (uint8), the scales and zero
// points as given.
struct Model {
  float xs = kXs, ws = kWs, bs = kXs * kWs, ys = kYs;
  int64_t xz = 120, yz = 7;
  OnnxBuilder b;
  std::string build() {
    b.input("x", U8, {1, 2, 4, 4});
    b.scalar("xs", xs), b.ints("xz", U8, {}, {xz});
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xf"})->set_name("dq_x");
    std::vector<int64_t> w(36);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>(i * 7 % 51) - 25;
    b.ints("w", I8, {2, 2, 3, 3}, w), b.scalar("ws", ws), b.ints("wz", I8, {}, {0});
    b.node("DequantizeLinear", {"w", "ws", "wz"}, {"wf"})->set_name("dq_w");
    b.ints("bias", I32, {2}, {100, -40}), b.scalar("bs", bs), b.ints("bz", I32, {}, {0});
    b.node("DequantizeLinear", {"bias", "bs", "bz"}, {"bf"})->set_name("dq_b");
    auto* cv = b.node("Conv", {"xf", "wf", "bf"}, {"yf"});
    cv->set_name("conv");
    OnnxBuilder::attr(cv, "kernel_shape", std::vector<int64_t>{3, 3});
    b.scalar("ys", ys), b.ints("yz", U8, {}, {yz});
    b.node("QuantizeLinear", {"yf", "ys", "yz"}, {"y"})->set_name("q_y");
    b.output("y", U8, {1, 2, 2, 2});
    return b.bytes();
  }
};

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / ("cli-onnx-scales-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  return dir / name;
}

// One line naming the model file and each of `needles`, exit code 2.
void expect_error(const std::string& file, const std::string& bytes, const std::vector<std::string>& needles) {
  const auto r = run_vta("run --onnx " + write(file, bytes).string());
  EXPECT_EQ(r.code, 2) << file << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << file << "\n" << r.out;
  EXPECT_NE(r.out.find(file), std::string::npos) << r.out;
  for (const std::string& s : needles)
    EXPECT_NE(r.out.find(s), std::string::npos) << file << ": " << s << "\n" << r.out;
}

TEST(OnnxScaleErrors, TheValidModelRuns) {
  Model m;
  const auto r = run_vta("run --onnx " + write("valid.onnx", m.build()).string());
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST(OnnxScaleErrors, ScaleOfZeroNegativeInfOrNanNamesTheNode) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const struct {
    const char* file;
    float Model::*scale;
    float value;
    const char* node;
    const char* shown;
    const char* rule;
  } cases[] = {
      {"xs_zero.onnx", &Model::xs, 0.0f, "node 'dq_x' (DequantizeLinear)", "scale 0 ",
       "must be positive, finite and normal"},
      {"xs_negative.onnx", &Model::xs, -0.01f, "node 'dq_x' (DequantizeLinear)", "scale -0.01 ",
       "must be positive, finite and normal"},
      {"ys_negative.onnx", &Model::ys, -kYs, "node 'q_y' (QuantizeLinear)", "scale -0.021 ",
       "must be positive, finite and normal"},
      {"ws_inf.onnx", &Model::ws, inf, "node 'dq_w' (DequantizeLinear)", "scale 'ws' is inf", "it must be finite"},
      {"ys_nan.onnx", &Model::ys, nan, "node 'q_y' (QuantizeLinear)", "scale 'ys' is nan", "it must be finite"},
      {"xs_inf.onnx", &Model::xs, inf, "node 'dq_x' (DequantizeLinear)", "scale 'xs' is inf", "it must be finite"}};
  for (const auto& c : cases) {
    Model m;
    m.*c.scale = c.value;
    expect_error(c.file, m.build(), {c.node, c.shown, c.rule});
  }
}

TEST(OnnxScaleErrors, ZeroPointOutOfItsTypeNamesTheValue) {
  // int32_data holds 8-bit values in files written without raw_data; one out
  // of the type's range is refused, not wrapped.
  for (const auto& [file, name, value, node] :
       {std::tuple{"xz_300.onnx", "xz", 300, "node 'dq_x'"}, std::tuple{"yz_neg.onnx", "yz", -1, "node 'q_y'"}}) {
    Model m;
    m.build();
    for (auto& t : *m.b.model().mutable_graph()->mutable_initializer())
      if (t.name() == name) t.clear_raw_data(), t.add_int32_data(value);
    expect_error(file, m.b.bytes(), {node, fmt::format("'{}' holds {}, outside uint8 (0..255)", name, value)});
  }
}

TEST(OnnxScaleErrors, BiasScaleOtherThanInputTimesWeightScale) {
  Model m;
  m.bs = 2 * kXs * kWs;
  expect_error("bias_scale.onnx", m.build(), {"node 'conv' (Conv)", "bias scale", "is not input scale x weight scale"});
}

// `vta zoo export --exact-only`: a layer whose accumulator can reach 2^22
// (float32 with the tie offset is no longer exact there) is written in the
// exact integer form; where that form does not fit int32 either (dense over
// 300000 inputs: up to 2.4e9) the network is refused in one line naming it,
// the layer and its bound, and nothing is written.
TEST(ZooExportErrors, ExactOnlyRefusesALayerWithoutAnExactForm) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("vta_exact_only_{}", getpid());
  fs::create_directories(dir);
  const auto r = run_vta("zoo export dense:300000,2 --exact-only -o " + (dir / "d.onnx").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("dense:300000,2 --exact-only: layer 'fc1' can reach "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("its integer form does not fit int32"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "d.onnx"));
  const auto big = run_vta("zoo export dense:4096,8 --exact-only -o " + (dir / "b.onnx").string());
  EXPECT_EQ(big.code, 0) << big.out;
  EXPECT_NE(big.out.find("1 layers in the exact integer form"), std::string::npos) << big.out;
  EXPECT_EQ(big.out.find("note:"), std::string::npos) << big.out;
  EXPECT_TRUE(fs::exists(dir / "b.onnx"));
  const auto ok = run_vta("zoo export conv:16,8,8,16,1,1,0 --exact-only -o " + (dir / "c.onnx").string());
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_TRUE(fs::exists(dir / "c.onnx"));
  fs::remove_all(dir);
}

}  // namespace
