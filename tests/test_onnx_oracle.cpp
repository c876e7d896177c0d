// The outside oracle: every zoo network and microbenchmark export, at two
// weight seeds, runs in ONNX Runtime 1.17 (tests/onnx_oracle/run_ort.js,
// installed by scripts/setup.sh) and must give exactly the project's integer
// reference, which the VTA backend (golden; VTA_TEST_BACKEND names another)
// must give too. The exported file must therefore mean, in ONNX's own
// semantics, what the project computes, rounding included. Skipped when node
// or onnxruntime-node is missing, except under CI, where that fails.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "asym_qdq_models.h"
#include "ort_oracle.h"
#include "run_cli.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/onnx_inputs.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::compiler;

using vta::test::oracle_backend;

using vta::test::compare;
using vta::test::Diff;
using vta::test::run_ort;
using vta::test::run_ort_files;

struct Case {
  std::string net;
  bool big;           // run on the golden model only (cycle models would take minutes)
  int64_t image = 0;  // > 0: one seed at this input size (the structure is the same, the run seconds, not a minute)
};

class Oracle : public ::testing::TestWithParam<Case> {};

TEST_P(Oracle, ExportRunsBitExactInOnnxRuntime) {
  REQUIRE_EXACT_INT8_ORACLE();
  const Case& c = GetParam();
  if (c.big && oracle_backend() != "golden") GTEST_SKIP() << c.net << " runs on the golden model only";
  const std::vector<uint32_t> seeds = c.image > 0 ? std::vector<uint32_t>{1} : std::vector<uint32_t>{1, 2};
  for (uint32_t seed : seeds) {
    ZooOptions o;
    o.seed = seed;
    o.image = c.image;
    const Graph g = build_zoo(c.net, o);
    std::string safe = c.net;
    for (char& ch : safe)
      if (ch == ':' || ch == ',') ch = '_';
    const fs::path dir =
        fs::path(VTA_BINARY_DIR) / "onnx_oracle" / oracle_backend() / fmt::format("{}_s{}", safe, seed);
    fs::create_directories(dir);
    const std::string bytes = export_onnx_bytes(g);
    { std::ofstream(dir / "model.onnx", std::ios::binary) << bytes; }
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(bytes));
    std::vector<int64_t> in_dims;
    for (const auto& d : m.graph().input(0).type().tensor_type().shape().dim()) in_dims.push_back(d.dim_value());
    const Tensor in = zoo_input(g, seed + 100);
    const NpyArray ort = run_ort(dir / "model.onnx", m.graph().input(0).name(), npy_of(in, in_dims));
    const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
    const std::vector<int64_t> ref_v(ref.data.begin(), ref.data.end());
    const Diff d = compare(ort.values, ref_v);
    size_t integer = 0;  // layers in the integer form (ConvInteger / MatMulInteger)
    for (const auto& n : m.graph().node()) integer += n.op_type() == "ConvInteger" || n.op_type() == "MatMulInteger";
    std::cout << fmt::format(
        "ORACLE {} seed {}: {} elements, {} differ, largest difference {} ({} layers in the "
        "integer form)\n",
        c.net, seed, d.elements, d.differing, d.largest, integer);
    EXPECT_EQ(ort.values.size(), ref_v.size()) << c.net;
    EXPECT_EQ(d.differing, 0u) << c.net << " seed " << seed << ": largest difference " << d.largest;
    // And the backend gives the reference's tensor: for the big networks at
    // the first seed only (the second adds ONNX Runtime coverage, not
    // backend coverage, which the golden zoo tests of test_compiler have).
    if (c.big && seed != seeds.front()) continue;
    const vta::Config cfg = vta::test::preset("vta-1x16x16");
    auto backend = vta::make_backend(oracle_backend(), cfg);
    const NetworkResult res = run_network(compile(g, cfg), *backend, in);
    EXPECT_EQ(res.output.data, ref.data) << c.net << " on " << oracle_backend();
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  std::string s;
  for (char ch : i.param.net) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Zoo, Oracle,
                         ::testing::Values(Case{"lenet5", false}, Case{"resnet18", true}, Case{"resnet34", true, 112},
                                           Case{"resnet50", true, 112}, Case{"vgg16", true, 64},
                                           Case{"mobilenet_v1", true}, Case{"conv:16,8,8,16,3,1,1", false},
                                           Case{"conv:16,8,8,16,1,1,0", false}, Case{"conv:20,9,9,40,3,2,1", false},
                                           Case{"dwconv:16,8,8,3,1,1", false}, Case{"maxpool:16,8,8,2,2,0", false},
                                           Case{"maxpool:16,8,8,3,2,1", false}, Case{"avgpool:16,8,8,2", false},
                                           Case{"dense:64,32", false}, Case{"dense:4096,8", false}),
                         case_name);

