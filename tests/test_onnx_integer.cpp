// The integer ONNX operators (QLinearConv, ConvInteger, QLinearMatMul,
// MatMulInteger) on models written here, checked against computations
// written independently in this file: the symmetric power-of-two form runs
// on VTA bit-exactly; any scales and output zero points without input or
// weight zero points run on VTA through ALU MUL (on the host, identically,
// without it), within one LSB of ONNX's float requantization; input and
// weight zero points and int32 outputs run on the host, exactly (int32) or
// within one LSB.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <random>

#include "onnx_builder.h"
#include "test_support.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/fields.h"

namespace {

using namespace vta::compiler;
using vta::test::OnnxBuilder;
constexpr int U8 = onnx::TensorProto::UINT8, I8 = onnx::TensorProto::INT8, I32 = onnx::TensorProto::INT32;

std::vector<int64_t> random_ints(size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// sum (x - xz)(w - wz) over the valid window positions, NCHW / OIHW, int64.
std::vector<int64_t> naive_conv(const std::vector<int64_t>& x, int64_t xz, int64_t c, int64_t h, int64_t w,
                                const std::vector<int64_t>& wt, int64_t wz, int64_t o, int64_t k, int64_t s, int64_t p,
                                int64_t& oh, int64_t& ow) {
  oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
  std::vector<int64_t> out(static_cast<size_t>(o * oh * ow), 0);
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx) {
        int64_t acc = 0;
        for (int64_t ic = 0; ic < c; ++ic)
          for (int64_t kh = 0; kh < k; ++kh)
            for (int64_t kw = 0; kw < k; ++kw) {
              const int64_t ih = y * s + kh - p, iw = xx * s + kw - p;
              if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
              acc += (x[static_cast<size_t>((ic * h + ih) * w + iw)] - xz) *
                     (wt[static_cast<size_t>(((oc * c + ic) * k + kh) * k + kw)] - wz);
            }
        out[static_cast<size_t>((oc * oh + y) * ow + xx)] = acc;
      }
  return out;
}

// v / 2^s rounded half to even, as ONNX rounds.
int64_t rne_shift(int64_t v, int s) {
  const int64_t q = v >> s, r = v - (q << s), half = int64_t{1} << (s - 1);
  return r > half || (r == half && (q & 1)) ? q + 1 : q;
}

// ONNX Runtime's requantization of QLinearConv / QLinearMatMul with the float
// multiplier xs * ws / ys (float arithmetic), rounded to nearest even.
int64_t ort_requant(int64_t acc, float xs, float ws, float ys, int64_t zp, int64_t lo, int64_t hi) {
  const float m = xs * ws / ys;
  return std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(static_cast<float>(acc) * m)) + zp, lo, hi);
}

Tensor input_tensor(const Graph& g, const std::vector<int64_t>& v) {
  Tensor t{g.at(0).out, {}};
  for (int64_t x : v) t.data.push_back(static_cast<int8_t>(g.at(0).uint8 ? x - 128 : x));
  return t;
}

// Compiles and runs on the golden backend; checks that the result equals the
// integer reference and returns it.
Tensor run(const Graph& g, const Tensor& in, Device expect_device,
           const vta::Config& cfg = vta::test::preset("vta-1x16x16")) {
  const CompiledNetwork net = compile(g, cfg);
  // The compiled node of g's output (device copies and the stem's im2col shift the ids).
  const auto out = std::find_if(net.graph.nodes.begin(), net.graph.nodes.end(),
                                [&](const Node& n) { return n.name == g.at(g.output).name; });
  EXPECT_TRUE(out != net.graph.nodes.end() && out->device == expect_device) << net.graph.dump();
  auto backend = vta::make_backend("golden", cfg);
  const NetworkResult res = run_network(net, *backend, in);
  const Tensor ref = run_graph(g, in)[static_cast<size_t>(g.output)];
  EXPECT_EQ(res.output.data, ref.data);
  EXPECT_EQ(res.output.wide, ref.wide);
  return res.output;
}

