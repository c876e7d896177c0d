// `vta run --onnx M --input NAME=FILE [--expect F] [--output-dir D]` and
// `vta run --onnx-test DIR` with bad files: one line naming the file or the
// input, exit code 2; a wrong expected output: exit 1 with the count, the
// largest difference and the first index.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "run_cli.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"

namespace {

using vta::test::run_vta;
namespace fs = std::filesystem;
using namespace vta::compiler;

#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "output: " << (msg)

struct Fixture {
  fs::path dir, model, input;
  std::vector<int64_t> want;  // the reference output
};

// lenet5 exported, its seeded input as .npy and its reference output.
const Fixture& lenet() {
  static const Fixture f = [] {
    Fixture x;
    // One folder per test process: ctest -j runs these tests in parallel,
    // and each process writes its own lenet5.onnx and inputs.
    x.dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / ("cli-onnx-inputs-" + std::to_string(::getpid()));
    fs::create_directories(x.dir);
    const Graph g = build_zoo("lenet5");
    x.model = x.dir / "lenet5.onnx";
    export_onnx(g, x.model.string());
    const Tensor in = zoo_input(g, 7);
    x.input = x.dir / "in.npy";
    write_npy(x.input.string(), npy_of(in, {in.shape.n, in.shape.c, in.shape.h, in.shape.w}));
    const Tensor out = run_graph(g, in)[static_cast<size_t>(g.output)];
    x.want.assign(out.data.begin(), out.data.end());
    return x;
  }();
  return f;
}

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path p = lenet().dir / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string run_lenet(const std::string& extra) {
  return "run --onnx " + lenet().model.string() + " --input input=" + lenet().input.string() + " " + extra;
}

TEST(CliOnnxInputs, ExpectedOutputAndOutputDir) {
  NpyArray want;
  want.dims = {1, 10};
  want.values = lenet().want;
  const fs::path expect = lenet().dir / "want.npy";
  write_npy(expect.string(), want);
  const fs::path out = lenet().dir / "out";
  fs::remove_all(out);
  const auto r = run_vta(run_lenet("--expect " + expect.string() + " --output-dir " + out.string()));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "bit-exact (10 elements)");
  const fs::path written = out / "fc3.npy";
  ASSERT_TRUE(fs::exists(written)) << r.out;
  const NpyArray got = read_npy(written.string());
  EXPECT_EQ(got.values, lenet().want);
  EXPECT_EQ(got.type, NpyType::Int8);  // the output's ONNX type and dims, not flat int64
  EXPECT_EQ(got.dims, (std::vector<int64_t>{1, 10}));
}

TEST(CliOnnxInputs, MismatchNamesCountLargestDifferenceAndFirstIndex) {
  NpyArray want;
  want.dims = {1, 10};
  want.values = lenet().want;
  want.values[3] += 3;
  want.values[7] -= 1;
  const fs::path expect = lenet().dir / "wrong.npy";
  write_npy(expect.string(), want);
  const auto r = run_vta(run_lenet("--expect " + expect.string()));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_HAS(r.out, "2 of 10 elements differ, largest difference 3, first at index 3");
}