// Exactness beyond random inputs: every input 127, and per kind
// - conv: 3x3 over 256 channels, weights in [64, 127], so that every sum of
//   products reaches 2^24 and more (2^22 is where the float form stops being
//   exact); the bias takes each interior output back near 0 (within +-256)
//   and the shift is 1, so every unit of the sum shows;
// - dense: over 4608 inputs, weights in [64, 127] (sums beyond 2^25); the
//   bias leaves each output on a tie between 2^22 and 2^23 (shift 16), where
//   float32 loses the form's quarter-unit offset; ReLU;
// - depthwise: 3x3 over 32 channels, weights in [-128, 127]: small sums, a
//   bias that puts each interior output on a tie between 2^22 and 2^23.
// The export writes each in the integer form (ConvInteger with group,
// MatMulInteger, int32 requantization: integer_requant()): ONNX Runtime gives
// the integer reference bit for bit, and so do the backend and `vta run
// --onnx` of the file read back. The float form of the same graph (the
// export before the integer form) differs.
struct WideCase {
  Graph g;
  Tensor in;
  std::vector<int64_t> in_dims, out_dims;
  int64_t largest = 0;  // the largest |sum of products| or |sum + bias| of an interior output on `in`
};

WideCase wide_case(const std::string& kind) {
  const bool dense = kind == "dense", dw = kind == "depthwise";
  std::mt19937 rng(dense ? 8 : dw ? 9 : 7);
  std::uniform_int_distribution<int> pos(64, 127), any(-128, 127), near(-256, 256);
  WideCase c;
  Graph& g = c.g;
  g.name = "wide_" + kind;
  const int64_t cin = dense ? 4608 : dw ? 32 : 256, cout = dense ? 64 : 32;
  Node in;
  in.name = "input";
  in.out = dense ? Shape{1, cin, 1, 1} : Shape{1, cin, 6, 6};
  in.exp = -7;
  g.add(in);
  Node n;
  n.name = dense ? "fc" : "conv";
  n.op = dense ? Op::Dense : Op::Conv2d;
  n.inputs = {0};
  n.kernel = dense ? 1 : 3, n.pad = dense ? 0 : 1, n.groups = dw ? cin : 1;
  n.out = dense ? Shape{1, cout, 1, 1} : Shape{1, cout, 6, 6};
  const int64_t per_out = dense ? cin : dw ? 9 : cin * 9;
  for (int64_t i = 0; i < cout * per_out; ++i) n.weight.push_back(static_cast<int8_t>(dw ? any(rng) : pos(rng)));
  for (int64_t o = 0; o < cout; ++o) {
    int64_t sum = 0;
    for (int64_t i = 0; i < per_out; ++i) sum += n.weight[static_cast<size_t>(o * per_out + i)];
    // an interior output (every input 127): 127 sum + bias
    const int64_t value = kind == "conv" ? near(rng) : ((64 + o % 60) << 16) + (1 << 15);
    n.bias.push_back(static_cast<int32_t>(value - 127 * sum));
    c.largest = std::max({c.largest, std::abs(127 * sum), std::abs(value)});
  }
  n.shift = kind == "conv" ? 1 : 16, n.relu = dense;  // both forms: k = 128 and k = 0 (ReLU)
  n.exp = in.exp - 7 + n.shift;
  g.output = g.add(n);
  c.in = Tensor{in.out, std::vector<int16_t>(static_cast<size_t>(in.out.size()), 127)};
  c.in_dims = dense ? std::vector<int64_t>{1, cin} : std::vector<int64_t>{1, cin, 6, 6};
  c.out_dims = dense ? std::vector<int64_t>{1, cout} : std::vector<int64_t>{1, cout, 6, 6};
  return c;
}