TEST(QLinearConv, SymmetricPowerOfTwoRunsOnVtaBitExactly) {
  const int64_t c = 16, h = 6, w = 6, o = 16, k = 3;
  const auto x = random_ints(static_cast<size_t>(c * h * w), -128, 127, 1);
  const auto wt = random_ints(static_cast<size_t>(o * c * k * k), -40, 40, 2);
  const auto bias = random_ints(static_cast<size_t>(o), -3000, 3000, 3);
  OnnxBuilder b;
  b.input("x", I8, {1, c, h, w});
  b.scalar("xs", 1.0f / 16), b.ints("xz", I8, {}, {0});
  b.ints("w", I8, {o, c, k, k}, wt), b.floats("ws", {1}, {1.0f / 64}), b.ints("wz", I8, {1}, {0});
  b.scalar("ys", 1.0f / 32), b.ints("yz", I8, {}, {0});
  b.ints("b", I32, {o}, bias);
  OnnxBuilder::attr(b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"}), "pads",
                    std::vector<int64_t>{1, 1, 1, 1});
  b.output("y", I8, {1, o, h, w});
  const Graph g = import_onnx_bytes(b.bytes(), "sym.onnx");
  EXPECT_EQ(g.at(g.output).shift, 5);  // 2^-4 * 2^-6 / 2^-5
  EXPECT_FALSE(g.at(g.output).asymmetric());
  const Tensor out = run(g, input_tensor(g, x), Device::Vta);
  int64_t oh = 0, ow = 0;
  const auto acc = naive_conv(x, 0, c, h, w, wt, 0, o, k, 1, 1, oh, ow);
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t want = std::clamp<int64_t>(rne_shift(acc[i] + bias[i / static_cast<size_t>(oh * ow)], 5), -128, 127);
    ASSERT_EQ(out.data[i], want) << i;
  }
}

TEST(QLinearConv, Uint8ZeroPointsAndAnyScalesRunOnTheHostWithinOneLsb) {
  const int64_t c = 3, h = 7, w = 7, o = 4, k = 3, s = 2, p = 1;
  const auto x = random_ints(static_cast<size_t>(c * h * w), 0, 255, 4);
  const auto wt = random_ints(static_cast<size_t>(o * c * k * k), 0, 255, 5);
  const auto bias = random_ints(static_cast<size_t>(o), -2000, 2000, 6);
  const float xs = 0.0173f, ws = 0.0061f, ys = 0.043f;
  const int64_t xz = 131, wz = 120, yz = 97;
  OnnxBuilder b;
  b.input("x", U8, {1, c, h, w});
  b.scalar("xs", xs), b.ints("xz", U8, {}, {xz});
  b.ints("w", U8, {o, c, k, k}, wt), b.scalar("ws", ws), b.ints("wz", U8, {}, {wz});
  b.scalar("ys", ys), b.ints("yz", U8, {}, {yz});
  b.ints("b", I32, {o}, bias);
  auto* n = b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"});
  OnnxBuilder::attr(n, "pads", std::vector<int64_t>{p, p, p, p});
  OnnxBuilder::attr(n, "strides", std::vector<int64_t>{s, s});
  b.output("y", U8, {1, o, 4, 4});
  const Graph g = import_onnx_bytes(b.bytes(), "asym.onnx");
  EXPECT_TRUE(g.at(g.output).uint8);
  const Tensor out = run(g, input_tensor(g, x), Device::Host);
  int64_t oh = 0, ow = 0;
  const auto acc = naive_conv(x, xz, c, h, w, wt, wz, o, k, s, p, oh, ow);
  const double m = static_cast<double>(xs) * ws / ys;
  int exact = 0;
  for (size_t i = 0; i < acc.size(); ++i) {
    const double real = static_cast<double>(acc[i] + bias[i / static_cast<size_t>(oh * ow)]) * m;
    const int64_t want = std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(real)) + yz, 0, 255);
    const int64_t got = out.data[i] + 128;
    ASSERT_LE(std::abs(got - want), 1) << i;
    exact += got == want;
  }
  EXPECT_GE(exact, static_cast<int>(acc.size()) - 2);  // off by one only at near-ties
}

TEST(ConvInteger, Int8ZeroPointsGiveExactInt32) {
  const int64_t c = 2, h = 5, w = 5, o = 3, k = 3;
  const auto x = random_ints(static_cast<size_t>(c * h * w), -128, 127, 7);
  const auto wt = random_ints(static_cast<size_t>(o * c * k * k), -128, 127, 8);
  OnnxBuilder b(10);
  b.input("x", I8, {1, c, h, w});
  b.ints("w", I8, {o, c, k, k}, wt), b.ints("xz", I8, {}, {-5}), b.ints("wz", I8, {}, {2});
  auto* n = b.node("ConvInteger", {"x", "w", "xz", "wz"}, {"y"});
  OnnxBuilder::attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  OnnxBuilder::attr(n, "strides", std::vector<int64_t>{2, 2});
  b.output("y", I32, {1, o, 3, 3});
  const Graph g = import_onnx_bytes(b.bytes(), "convinteger.onnx");
  EXPECT_TRUE(g.at(g.output).int32_out);
  const Tensor out = run(g, input_tensor(g, x), Device::Host);
  int64_t oh = 0, ow = 0;
  const auto acc = naive_conv(x, -5, c, h, w, wt, 2, o, k, 2, 1, oh, ow);
  ASSERT_EQ(out.wide.size(), acc.size());
  for (size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(out.wide[i], acc[i]) << i;
}

TEST(MatMulInteger, BatchedWeightsAndMixedSignednessGiveExactInt32) {
  const int64_t batch = 2, rows = 3, kk = 5, nn = 4;
  const auto a = random_ints(static_cast<size_t>(batch * rows * kk), 0, 255, 9);
  const auto bw = random_ints(static_cast<size_t>(batch * kk * nn), -128, 127, 10);
  OnnxBuilder b(10);
  b.input("A", U8, {batch, rows, kk});
  b.ints("B", I8, {batch, kk, nn}, bw), b.ints("az", U8, {1}, {7}), b.ints("bz", I8, {1}, {-3});
  b.node("MatMulInteger", {"A", "B", "az", "bz"}, {"Y"});
  b.output("Y", I32, {batch, rows, nn});
  const Graph g = import_onnx_bytes(b.bytes(), "matmulinteger.onnx");
  EXPECT_EQ(g.at(g.output).weight_sets, batch);
  const Tensor out = run(g, input_tensor(g, a), Device::Host);
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < nn; ++j) {
        int64_t acc = 0;
        for (int64_t i = 0; i < kk; ++i)
          acc += (a[static_cast<size_t>((t * rows + r) * kk + i)] - 7) *
                 (bw[static_cast<size_t>((t * kk + i) * nn + j)] + 3);
        EXPECT_EQ(out.wide.at(static_cast<size_t>((t * rows + r) * nn + j)), acc);
      }
}

