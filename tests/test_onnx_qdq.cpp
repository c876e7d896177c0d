// ONNX files exactly as ONNX Runtime's static quantizer writes them (QDQ
// format, issue 35): float input and output, QuantizeLinear /
// DequantizeLinear at scales that are not powers of two, uint8 and int8
// activations, per-tensor and per-channel weights, and the quantizer's
// patterns around MaxPool, Flatten, Reshape, Clip / Relu, Add, AveragePool
// and GlobalAveragePool, Concat and Pad, and asymmetric weights (weight
// zero points: uint8 weights, or int8 with WeightSymmetric off). The models are made by
// tests/data/onnx-qdq/make_models.py (onnxruntime.quantization) and
// committed. ONNX Runtime 1.17 (the oracle), the integer reference and the
// backend (golden; VTA_TEST_BACKEND names another) agree on every float of
// the output, bit for bit, and `vta run --onnx M --input --expect` says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "ort_oracle.h"
#include "run_cli.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::compiler;

using vta::test::oracle_backend;

const fs::path kModels = fs::path(VTA_SOURCE_DIR) / "tests" / "data" / "onnx-qdq";

// The committed model `name` copied into this backend's oracle folder
// (build/.../onnx_oracle/BACKEND/FOLDER): ONNX Runtime's files go beside it.
fs::path oracle_model(const std::string& name, const std::string& folder) {
  const fs::path dir = fs::path(VTA_BINARY_DIR) / "onnx_oracle" / oracle_backend() / folder;
  fs::create_directories(dir);
  const fs::path model = dir / "model.onnx";
  fs::copy_file(kModels / (name + ".onnx"), model, fs::copy_options::overwrite_existing);
  return model;
}

class QdqOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(QdqOracle, FloatInOutBitExactWithOnnxRuntime) {
  REQUIRE_EXACT_INT8_ORACLE();
  const std::string name = GetParam();
  const fs::path model = oracle_model(name, "qdq_" + name);
  const fs::path dir = model.parent_path();
  const Graph g = import_onnx(model.string());
  ASSERT_TRUE(g.at(0).real) << "the graph input is the float tensor";
  ASSERT_EQ(g.at(g.output).op, Op::Dequantize);
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  // Asymmetric weights per tensor (uint8, or int8 with WeightSymmetric off):
  // w - zero point leaves int8, so the layers run on the host, saying so.
  const bool asym_w = name.ends_with("_u8_wu8") || name.ends_with("_wasym");
  int convs = 0, on_vta = 0;
  for (const auto& n : net.graph.nodes) {
    if (n.op == Op::Conv2d || n.op == Op::Dense) ++convs, on_vta += n.device == Device::Vta;
    // Every node on the host says why.
    if (n.device == Device::Host && n.op != Op::Input && n.op != Op::DeviceCopy) {
      EXPECT_FALSE(host_reason(net.graph, n, cfg).empty()) << n.name << " (" << op_name(n.op) << ")";
    }
    if (asym_w && (n.op == Op::Conv2d || n.op == Op::Dense)) {
      EXPECT_NE(host_reason(net.graph, n, cfg).find("weight zero point: w - zero point spans"), std::string::npos)
          << n.name << ": " << host_reason(net.graph, n, cfg);
    }
  }
  EXPECT_EQ(on_vta, asym_w ? 0 : convs) << "every convolution and dense layer on VTA (on the host: asymmetric weights)";
  for (uint32_t seed : {1u, 2u}) {
    // Uniform in [-1.25, 1.25]: past the calibration range [-1, 1], so the
    // input's QuantizeLinear saturates too.
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.25f, 1.25f);
    Tensor in{g.at(0).out, {}, {}, std::vector<float>(static_cast<size_t>(g.at(0).out.size()))};
    for (auto& v : in.real) v = u(rng);
    NpyArray x;
    x.type = NpyType::Float32;
    x.dims = {in.shape.n, in.shape.c, in.shape.h, in.shape.w};
    x.values = float_bits(in.real);
    const NpyArray ort = vta::test::run_ort(model, "input", x);
    ASSERT_EQ(ort.type, NpyType::Float32);
    const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
    const vta::test::Diff d = vta::test::compare(ort.values, float_bits(ref.real));
    std::cout << fmt::format("ORACLE qdq {} seed {}: {} floats, {} differ; {} of {} conv/dense on VTA\n", name, seed,
                             d.elements, d.differing, on_vta, convs);
    EXPECT_EQ(ort.values.size(), ref.real.size());
    EXPECT_EQ(d.differing, 0u) << name << " seed " << seed;
    auto backend = vta::make_backend(oracle_backend(), cfg);
    const NetworkResult res = run_network(net, *backend, in);
    EXPECT_EQ(float_bits(res.output.real), float_bits(ref.real)) << name << " on " << oracle_backend();
    if (seed == 1) {  // the command line on the same files
      vta::compiler::NpyArray want = ort;
      write_npy((dir / "ort.npy").string(), want);
      const auto r = vta::test::run_vta("run --onnx " + model.string() +
                                        " --input input=" + (dir / "input.npy").string() + " --expect " +
                                        (dir / "ort.npy").string() + " --backend " + oracle_backend() + " --why-host");
      EXPECT_EQ(r.code, 0) << r.out;
      EXPECT_NE(r.out.find("bit-exact (10 elements)"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("(quantize): QuantizeLinear of the float input 'input'"), std::string::npos) << r.out;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Qdq, QdqOracle,
                         ::testing::Values("cnn_flatten_u8", "cnn_flatten_u8_pc", "cnn_flatten_s8_pc", "cnn_reshape_u8",
                                           "cnn_reshape_u8_pc", "cnn_reshape_s8_pc", "pools_u8", "pools_u8_pc",
                                           "pools_s8_pc", "residual_u8", "residual_u8_pc", "residual_s8_pc",
                                           "cnn_flatten_op13_u8_pc", "cnn_flatten_op19_s8_pc", "resnet18_u8",
                                           "resnet18_s8_pc", "mobilenet_v2_u8", "mobilenet_v2_u8_pc",
                                           "cnn_flatten_u8_wu8", "cnn_flatten_u8_wu8_pc", "cnn_flatten_s8_wasym",
                                           "residual_u8_wu8", "cnn_flatten_op13_u8_wu8", "cnn_flatten_op19_s8_wasym",
                                           "branches_u8", "branches_u8_pc", "branches_u8_wu8", "branches_op13_u8",
                                           "branches_op19_u8_pc", "softmax_u8", "resize_u8"),
                         [](const auto& i) { return i.param; });

// torchvision's networks as make_torchvision.py writes them (random weights
// at 64x64, quantized by ONNX Runtime's quantizer): MobileNet-v3 (small,
// HardSigmoid / HardSwish and squeeze-excitation Muls), EfficientNet-B0
// (Sigmoid: SiLU and squeeze-excitation) and ResNet-18. One seeded input:
// ONNX Runtime, the integer reference and the backend agree bit for bit,
// every convolution and dense layer runs on VTA, every host node says why.
class TorchvisionOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchvisionOracle, BitExactWithOnnxRuntime) {
  REQUIRE_EXACT_INT8_ORACLE();
  const std::string name = GetParam();
  // The per-channel models compile for 25 to 90 s each (every channel's
  // requantization is checked on all its accumulators): golden runs them,
  // the other backends the per-tensor ones, which run the same host ops and
  // the same kinds of VTA layers (a per-channel conv's ALU rows are the
  // other QDQ models' on every backend).
  if (name.ends_with("_pc") && oracle_backend() != "golden")
    GTEST_SKIP() << name << " runs on golden (25 to 90 s of compile a backend)";
  const fs::path model = oracle_model(name, name);
  const Graph g = import_onnx(model.string());
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  int convs = 0, on_vta = 0, host = 0;
  for (const auto& n : net.graph.nodes) {
    if (n.op == Op::Conv2d || n.op == Op::Dense) ++convs, on_vta += n.device == Device::Vta;
    if (n.device == Device::Host && n.op != Op::Input && n.op != Op::DeviceCopy) {
      ++host;
      EXPECT_FALSE(host_reason(net.graph, n, cfg).empty()) << n.name << " (" << op_name(n.op) << ")";
    }
  }
  EXPECT_EQ(on_vta, convs) << "every convolution and dense layer on VTA";
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.25f, 1.25f);
  Tensor in{g.at(0).out, {}, {}, std::vector<float>(static_cast<size_t>(g.at(0).out.size()))};
  for (auto& v : in.real) v = u(rng);
  NpyArray x;
  x.type = NpyType::Float32;
  x.dims = {in.shape.n, in.shape.c, in.shape.h, in.shape.w};
  x.values = float_bits(in.real);
  const NpyArray ort = vta::test::run_ort(model, "input", x);
  const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
  const vta::test::Diff d = vta::test::compare(ort.values, float_bits(ref.real));
  std::cout << fmt::format("ORACLE torchvision {}: {} floats, {} differ; {} of {} conv/dense on VTA, {} host nodes\n",
                           name, d.elements, d.differing, on_vta, convs, host);
  EXPECT_EQ(ort.values.size(), ref.real.size());
  EXPECT_EQ(d.differing, 0u) << name;
  auto backend = vta::make_backend(oracle_backend(), cfg);
  const NetworkResult res = run_network(net, *backend, in);
  EXPECT_EQ(float_bits(res.output.real), float_bits(ref.real)) << name << " on " << oracle_backend();
}