class ExactExport : public ::testing::TestWithParam<std::string> {};

TEST_P(ExactExport, SumsBeyondTwoToThe22AreExactInOnnxRuntime) {
  REQUIRE_ORACLE();
  const WideCase c = wide_case(GetParam());
  const Graph& g = c.g;
  EXPECT_GE(c.largest, int64_t{1} << 22) << "the test input must leave float32's exact range";
  const auto lim = export_limits(g);
  ASSERT_EQ(lim.size(), 1u);
  EXPECT_TRUE(lim[0].integer);
  const Tensor ref = run_graph(g, c.in)[static_cast<size_t>(g.output)];
  const std::vector<int64_t> ref_v(ref.data.begin(), ref.data.end());
  size_t inside = 0;  // outputs that are not saturated: each shows the sum's every unit
  for (int8_t v : ref.data) inside += v > -128 && v < 127;
  EXPECT_GT(inside, ref.data.size() / 5);
  const fs::path dir = fs::path(VTA_BINARY_DIR) / "onnx_oracle" / oracle_backend() / g.name;
  fs::create_directories(dir);
  Diff forms[2];
  for (bool integer : {false, true}) {
    const fs::path model = dir / (integer ? "model.onnx" : "model_float.onnx");
    { std::ofstream(model, std::ios::binary) << export_onnx_bytes(g, integer); }
    const NpyArray ort = run_ort(model, "input", npy_of(c.in, c.in_dims));
    forms[integer] = compare(ort.values, ref_v);
    std::cout << fmt::format(
        "ORACLE {} ({} of {} outputs unsaturated, largest |sum| or |value| {}) {} form: {} "
        "elements, {} differ, largest difference {}\n",
        g.name, inside, ref_v.size(), c.largest, integer ? "integer" : "float", forms[integer].elements,
        forms[integer].differing, forms[integer].largest);
    EXPECT_EQ(ort.values.size(), ref_v.size());
  }
  EXPECT_EQ(forms[1].differing, 0u) << "largest difference " << forms[1].largest;
  EXPECT_GT(forms[0].differing, 0u) << "the float form is not exact here; the test input must show it";
  // The backend, and the file read back by `vta run --onnx`, give the same.
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  auto backend = vta::make_backend(oracle_backend(), cfg);
  EXPECT_EQ(run_network(compile(g, cfg), *backend, c.in).output.data, ref.data) << oracle_backend();
  write_npy((dir / "ref.npy").string(), npy_of(ref, c.out_dims));
  const auto r = vta::test::run_vta("run --onnx " + (dir / "model.onnx").string() +
                                    " --input input=" + (dir / "input.npy").string() + " --expect " +
                                    (dir / "ref.npy").string() + " --backend " + oracle_backend());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bit-exact"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Wide, ExactExport, ::testing::Values("conv", "dense", "depthwise"),
                         [](const auto& i) { return i.param; });

// Models in ONNX Runtime's static-quantizer QDQ form (uint8 activations
// with zero points, per-channel int8 weights; asym_qdq_models.h): ONNX
// Runtime, the integer reference and the backend agree bit for bit, with
// every convolution and dense layer on VTA (test_onnx_asym.cpp and
// test_onnx_ort_scales.cpp assert it); in *_ort_pc (multipliers that are
// not powers of two and differ per output channel) those with a per-channel
// form (Node::frqs, requant_float.h), the others on the host.
struct AsymCase {
  std::string net;
  int64_t image, width;
};
class AsymOracle : public ::testing::TestWithParam<AsymCase> {};

