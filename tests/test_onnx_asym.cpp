// Asymmetric quantization on VTA: models in the QDQ form of ONNX Runtime's
// static quantizer (uint8 activations with zero points, int8 symmetric
// weights with per-channel scales; tests/support/asym_qdq_models.h) with the
// structure of ResNet-18 and MobileNet-v1 import with every convolution and
// fully connected layer on VTA (input zero points folded into the bias, a
// host Pad where a convolution pads, per-channel scales as a per-channel
// shift row, outputs rounded half to even with the scratch-tile ALU
// sequence, then the output zero point), and the golden and SystemC
// backends give the integer reference's result bit for bit. ONNX Runtime's
// result for the same files is compared in test_onnx_oracle.cpp (AsymOracle).
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "asym_qdq_models.h"
#include "test_support.h"
#include "uint8_run.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"

namespace {

using namespace vta::compiler;

struct Net {
  std::string name;
  int64_t image, width;
};

std::string build(const Net& n, vta::test::AsymQdqBuilder& b) {
  return n.name == "resnet18" ? b.resnet18(n.image, n.width, 10) : b.mobilenet_v1(n.image, n.width, 10);
}

class AsymQdq : public ::testing::TestWithParam<Net> {};

TEST_P(AsymQdq, EveryConvAndDenseOnVtaBitExactOnGoldenAndSystemc) {
  vta::test::AsymQdqBuilder b(5);
  build(GetParam(), b);
  const Graph g = import_onnx_bytes(b.builder().bytes(), GetParam().name);
  // The import reads what the quantizer wrote: uint8, zero points, half to even.
  int convs = 0, denses = 0, per_channel = 0, even = 0, pads = 0;
  for (const auto& n : g.nodes) {
    convs += n.op == Op::Conv2d, denses += n.op == Op::Dense, pads += n.op == Op::Pad;
    per_channel += !n.lshift.empty(), even += n.round_even;
    if (n.op == Op::Conv2d || n.op == Op::Dense) {
      EXPECT_TRUE(n.uint8) << n.name;
    }
  }
  EXPECT_EQ(convs, b.convs());
  EXPECT_EQ(denses, b.denses());
  EXPECT_GT(per_channel, 0);
  EXPECT_GT(pads, 0);
  EXPECT_GE(even, convs + denses);
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  int on_vta = 0;
  for (const auto& n : net.graph.nodes)
    if (n.op == Op::Conv2d || n.op == Op::Dense) {
      EXPECT_EQ(n.device, Device::Vta) << n.name << "\n" << net.graph.dump();
      on_vta += n.device == Device::Vta;
    }
  EXPECT_EQ(on_vta, b.convs() + b.denses());
  const size_t compared = vta::test::expect_bit_exact_on_uint8_input(g, net, cfg, GetParam().name, VTA_HAS_SYSTEMC);
  std::cout << fmt::format("{}: {} nodes, {} conv/dense on VTA, {} output values compared per backend\n",
                           GetParam().name, net.graph.nodes.size(), on_vta, compared);
}

INSTANTIATE_TEST_SUITE_P(Nets, AsymQdq, ::testing::Values(Net{"resnet18", 32, 16}, Net{"mobilenet_v1", 32, 8}),
                         [](const auto& i) { return i.param.name; });

}  // namespace
