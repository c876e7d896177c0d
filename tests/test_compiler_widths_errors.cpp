// Widths the compiler refuses (placement.h check_compilable(), check_widths()):
// one line naming the knobs, exit code 2.
#include <gtest/gtest.h>

#include "run_cli.h"

namespace {

using vta::test::run_vta;

void expect_error(const std::string& args, const std::string& needle) {
  auto r = run_vta(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST(WidthErrors, OutputWidthMustEqualInputWidth) {
  expect_error("run --model lenet5 --set dtype.out_bits=16",
               "dtype.out_bits 16 != dtype.inp_bits 8: the compiler stores a layer's output as OUT elements and loads "
               "them back as the next layer's INP elements");
}

TEST(WidthErrors, OnnxModelsRunAtEightBitsOnly) {
  const std::string model = std::string(VTA_SOURCE_DIR) + "/tests/data/onnx-qdq/qlinearconv_s8.onnx";
  expect_error("run --onnx " + model + " --set dtype.wgt_bits=4 --set buffers.wgt=128KiB",
               "dtype.wgt_bits is 4: ONNX models import as int8 (their QDQ tensors), so they run at 8 bits only");
  expect_error("run --onnx " + model + " --set dtype.inp_bits=16 --set dtype.out_bits=16",
               "dtype.inp_bits is 16: ONNX models import as int8");
}

}  // namespace