TEST(QLinearMatMul, SymmetricPowerOfTwoRunsOnVtaAsDense) {
  const int64_t rows = 2, kk = 32, nn = 16;
  const auto a = random_ints(static_cast<size_t>(rows * kk), -128, 127, 11);
  const auto bw = random_ints(static_cast<size_t>(kk * nn), -128, 127, 12);
  OnnxBuilder b(10);
  b.input("a", I8, {rows, kk});
  b.scalar("as", 0.25f), b.ints("az", I8, {}, {0});
  b.ints("b", I8, {kk, nn}, bw), b.scalar("bs", 0.125f), b.ints("bz", I8, {}, {0});
  b.scalar("ys", 256.0f), b.ints("yz", I8, {}, {0});
  b.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
  b.output("y", I8, {rows, nn});
  const Graph g = import_onnx_bytes(b.bytes(), "qlinearmatmul.onnx");
  EXPECT_EQ(g.at(g.output).op, Op::Dense);
  const Tensor out = run(g, input_tensor(g, a), Device::Vta);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < nn; ++j) {
      int64_t acc = 0;
      for (int64_t i = 0; i < kk; ++i) acc += a[static_cast<size_t>(r * kk + i)] * bw[static_cast<size_t>(i * nn + j)];
      EXPECT_EQ(out.data.at(static_cast<size_t>(r * nn + j)), std::clamp<int64_t>(rne_shift(acc, 13), -128, 127));
    }
}

// ALU instructions with opcode `op` in the compiled network's programs.
int alu_count(const CompiledNetwork& net, const vta::Config& cfg, vta::isa::AluOp op) {
  const vta::isa::Layout layout(cfg);
  int count = 0;
  for (const auto& seg : net.segments) {
    const auto& buf = net.buffers[static_cast<size_t>(seg.insn_buffer)];
    for (uint32_t i = 0; i < seg.insn_count; ++i) {
      vta::isa::Raw128 r;
      std::memcpy(r.w, buf.init.data() + 16 * i, 16);
      const vta::isa::Insn insn = layout.decode(r, i);
      count += insn.opcode() == vta::isa::Opcode::ALU && insn.alu() == op;
    }
  }
  return count;
}

TEST(QLinearConv, AnyScalesWithoutZeroPointsRunOnVtaExactlyAsOnnxRuntime) {
  const int64_t c = 16, h = 6, w = 6, o = 32, k = 3;
  const auto x = random_ints(static_cast<size_t>(c * h * w), -128, 127, 13);
  const auto wt = random_ints(static_cast<size_t>(o * c * k * k), -60, 60, 14);
  const auto bias = random_ints(static_cast<size_t>(o), -5000, 5000, 15);
  const float xs = 0.0173f, ws = 0.0061f, ys = 0.0527f;
  const int64_t yz = 5;
  OnnxBuilder b;
  b.input("x", I8, {1, c, h, w});
  b.scalar("xs", xs), b.ints("xz", I8, {}, {0});
  b.ints("w", I8, {o, c, k, k}, wt), b.scalar("ws", ws), b.ints("wz", I8, {}, {0});
  b.scalar("ys", ys), b.ints("yz", I8, {}, {yz});
  b.ints("b", I32, {o}, bias);
  OnnxBuilder::attr(b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"}), "pads",
                    std::vector<int64_t>{1, 1, 1, 1});
  b.output("y", I8, {1, o, h, w});
  const Graph g = import_onnx_bytes(b.bytes(), "mul.onnx");
  const Node& y = g.at(g.output);
  EXPECT_NE(y.fmult, 0.0f) << g.dump();  // ONNX Runtime's float multiplier
  EXPECT_TRUE(y.frq.on) << "no zero points: its exact VTA form (requant_float.h, issue 35)";
  const Tensor out = run(g, input_tensor(g, x), Device::Vta);
  int64_t oh = 0, ow = 0;
  const auto acc = naive_conv(x, 0, c, h, w, wt, 0, o, k, 1, 1, oh, ow);
  int inside = 0;
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t want = ort_requant(acc[i] + bias[i / static_cast<size_t>(oh * ow)], xs, ws, ys, yz, -128, 127);
    ASSERT_EQ(out.data[i], want) << i;
    inside += want > -128 && want < 127;
  }
  EXPECT_GE(inside, static_cast<int>(acc.size() / 2));  // the scales leave most outputs unclipped
}

