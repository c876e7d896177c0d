// Crafted ONNX files that once ended `vta run --onnx` in a signal (found by
// hand and by mutation fuzzing) now give one line naming the file
// and node, and exit code 2; the legal one among them compiles and runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "run_cli.h"

namespace {

using vta::test::run_vta;

std::string data(const std::string& name) { return std::string(VTA_SOURCE_DIR) + "/tests/data/onnx-crashes/" + name; }

// Exit 2 and exactly one line, `vta: error: ...`, holding every needle.
void expect_one_line_error(const std::string& file, std::initializer_list<const char*> needles) {
  const auto r = run_vta("run --onnx " + data(file));
  EXPECT_EQ(r.code, 2) << file << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  for (const char* n : needles) EXPECT_NE(r.out.find(n), std::string::npos) << "want '" << n << "' in: " << r.out;
}

TEST(OnnxCrashes, FloatConvStrideZero) {
  expect_one_line_error("f_stride0.onnx", {"f_stride0.onnx", "(Conv)", "strides"});
}

TEST(OnnxCrashes, QdqConvStrideZero) { expect_one_line_error("q_stride0.onnx", {"q_stride0.onnx", "strides"}); }

TEST(OnnxCrashes, QdqMaxPoolStrideZero) {
  expect_one_line_error("q_maxpool_s0.onnx", {"q_maxpool_s0.onnx", "(MaxPool)", "strides"});
}

TEST(OnnxCrashes, Lenet5WithStridesZero) { expect_one_line_error("lenet5_s0.onnx", {"lenet5_s0.onnx", "strides"}); }

TEST(OnnxCrashes, ConvWithZeroOutputChannelsBeforeBatchNorm) {
  expect_one_line_error("f_bn_zero_oc.onnx", {"f_bn_zero_oc.onnx", "(Conv)", "dimension"});
}

TEST(OnnxCrashes, BatchNormWithEmptyParameters) {
  expect_one_line_error("f_bn_empty_beta.onnx", {"f_bn_empty_beta.onnx", "(BatchNormalization)"});
}

TEST(OnnxCrashes, InputShapeOfTwoToThe62) {
  expect_one_line_error("f_batch_2p62.onnx", {"f_batch_2p62.onnx", "input", "elements"});
}

// One float tensor quantized by two QuantizeLinear nodes is legal ONNX.
TEST(OnnxCrashes, FanOutToTwoQuantizeLinearsCompilesAndRuns) {
  const auto r = run_vta("run --onnx " + data("q_fanout_quant.onnx"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("output bit-exact"), std::string::npos) << r.out;
}

}  // namespace