INSTANTIATE_TEST_SUITE_P(Qdq, TorchvisionOracle,
                         ::testing::Values("tv_mobilenet_v3_small_u8", "tv_mobilenet_v3_small_u8_pc",
                                           "tv_efficientnet_b0_u8", "tv_efficientnet_b0_u8_pc", "tv_resnet18_u8"),
                         [](const auto& i) { return i.param; });

// An int8 QLinearConv without zero points whose multiplier is not a power
// of two (issue 35: it ran on the host with no reason given): on VTA through
// the exact ALU form where one exists, else on the host saying why; bit for
// bit with ONNX Runtime on two seeded inputs either way.
class QLinearConvOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(QLinearConvOracle, WithoutZeroPointsBitExact) {
  REQUIRE_ORACLE();
  const std::string name = GetParam();
  const bool on_vta = name == "qlinearconv_s8";
  const fs::path model = oracle_model(name, name);
  const Graph g = import_onnx(model.string());
  EXPECT_EQ(g.at(g.output).frq.on, on_vta) << g.dump();
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  for (const auto& n : net.graph.nodes) {
    if (n.op != Op::Conv2d) continue;
    EXPECT_EQ(n.device, on_vta ? Device::Vta : Device::Host) << n.name;
    if (!on_vta) {
      EXPECT_NE(host_reason(net.graph, n, cfg).find("has no exact per-tensor VTA form"), std::string::npos)
          << host_reason(net.graph, n, cfg);
    }
  }
  for (uint32_t seed : {1u, 2u}) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> u(-128, 127);
    NpyArray x;
    x.dims = {1, 16, 8, 8};
    Tensor in{g.at(0).out, {}};
    for (int i = 0; i < 16 * 8 * 8; ++i) {
      x.values.push_back(u(rng));
      in.data.push_back(static_cast<int8_t>(x.values.back()));
    }
    const NpyArray ort = vta::test::run_ort(model, "x", x);
    const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
    const vta::test::Diff d = vta::test::compare(ort.values, {ref.data.begin(), ref.data.end()});
    std::cout << fmt::format("ORACLE {} seed {}: {} elements, {} differ\n", name, seed, d.elements, d.differing);
    EXPECT_EQ(d.differing, 0u);
    auto backend = vta::make_backend(oracle_backend(), cfg);
    EXPECT_EQ(run_network(net, *backend, in).output.data, ref.data) << oracle_backend();
  }
}

INSTANTIATE_TEST_SUITE_P(Qdq, QLinearConvOracle, ::testing::Values("qlinearconv_s8", "qlinearconv_s8_small_m"),
                         [](const auto& i) { return i.param; });

}  // namespace
