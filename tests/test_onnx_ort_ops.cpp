// ONNX Runtime's Add, AveragePool and GlobalAveragePool on scales that are
// not powers of two (its fused QLinearAdd / QLinearAveragePool /
// QLinearGlobalAveragePool), against the host's formulas (ort_ops.h):
// QLinearAdd on every pair of uint8 inputs, the pools through the importer
// and the integer reference on random images. Scale sets with many exact
// ties in real arithmetic show the float roundings matter: ONNX's exact
// reference differs from ONNX Runtime there, the host's formula does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "onnx_builder.h"
#include "ort_oracle.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/ort_ops.h"
#include "vta/compiler/ops/reference.h"

namespace {

namespace fs = std::filesystem;
using namespace vta::compiler;
using vta::test::OnnxBuilder;

struct AddCase {
  std::string name;
  float sa, sb, sc;
  int za, zb, zc;  // uint8 zero points
  bool relu;
};

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::path(VTA_BINARY_DIR) / "onnx_oracle" / "ort_ops" / name;
  fs::create_directories(d);
  return d;
}

// DequantizeLinear of the uint8 graph input `x` with scale s and zero point z.
std::string dq(OnnxBuilder& b, const std::string& x, float s, int z) {
  b.scalar(x + "_s", s);
  b.ints(x + "_z", onnx::TensorProto::UINT8, {}, {z});
  b.node("DequantizeLinear", {x, x + "_s", x + "_z"}, {x + "_f"});
  return x + "_f";
}
void quantize(OnnxBuilder& b, const std::string& f, float s, int z, const std::vector<int64_t>& dims) {
  b.scalar("y_s", s);
  b.ints("y_z", onnx::TensorProto::UINT8, {}, {z});
  b.node("QuantizeLinear", {f, "y_s", "y_z"}, {"y"});
  b.output("y", onnx::TensorProto::UINT8, dims);
}

// ONNX's reference: exact real arithmetic, half to even (long double holds
// the products and the sum of two float multiples exactly enough here).
int add_exact(int da, int db, const AddCase& c) {
  const long double v = (static_cast<long double>(da) * c.sa + static_cast<long double>(db) * c.sb) / c.sc;
  const long double r = std::nearbyint(v) + c.zc;
  return static_cast<int>(std::clamp<long double>(r, c.relu ? c.zc : 0, 255));
}

class OrtAdd : public ::testing::TestWithParam<AddCase> {};

TEST_P(OrtAdd, EveryInputPairAsOnnxRuntime) {
  REQUIRE_ORACLE();
  const AddCase& c = GetParam();
  OnnxBuilder b;
  const std::vector<int64_t> dims{1, 1, 256, 256};
  b.input("a", onnx::TensorProto::UINT8, dims);
  b.input("b", onnx::TensorProto::UINT8, dims);
  b.node("Add", {dq(b, "a", c.sa, c.za), dq(b, "b", c.sb, c.zb)}, {"sum"});
  std::string f = "sum";
  if (c.relu) b.node("Relu", {"sum"}, {"sum_relu"}), f = "sum_relu";
  quantize(b, f, c.sc, c.zc, dims);
  const fs::path dir = work_dir("add_" + c.name);
  { std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes(); }
  NpyArray x, y;  // every pair: a is the row, b the column
  x.type = y.type = NpyType::Uint8;
  x.dims = y.dims = dims;
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 256; ++j) x.values.push_back(i), y.values.push_back(j);
  write_npy((dir / "a.npy").string(), x);
  write_npy((dir / "b.npy").string(), y);
  const std::string args = fmt::format("'a={}' 'b={}'", (dir / "a.npy").string(), (dir / "b.npy").string());
  const NpyArray ort = vta::test::run_ort_files(dir / "model.onnx", args, dir);
  const NpyArray unfused = vta::test::run_ort_files(dir / "model.onnx", args + " --opt=disabled", dir);
  std::vector<int64_t> host, exact;
  const AddOrt p{c.za - 128, c.zb - 128, c.zc - 128, c.sa, c.sb, c.sc, true, c.relu};
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 256; ++j) {
      host.push_back(add_ort(i - 128, j - 128, p) + 128);
      exact.push_back(add_exact(i - c.za, j - c.zb, c));
    }
  const vta::test::Diff d = vta::test::compare(ort.values, host), u = vta::test::compare(ort.values, unfused.values),
                        e = vta::test::compare(ort.values, exact);
  std::cout << fmt::format(
      "ORT Add {}: {} pairs, {} differ from the host, {} from ONNX Runtime's unfused graph "
      "(--opt=disabled), {} from ONNX's exact reference\n",
      c.name, d.elements, d.differing, u.differing, e.differing);
  EXPECT_EQ(ort.values.size(), host.size());
  EXPECT_EQ(d.differing, 0u) << "largest difference " << d.largest;
  if (c.name.starts_with("ties") && !c.name.ends_with("unfused")) {
    EXPECT_GT(u.differing, 0u) << "the fused kernel's roundings decide some ties otherwise than the float graph";
  }
}