TEST_P(AsymOracle, ImportRunsBitExactWithOnnxRuntime) {
  REQUIRE_EXACT_INT8_ORACLE();
  const AsymCase& c = GetParam();
  for (uint32_t seed : {1u, 2u}) {
    vta::test::AsymQdqBuilder b(seed);
    if (c.net.ends_with("_ort")) b.ort_scales();
    if (c.net.ends_with("_ort_pc")) b.ort_per_channel();
    if (c.net == "resnet18_ort")  // 1000 classes: more of the network shows in the output
      b.resnet18(c.image, c.width, 1000);
    else if (c.net.starts_with("resnet18_plain_ort"))
      b.resnet18_plain(c.image, c.width, 10);
    else if (c.net.starts_with("mobilenet_v1_ort"))
      b.mobilenet_v1(c.image, c.width, 10);
    else if (c.net == "resnet18")
      b.resnet18(c.image, c.width, 10);
    else if (c.net == "mobilenet_v1")
      b.mobilenet_v1(c.image, c.width, 10);
    else
      b.tie_conv(c.image, c.width, 3, 1, 1);
    const fs::path dir =
        fs::path(VTA_BINARY_DIR) / "onnx_oracle" / oracle_backend() / fmt::format("asym_{}_s{}", c.net, seed);
    fs::create_directories(dir);
    { std::ofstream(dir / "model.onnx", std::ios::binary) << b.builder().bytes(); }
    const Graph g = import_onnx((dir / "model.onnx").string());
    std::mt19937 rng(seed + 100);
    std::uniform_int_distribution<int> u8(0, 255);
    NpyArray x;
    x.type = NpyType::Uint8;
    x.dims = b.input_dims();
    Tensor in{g.at(0).out, {}};
    for (int64_t i = 0; i < in.shape.size(); ++i) {
      x.values.push_back(u8(rng));
      in.data.push_back(static_cast<int8_t>(x.values.back() - 128));
    }
    const NpyArray ort = run_ort(dir / "model.onnx", b.input_name(), x);
    const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
    std::vector<int64_t> ref_v;
    for (int8_t v : ref.data) ref_v.push_back(v + 128);
    const Diff d = compare(ort.values, ref_v);
    std::cout << fmt::format("ORACLE asym {} seed {}: {} elements, {} differ, largest difference {}\n", c.net, seed,
                             d.elements, d.differing, d.largest);
    EXPECT_EQ(ort.values.size(), ref_v.size());
    EXPECT_EQ(d.differing, 0u) << c.net << " seed " << seed << ": largest difference " << d.largest;
    if (c.net == "tie_conv") {  // the ties are there: rounding them half up (as before) differs from ONNX Runtime
      Graph up = g;
      for (auto& n : up.nodes) n.round_even = false;
      std::vector<int64_t> up_v;
      const std::vector<Tensor> up_values = run_graph(up, in);
      for (int8_t v : up_values[static_cast<size_t>(up.output)].data) up_v.push_back(v + 128);
      const Diff u = compare(ort.values, up_v);
      std::cout << fmt::format("ORACLE asym {} seed {} rounded half up: {} differ, largest difference {}\n", c.net,
                               seed, u.differing, u.largest);
      EXPECT_GT(u.differing, ort.values.size() / 40);
    }
    const vta::Config cfg = vta::test::preset("vta-1x16x16");
    auto backend = vta::make_backend(oracle_backend(), cfg);
    const CompiledNetwork net = compile(g, cfg);
    if (c.net.ends_with("_ort_pc")) {
      int per_channel = 0, on_vta = 0;
      for (const auto& n : net.graph.nodes)
        if (!n.fmults.empty() && n.op != Op::DeviceCopy) {
          ++per_channel, on_vta += !n.frqs.empty();
          EXPECT_EQ(n.device, n.frqs.empty() ? Device::Host : Device::Vta) << n.name;
        }
      EXPECT_EQ(per_channel, b.convs()) << "every convolution with per-channel multipliers";
      EXPECT_EQ(on_vta, per_channel) << "every per-channel convolution on VTA (one line or two, requant_float.h)";
      std::cout << fmt::format("ORACLE asym {} seed {}: {} of {} per-channel convolutions on VTA\n", c.net, seed,
                               on_vta, per_channel);
    }
    const NetworkResult res = run_network(net, *backend, in);
    EXPECT_EQ(res.output.data, ref.data) << c.net << " on " << oracle_backend();
  }
}

