// ONNX models that ask for absurd sizes, or that are malformed in a way a
// library would report in its own words, through `vta run --onnx`:
// one line naming the file, the node or field and the limit, exit code 2,
// never protobuf's "[libprotobuf FATAL ...]" line, std::bad_alloc or an
// out-of-memory kill.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "onnx_builder.h"
#include "run_cli.h"

namespace {

using vta::test::OnnxBuilder;
using vta::test::run_vta;
namespace fs = std::filesystem;
constexpr int F32 = onnx::TensorProto::FLOAT;

std::string write_model(const std::string& name, const OnnxBuilder& b) {
  const fs::path p = fs::temp_directory_path() / ("vta_onnx_limits_" + name);
  std::ofstream(p, std::ios::binary) << b.bytes();
  return p.string();
}

// Exit 2 and exactly one line, `vta: error: ...`, holding every needle.
void expect_one_line_error(const std::string& file, std::initializer_list<std::string> needles) {
  const auto r = run_vta("run --onnx " + file);
  EXPECT_EQ(r.code, 2) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << r.out.substr(0, 400);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("libprotobuf"), std::string::npos) << r.out.substr(0, 400);
  for (const auto& n : needles) EXPECT_NE(r.out.find(n), std::string::npos) << "want '" << n << "' in: " << r.out;
}

// A float Add with one input after a Conv (once protobuf's own FATAL line).
TEST(OnnxLimits, FloatAddWithOneInput) {
  OnnxBuilder b;
  b.input("x", F32, {1, 16, 4, 4});
  b.floats("W", {16, 16, 1, 1}, std::vector<float>(256, 0.5f));
  OnnxBuilder::attr(b.node("Conv", {"x", "W"}, {"c"}), "kernel_shape", std::vector<int64_t>{1, 1});
  b.node("Add", {"c"}, {"y"});
  b.output("y", F32, {1, 16, 4, 4});
  expect_one_line_error(write_model("add1.onnx", b), {"add1.onnx", "(Add)", "needs 2 input(s), it has 1"});
}

// The same Add as the first node, on the graph input itself.
TEST(OnnxLimits, FloatAddWithOneInputOnTheGraphInput) {
  OnnxBuilder b;
  b.input("x", F32, {1, 16, 4, 4});
  b.node("Add", {"x"}, {"y"});
  b.output("y", F32, {1, 16, 4, 4});
  expect_one_line_error(write_model("add1_first.onnx", b), {"add1_first.onnx", "(Add)", "needs 2 input(s), it has 1"});
}

// An ONNX model with millions of nodes is refused before any pass walks it.
TEST(OnnxLimits, MillionsOfNodes) {
  OnnxBuilder b;
  b.input("x", F32, {1, 16, 4, 4});
  onnx::GraphProto* g = b.model().mutable_graph();
  onnx::NodeProto relu;
  relu.set_op_type("Relu");
  relu.add_input("x");
  relu.add_output("x");
  for (int i = 0; i < 1'000'000; ++i) *g->add_node() = relu;
  b.output("x", F32, {1, 16, 4, 4});
  expect_one_line_error(write_model("many_nodes.onnx", b),
                        {"many_nodes.onnx", "1000000 nodes, over the limit of 100000"});
}

// A tensor dimension of 2^31: in the graph input, and in an initializer's
// dims (its data absent).
TEST(OnnxLimits, InputDimensionOfTwoToThe31) {
  OnnxBuilder b;
  b.input("x", F32, {1, int64_t{1} << 31, 1, 1});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", F32, {1, int64_t{1} << 31, 1, 1});
  expect_one_line_error(write_model("dim2p31.onnx", b), {"dim2p31.onnx", "2147483648"});
}

TEST(OnnxLimits, InitializerDimensionOfTwoToThe31) {
  OnnxBuilder b;
  b.input("x", F32, {1, 16, 4, 4});
  b.floats("W", {int64_t{1} << 31, 16, 3, 3}, {});
  b.node("Conv", {"x", "W"}, {"y"});
  b.output("y", F32, {1, 16, 4, 4});
  expect_one_line_error(write_model("w2p31.onnx", b), {"w2p31.onnx", "(Conv)"});
}

}  // namespace