INSTANTIATE_TEST_SUITE_P(Scales, OrtAdd,
                         ::testing::Values(AddCase{"calibrated", 0.0173f, 0.0291f, 0.0377f, 118, 131, 127, false},
                                           AddCase{"calibrated_relu", 0.0211f, 0.0133f, 0.0297f, 140, 109, 0, true},
                                           AddCase{"ties_half", 0.03f, 0.03f, 0.06f, 128, 128, 128, false},
                                           AddCase{"ties_third", 0.1f, 0.05f, 0.3f, 100, 150, 120, false},
                                           AddCase{"calibrated_odd", 0.07f, 0.11f, 0.35f, 97, 163, 131, false},
                                           AddCase{"ties_relu", 0.05f, 0.15f, 0.1f, 77, 201, 0, true},
                                           AddCase{"ties_relu_unfused", 0.05f, 0.15f, 0.1f, 77, 201, 20, true},
                                           // ResNet-50 per channel, layer2.0's Add (make_torchvision.py)
                                           AddCase{"resnet50_layer2", 0.014899705536663532f, 0.01612613908946514f,
                                                   0.010270929895341396f, 132, 107, 0, false},
                                           // the fused zero-point product decides 4 pairs
                                           AddCase{"fma_zero_points", 0.016698373f, 0.012575811f, 0.011960641f, 184, 65,
                                                   253, false}),
                         [](const auto& i) { return i.param.name; });

// The element of ResNet-50's layer2.0 Add (per channel) where the sum of two
// products for the zero points gave 154 (fl(154.49998)): ONNX Runtime's
// kernel fuses ra za + rb zb into one multiply-add and gives 155.
TEST(OrtAddElement, Resnet50Layer2FusedZeroPointProduct) {
  const AddOrt p{132 - 128, 107 - 128, -128, 0.014899705536663532f, 0.01612613908946514f, 0.010270929895341396f,
                 true,      false};
  EXPECT_EQ(add_ort(153 - 128, 186 - 128, p) + 128, 155);
}

struct PoolCase {
  std::string name;
  bool global;
  int64_t k, s, hw;
  float sx, sy;
  int zx, zy;
};

class OrtPool : public ::testing::TestWithParam<PoolCase> {};

TEST_P(OrtPool, ImportedPoolAsOnnxRuntime) {
  REQUIRE_ORACLE();
  const PoolCase& c = GetParam();
  OnnxBuilder b;
  const int64_t ch = 64, o = c.global ? 1 : (c.hw - c.k) / c.s + 1;
  b.input("x", onnx::TensorProto::UINT8, {1, ch, c.hw, c.hw});
  auto* n = b.node(c.global ? "GlobalAveragePool" : "AveragePool", {dq(b, "x", c.sx, c.zx)}, {"p"});
  if (!c.global) {
    OnnxBuilder::attr(n, "kernel_shape", std::vector<int64_t>{c.k, c.k});
    OnnxBuilder::attr(n, "strides", std::vector<int64_t>{c.s, c.s});
  }
  quantize(b, "p", c.sy, c.zy, {1, ch, o, o});
  const fs::path dir = work_dir("pool_" + c.name);
  { std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes(); }
  const Graph g = import_onnx((dir / "model.onnx").string());
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> u8(0, 255);
  NpyArray x;
  x.type = NpyType::Uint8;
  x.dims = {1, ch, c.hw, c.hw};
  Tensor in{g.at(0).out, {}};
  for (int64_t i = 0; i < in.shape.size(); ++i) {
    x.values.push_back(u8(rng));
    in.data.push_back(static_cast<int8_t>(x.values.back() - 128));
  }
  const NpyArray ort = vta::test::run_ort(dir / "model.onnx", "x", x);
  std::vector<int64_t> ref;
  const std::vector<Tensor> values = run_graph(g, in);
  for (int8_t v : values[static_cast<size_t>(g.output)].data) ref.push_back(v + 128);
  // ONNX's reference: the mean of the window in exact arithmetic, half to even.
  std::vector<int64_t> exact;
  const int64_t k = c.global ? c.hw : c.k, s = c.global ? 1 : c.s;
  for (int64_t q = 0; q < ch; ++q)
    for (int64_t oy = 0; oy < o; ++oy)
      for (int64_t ox = 0; ox < o; ++ox) {
        int64_t sum = 0;
        for (int64_t y = oy * s; y < oy * s + k; ++y)
          for (int64_t xx = ox * s; xx < ox * s + k; ++xx)
            sum += x.values[static_cast<size_t>((q * c.hw + y) * c.hw + xx)] - c.zx;
        const long double v = static_cast<long double>(sum) * c.sx / (static_cast<long double>(k * k) * c.sy);
        exact.push_back(std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(v)) + c.zy, 0, 255));
      }
  const vta::test::Diff d = vta::test::compare(ort.values, ref), e = vta::test::compare(ort.values, exact);
  std::cout << fmt::format(
      "ORT {} {}: {} elements, {} differ from the host (largest difference {}), {} from ONNX's "
      "exact reference\n",
      c.global ? "GlobalAveragePool" : "AveragePool", c.name, d.elements, d.differing, d.largest, e.differing);
  EXPECT_EQ(ort.values.size(), ref.size());
  EXPECT_EQ(d.differing, 0u) << "largest difference " << d.largest;
  if (c.name == "k2s2_ties") {
    EXPECT_GT(e.differing, 0u) << "the float sum decides some ties otherwise than exact arithmetic";
  }
}

INSTANTIATE_TEST_SUITE_P(Scales, OrtPool,
                         ::testing::Values(PoolCase{"k2s2", false, 2, 2, 16, 0.0173f, 0.0291f, 118, 127},
                                           PoolCase{"k3s1", false, 3, 1, 12, 0.0211f, 0.0133f, 140, 109},
                                           PoolCase{"k2s2_ties", false, 2, 2, 16, 0.03f, 0.03f, 128, 128},
                                           PoolCase{"global7", true, 0, 0, 7, 0.0173f, 0.0291f, 118, 127},
                                           PoolCase{"global4_ties", true, 0, 0, 4, 0.03f, 0.03f, 128, 128}),
                         [](const auto& i) { return i.param.name; });

}  // namespace