INSTANTIATE_TEST_SUITE_P(Asym, AsymOracle,
                         ::testing::Values(AsymCase{"resnet18", 32, 16}, AsymCase{"mobilenet_v1", 32, 8},
                                           AsymCase{"tie_conv", 16, 16}, AsymCase{"resnet18_ort", 64, 8},
                                           AsymCase{"resnet18_plain_ort", 32, 16}, AsymCase{"mobilenet_v1_ort", 32, 8},
                                           AsymCase{"resnet18_plain_ort_pc", 32, 16},
                                           AsymCase{"mobilenet_v1_ort_pc", 32, 8}),
                         [](const auto& i) { return i.param.net; });

// ONNX's own integer operator tests (Debian's libonnx-testdata): ONNX
// Runtime gives ONNX's expected output, and `vta run --onnx-test` (operands
// given as graph inputs with values) and `vta run --onnx --input ...
// --expect` give ONNX Runtime's, bit for bit.
class TestData : public ::testing::TestWithParam<std::string> {};

TEST_P(TestData, OnnxRuntimeAndVtaAgreeWithTheExpectedOutput) {
  REQUIRE_ORACLE();
  const fs::path dir = fs::path("/usr/share/libonnx-testdata/data/node") / GetParam();
  if (!fs::exists(dir)) {
    if (std::getenv("CI")) FAIL() << "no libonnx-testdata at " << dir;
    GTEST_SKIP() << "no libonnx-testdata at " << dir;
  }
  std::ifstream f(dir / "model.onnx", std::ios::binary);
  const std::string model((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::vector<std::string> names = onnx_graph_inputs(model);
  const fs::path set = dir / "test_data_set_0";
  std::string ort_args, vta_args;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string spec = fmt::format("{}={}", names[k], (set / fmt::format("input_{}.pb", k)).string());
    ort_args += " '" + spec + "'";
    vta_args += " --input '" + spec + "'";
  }
  const fs::path work = fs::path(VTA_BINARY_DIR) / "onnx_oracle" / oracle_backend() / GetParam();
  fs::create_directories(work);
  const NpyArray ort = run_ort_files(dir / "model.onnx", ort_args, work);
  const NpyArray want = read_tensor_file((set / "output_0.pb").string());
  EXPECT_EQ(ort.values, want.values) << "ONNX Runtime and ONNX's expected output";
  write_npy((work / "ort.npy").string(), ort);
  const std::string backend = " --backend " + oracle_backend();
  const auto t = vta::test::run_vta("run --onnx-test " + dir.string() + backend);
  EXPECT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("test_data_set_0: bit-exact"), std::string::npos) << t.out;
  const auto r = vta::test::run_vta("run --onnx " + (dir / "model.onnx").string() + vta_args + " --expect " +
                                    (work / "ort.npy").string() + backend);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bit-exact"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Integer, TestData,
                         ::testing::Values("test_qlinearconv", "test_qlinearmatmul_2D", "test_qlinearmatmul_3D",
                                           "test_convinteger_with_padding", "test_convinteger_without_padding",
                                           "test_basic_convinteger", "test_matmulinteger"));

}  // namespace