TEST(QLinearMatMul, AnyScalesAndAUint8OutputZeroPointRunOnVtaExactly) {
  const int64_t rows = 4, kk = 64, nn = 32;
  const auto a = random_ints(static_cast<size_t>(rows * kk), 0, 255, 16);
  const auto bw = random_ints(static_cast<size_t>(kk * nn), -128, 127, 17);
  const float as = 0.031f, bs = 0.0047f, ys = 0.39f;
  const int64_t yz = 100;
  OnnxBuilder b(10);
  b.input("a", U8, {rows, kk});
  b.scalar("as", as), b.ints("az", U8, {}, {128});  // uint8 centred at 128: int8 without a zero point
  b.ints("b", I8, {kk, nn}, bw), b.scalar("bs", bs), b.ints("bz", I8, {}, {0});
  b.scalar("ys", ys), b.ints("yz", U8, {}, {yz});
  b.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"});
  b.output("y", U8, {rows, nn});
  const Graph g = import_onnx_bytes(b.bytes(), "mul_dense.onnx");
  EXPECT_NE(g.at(g.output).fmult, 0.0f) << g.dump();
  EXPECT_TRUE(g.at(g.output).frq.on) << "a uint8 zero point of 128 is no zero point: the exact VTA form";
  const Tensor out = run(g, input_tensor(g, a), Device::Vta);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < nn; ++j) {
      int64_t acc = 0;
      for (int64_t i = 0; i < kk; ++i)
        acc += (a[static_cast<size_t>(r * kk + i)] - 128) * bw[static_cast<size_t>(i * nn + j)];
      ASSERT_EQ(out.data.at(static_cast<size_t>(r * nn + j)) + 128, ort_requant(acc, as, bs, ys, yz, 0, 255))
          << r << "," << j;
    }
}

// A uint8 input zero point folds into the bias: a power-of-two QLinearConv
// without padding runs on VTA, rounding half to even, exactly.
TEST(QLinearConv, Uint8InputZeroPointFoldsIntoTheBiasOnVta) {
  const int64_t c = 16, h = 5, w = 5, o = 16, k = 3;
  const auto x = random_ints(static_cast<size_t>(c * h * w), 0, 255, 18);
  const auto wt = random_ints(static_cast<size_t>(o * c * k * k), -20, 20, 19);
  OnnxBuilder b;
  b.input("x", U8, {1, c, h, w});
  b.scalar("xs", 0.5f), b.ints("xz", U8, {}, {77});
  b.ints("w", I8, {o, c, k, k}, wt), b.scalar("ws", 0.25f), b.ints("wz", I8, {}, {0});
  b.scalar("ys", 8.0f), b.ints("yz", U8, {}, {130});
  b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"});
  b.output("y", U8, {1, o, 3, 3});
  const Graph g = import_onnx_bytes(b.bytes(), "fold.onnx");
  EXPECT_EQ(g.at(g.output).x_zp, 0);
  EXPECT_TRUE(g.at(g.output).round_even);
  const Tensor out = run(g, input_tensor(g, x), Device::Vta);
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  // a shift and the tie sequence: MAX and MIN by the accumulator tile (the copy), no MUL
  EXPECT_EQ(alu_count(compile(g, cfg), cfg, vta::isa::AluOp::MUL), 0);
  EXPECT_GT(alu_count(compile(g, cfg), cfg, vta::isa::AluOp::MIN), 1);
  int64_t oh = 0, ow = 0;
  const auto acc = naive_conv(x, 77, c, h, w, wt, 0, o, k, 1, 0, oh, ow);
  for (size_t i = 0; i < acc.size(); ++i)
    ASSERT_EQ(out.data[i] + 128, std::clamp<int64_t>(rne_shift(acc[i], 6) + 130, 0, 255)) << i;
}

}  // namespace
