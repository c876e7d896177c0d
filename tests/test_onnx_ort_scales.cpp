// ONNX Runtime's default quantizer output (scales that are not powers of
// two, tests/support/asym_qdq_models.h ort_scales()) imported and compiled:
// every convolution and dense layer with an exact VTA form of its float
// requantization (requant_float.h) on VTA, the residual adds and the global
// average pool (ONNX Runtime's float forms, ort_ops.h) on the host,
// bit-exact with the integer reference
// (which computes ONNX Runtime's formula; test_onnx_oracle.cpp compares it
// with ONNX Runtime) on golden and SystemC.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "asym_qdq_models.h"
#include "test_support.h"
#include "uint8_run.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"

namespace {

using namespace vta::compiler;

class OrtScales : public ::testing::TestWithParam<std::string> {};

TEST_P(OrtScales, ExactFormsOnVtaBitExactOnGoldenAndSystemc) {
  vta::test::AsymQdqBuilder b(5);
  const bool pc = GetParam().ends_with("_pc");  // per-channel weight scales: rows of per-channel operands
  pc ? b.ort_per_channel() : b.ort_scales();
  if (GetParam().starts_with("resnet18_plain"))
    b.resnet18_plain(32, 16, 10);
  else if (GetParam() == "resnet18")  // residual adds and a global average pool of a 2 x 2 map
    b.resnet18(64, 8, 10);
  else
    b.mobilenet_v1(32, 8, 10);
  const Graph g = import_onnx_bytes(b.builder().bytes(), GetParam());
  int float_rq = 0, exact = 0, fixed = 0, per_channel = 0, without = 0, three_words = 0, stepped = 0, two_lines = 0;
  for (const auto& n : g.nodes)
    if (n.op == Op::Conv2d || n.op == Op::Dense) {
      EXPECT_NE(n.fmult, 0.0f) << n.name;
      float_rq += n.fmult != 0, exact += n.frq.on || !n.frqs.empty();
      per_channel += !n.fmults.empty();
      if (!n.frqs.empty()) {
        EXPECT_EQ(n.frqs.size(), static_cast<size_t>(n.out.c)) << n.name;
      }
      if (!n.fmults.empty() && n.frqs.empty()) {  // the host's only where some channel has no form
        bool formless = false;
        for (int64_t c = 0; c < n.out.c; ++c)
          formless = formless ||
                     (!lower_float_requant(n.fmults[static_cast<size_t>(c)], n.zp, n.relu, acc_bound(n, c), true) &&
                      !lower_float_requant_pair(n.fmults[static_cast<size_t>(c)], n.zp, n.relu, acc_bound(n, c)));
        EXPECT_TRUE(formless) << n.name;
        EXPECT_NE(host_reason(n).find("per-channel requantization: output channel"), std::string::npos)
            << n.name << ": the report says which channel has no form";
        ++without;
      }
      bool fixes = !n.frq.fixes.empty(), steps = false;
      bool lines2 = false;
      for (const FloatRequantVta& f : n.frqs) {
        fixes = fixes || !f.fixes.empty(), steps = steps || !f.segs.empty() || !f.segs2.empty();
        lines2 = lines2 || f.two_lines;
      }
      fixed += fixes, stepped += steps, two_lines += lines2;
      if (lines2) {  // every channel of the node runs two lines
        for (const FloatRequantVta& f : n.frqs) EXPECT_TRUE(f.two_lines) << n.name;
        EXPECT_EQ(needs_scratch3(n), float_requant_words(n.frqs) == 3) << n.name << ": two three-word lines use V";
      }
      if (fixes) {
        EXPECT_TRUE(needs_scratch(n)) << n.name << ": the fixes use the scratch tile";
      }
      if (!n.frqs.empty() && float_requant_words(n.frqs) == 3) {
        ++three_words;
        EXPECT_TRUE(needs_scratch2(n)) << n.name << ": three words use the second scratch tile";
      }
      if (steps) {
        EXPECT_EQ(float_requant_words(n.frqs), 3) << n.name << ": intercept steps run in three words";
      }
    }
  EXPECT_EQ(float_rq, b.convs() + b.denses());
  EXPECT_EQ(exact + without, float_rq) << "every conv/dense with an exact VTA form but those of a formless channel";
  if (pc) {
    // Every channel of the model with a form: one line (one word, two split
    // at 2^12, three split at 2^8 and 2^16 with intercept steps), or two
    // lines of slope S / 2 for the odd and the even levels (one, two or
    // three words) where ONNX Runtime's ties alternate about any one line
    // (before the two lines: resnet18_plain_pc 10 of 18, mobilenet_v1_pc
    // 27 of 28).
    EXPECT_EQ(exact, float_rq) << "per-channel forms on VTA";
    EXPECT_EQ(without, 0);
    EXPECT_GT(three_words, 0) << "three-word forms";
    EXPECT_GT(two_lines, 0) << "two-line forms";
    EXPECT_GT(stepped, 0) << "channels with intercept steps";
  }
  EXPECT_EQ(per_channel, pc ? b.convs() : 0) << "per-channel multipliers on every convolution";
  EXPECT_GT(fixed, 0) << "some with thresholds the float product's rounding moved off the line";
  const vta::Config cfg = vta::test::preset("vta-1x16x16");
  const CompiledNetwork net = compile(g, cfg);
  int on_vta = 0;
  std::string steps;
  for (const auto& n : net.graph.nodes)
    if (n.op == Op::Conv2d || n.op == Op::Dense) {
      steps += fmt::format(" {}", requant_imm_ops(n));
      if (requant_row_count(n) > 0) steps += fmt::format("/{}", requant_row_count(n));
      EXPECT_EQ(n.device, n.frq.on || !n.frqs.empty() ? Device::Vta : Device::Host) << n.name << "\n"
                                                                                    << net.graph.dump();
      on_vta += n.device == Device::Vta;
    }
  EXPECT_EQ(on_vta, exact);
  // Add and the global average pool: ONNX Runtime's float forms on the host.
  int adds = 0, pools = 0;
  std::string where;
  for (const auto& n : net.graph.nodes) {
    if (n.op == Op::Add) {
      ++adds;
      EXPECT_NE(n.ort.a, 0.0f) << n.name << ": ONNX Runtime's QLinearAdd";
    }
    if (n.op == Op::GlobalAvgPool) {
      ++pools;
      EXPECT_NE(n.fmult, 0.0f) << n.name << ": ONNX Runtime's QLinearGlobalAveragePool";
    }
    if (n.op == Op::Add || n.op == Op::GlobalAvgPool) {
      EXPECT_EQ(n.device, Device::Host) << n.name;
    }
    if (n.op != Op::DeviceCopy && n.op != Op::Input)
      where += fmt::format(" {}:{}", op_name(n.op), device_name(n.device));
  }
  EXPECT_EQ(adds, GetParam() == "resnet18" ? 8 : 0);
  EXPECT_EQ(pools, 1);
  std::cout << GetParam() << ": nodes and devices:" << where << "\n";
  std::cout << GetParam() << ": ALU steps per epilogue (/ per-channel rows):" << steps << "\n";
  if (GetParam() == "resnet18") {  // the report says why each residual add stays on the host
    auto backend = vta::make_backend("golden", cfg);
    Tensor in{g.at(0).out, std::vector<int16_t>(static_cast<size_t>(g.at(0).out.size()), 3)};
    const Report r = make_report(net, run_network(net, *backend, in), cfg, "golden");
    int reasons = 0;
    for (const auto& row : r.rows)
      if (row.op == "add") {
        EXPECT_NE(row.host_reason.find("QLinearAdd"), std::string::npos) << row.layer;
        ++reasons;
      }
    EXPECT_EQ(reasons, 8);
    EXPECT_NE(report_table(r).find("on the host: ONNX Runtime's QLinearAdd"), std::string::npos);
  }
  const size_t compared = vta::test::expect_bit_exact_on_uint8_input(g, net, cfg, GetParam(), VTA_HAS_SYSTEMC);
  std::cout << fmt::format("{}: {} of {} conv/dense on VTA, {} output values compared per backend\n", GetParam(),
                           on_vta, float_rq, compared);
}

INSTANTIATE_TEST_SUITE_P(Nets, OrtScales,
                         ::testing::Values("resnet18_plain", "resnet18", "mobilenet_v1", "resnet18_plain_pc",
                                           "mobilenet_v1_pc"),
                         [](const auto& i) { return i.param; });

}  // namespace