// The per-layer reports of a run on given inputs (issue 35): written beside
// the check, one row per layer.
TEST(CliOnnxInputs, ReportsWithInputs) {
  const fs::path csv = lenet().dir / "r.csv", json = lenet().dir / "r.json", html = lenet().dir / "r.html";
  for (const auto& f : {csv, json, html}) fs::remove(f);
  const auto r = run_vta(run_lenet("--report-csv " + csv.string() + " --report-json " + json.string() +
                                   " --report-html " + html.string() + " --why-host"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "backend golden matches the integer reference");
  EXPECT_HAS(r.out, "nodes on the host:");
  for (const auto& f : {csv, json, html}) EXPECT_GT(fs::file_size(f), 100u) << f;
  std::ifstream j(json);
  const std::string text((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
  EXPECT_HAS(text, "\"conv1\"");
  EXPECT_HAS(text, "\"check\"");
  EXPECT_HAS(text, "\"host_reason\": \"a copy into NCHW order");  // every host node says why
}

// Cycles of a user's model on its own input (--timing-only on a cycle
// model): no tensors are computed, so the check says it was skipped and the
// run passes; an expected output or an output folder cannot go with it.
TEST(CliOnnxInputs, TimingOnlySkipsTheCheck) {
  const fs::path json = lenet().dir / "t.json";
  fs::remove(json);
  const auto r = run_vta(run_lenet("-b systemc --timing-only --report-json " + json.string()));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "check: skipped (timing-only mode computes no tensors)");
  EXPECT_EQ(r.out.find("DIFFERS"), std::string::npos) << r.out;
  std::ifstream j(json);
  const std::string text((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
  EXPECT_HAS(text, "\"check\": \"skipped (timing-only mode computes no tensors)\"");
}

TEST(CliOnnxInputsErrors, TimingOnlyRefusesAnExpectedOutput) {
  const auto r = run_vta(run_lenet("-b systemc --timing-only --expect " + lenet().input.string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "--timing-only computes no output tensors, so --expect cannot go with it");
  const auto d = run_vta(run_lenet("-b systemc --timing-only --output-dir " + (lenet().dir / "o").string()));
  EXPECT_EQ(d.code, 2) << d.out;
  EXPECT_HAS(d.out, "so --output-dir cannot go with it");
}

// A report is never written over this command's input or expected output:
// refused before anything runs, the files unchanged.
TEST(CliOnnxInputsErrors, ReportOverAnInputIsRefused) {
  const fs::path expect = write("expect_keep.npy", "not read: refused first");
  const auto before = fs::file_size(lenet().input);
  for (const std::string opt : {"--report-json", "--report-csv", "--report-html"}) {
    auto r = run_vta(run_lenet(opt + " " + lenet().input.string()));
    EXPECT_EQ(r.code, 2) << opt << ": " << r.out;
    EXPECT_HAS(r.out, "is this command's input (--input");
    r = run_vta(run_lenet("--expect " + expect.string() + " " + opt + " " + expect.string()));
    EXPECT_EQ(r.code, 2) << opt << ": " << r.out;
    EXPECT_HAS(r.out, "is this command's input (--expect");
  }
  EXPECT_EQ(fs::file_size(lenet().input), before);
  EXPECT_EQ(fs::file_size(expect), std::string("not read: refused first").size());
}

// --why-host on the built-in input too: the host nodes and their reasons.
TEST(CliOnnxInputs, WhyHostOnTheBuiltInInput) {
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --why-host");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_HAS(r.out, "nodes on the host:\n");
  EXPECT_HAS(r.out, "(flatten): a copy into NCHW order");
}

// With --onnx-test (one run per test set) the reports are refused, never
// silently ignored.
TEST(CliOnnxInputsErrors, ReportOptionsAreRefusedWithOnnxTest) {
  for (const std::string opt : {"--report-csv r.csv", "--report-json r.json", "--report-html r.html", "--why-host"}) {
    const auto r = run_vta("run --onnx-test " + lenet().dir.string() + " " + opt);
    EXPECT_EQ(r.code, 2) << opt << ": " << r.out;
    EXPECT_HAS(r.out, "vta: error: run: --report-csv, --report-json, --report-html, --dump-after and --why-host");
  }
}

TEST(CliOnnxInputsErrors, NotAnNpyFile) {
  const fs::path bad = write("garbage.npy", "hello");
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input input=" + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, bad.string() + ": not a .npy file");
}

TEST(CliOnnxInputsErrors, TruncatedNpyData) {
  std::ifstream f(lenet().input, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const fs::path bad = write("short.npy", bytes.substr(0, bytes.size() - 5));
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input input=" + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "short.npy: .npy data holds");
}

TEST(CliOnnxInputsErrors, WrongElementCount) {
  NpyArray a;
  a.dims = {5};
  a.values = {1, 2, 3, 4, 5};
  const fs::path bad = lenet().dir / "five.npy";
  write_npy(bad.string(), a);
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input input=" + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "five.npy: 5 elements, the model's input 'input' needs 1024");
}

TEST(CliOnnxInputsErrors, ValueOutOfRange) {
  NpyArray a;
  a.type = NpyType::Int32;
  a.dims = {1, 1, 32, 32};
  a.values.assign(1024, 0);
  a.values[9] = 300;
  const fs::path bad = lenet().dir / "range.npy";
  write_npy(bad.string(), a);
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input input=" + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "range.npy: element 9 is 300, outside the int8 range");
}

TEST(CliOnnxInputsErrors, UnknownInputName) {
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input nope=" + lenet().input.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "has no graph input 'nope'");
}

TEST(CliOnnxInputsErrors, NotATensorProto) {
  const fs::path bad = write("bad.pb", std::string("\xff\xff\xff\xff", 4));
  const auto r = run_vta("run --onnx " + lenet().model.string() + " --input input=" + bad.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "bad.pb: not a TensorProto");
}

TEST(CliOnnxInputsErrors, ExpectedOutputOfAnotherSize) {
  NpyArray a;
  a.dims = {3};
  a.values = {1, 2, 3};
  const fs::path bad = lenet().dir / "three.npy";
  write_npy(bad.string(), a);
  const auto r = run_vta(run_lenet("--expect " + bad.string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "three.npy: 3 elements expected, the model's output has 10");
}

TEST(CliOnnxInputsErrors, TestFolderWithoutModel) {
  const fs::path d = lenet().dir / "empty_test";
  fs::create_directories(d);
  const auto r = run_vta("run --onnx-test " + d.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "no model.onnx");
}

// A folder that cannot be made (a file in the way): one line naming the
// option, not std::filesystem's "filesystem error: cannot create directories".
TEST(CliOnnxInputsErrors, OutputDirThatCannotBeMade) {
  const fs::path file = write("a-file", "x");
  const auto r = run_vta(run_lenet("--output-dir " + (file / "out").string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out,
             "vta: error: --output-dir " + (file / "out").string() + ": cannot create the folder (Not a directory)");
  EXPECT_EQ(r.out.find("filesystem error"), std::string::npos) << r.out;
}

// ONNX's node tests give operands as graph inputs: without --input they are
// named, not taken for a float model's second input.
TEST(CliOnnxInputsErrors, OperandsAsGraphInputsWithoutValues) {
  const std::string model = "/usr/share/libonnx-testdata/data/node/test_qlinearconv/model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "no libonnx-testdata";
  const auto r = run_vta("run --onnx " + model);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "the model has 8 graph inputs (x, x_scale,");
  EXPECT_HAS(r.out, "--input NAME=FILE");
  EXPECT_EQ(r.out.find("float model"), std::string::npos) << r.out;
}

TEST(CliOnnxInputsErrors, InputWithoutOnnx) {
  const auto r = run_vta("run --model lenet5 --input x=" + lenet().input.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_HAS(r.out, "--input, --expect and --output-dir apply to --onnx");
}

}  // namespace
