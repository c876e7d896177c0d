// Bad input to `vta` gives one clear message and exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_cli.h"

namespace {

using vta::test::run_vta;
namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& text) {
  fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "cli-errors";
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

void expect_error(const std::string& args, const std::string& needle) {
  auto r = run_vta(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

TEST(CliErrors, BadYamlKeyNamesFileLineAndKey) {
  auto f = write_temp("typo.yaml", "gemm:\n  batch: 1\n  blok_in: 16\n");
  expect_error("config validate " + f.string(), "typo.yaml:3: unknown key 'gemm.blok_in' (did you mean 'block_in'?)");
}

TEST(CliErrors, UnencodableConfigNamesTheLimit) {
  expect_error("config show --set buffers.uop=1GiB",
               "--set buffers.uop: buffers.uop = 1GiB gives a UOP depth of 268435456 elements; the LOAD/STORE field "
               "sram_base has 16 bits (limit 65536)");
}

// A host CPU preset that does not exist: one message naming the key and the
// allowed values, exit 2, from every command that loads a config.
TEST(CliErrors, UnknownHostCpuPresetNamesTheChoices) {
  const std::string msg =
      "--set host.cpu: host.cpu = 'pentium' is not one of custom|cortex-a9-650|cortex-a53-1200|xeon-e5-2690v3";
  expect_error("config show --set host.cpu=pentium", msg);
  expect_error("run --model lenet5 --set host.cpu=pentium", msg);
}

TEST(CliErrors, HostOpsNamesTheValidKinds) {
  const std::string kinds = "(the kinds: conv2d, dense, add, max_pool, avg_pool)";
  expect_error("run --model lenet5 --host-ops convolution", "--host-ops convolution: not an op kind VTA runs " + kinds);
  expect_error("run --model lenet5 --host-ops conv2d,softmax", "--host-ops softmax: not an op kind VTA runs " + kinds);
  expect_error(std::string("run ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm --host-ops conv2d",
               "run: --host-ops applies to --model or --onnx, not to program runs");
  expect_error("compare --backends systemc,systemc --model lenet5 --host-ops bogus",
               "--host-ops bogus: not an op kind VTA runs " + kinds);
}

TEST(CliErrors, BadAccuracyValues) {
  expect_error("run --model lenet5 --accuracy 0",
               "run: --accuracy 0: give the number of inputs to compare on, 1 to 10000");
  expect_error("run --model lenet5 --accuracy 10001", "--accuracy 10001: give the number of inputs");
  expect_error(std::string("run ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm --accuracy 3",
               "run: --accuracy applies to --model or --onnx, not to program runs");
}

TEST(CliErrors, BadTuneValues) {
  const std::string range = ": give the number of tile candidates to measure per layer, 1 to 64";
  expect_error("run --model lenet5 --tune 0", "--tune 0" + range);
  expect_error("run --model lenet5 --tune -3", "--tune -3" + range);
  expect_error("run --model lenet5 --tune 65", "--tune 65" + range);
  expect_error("run --model lenet5 --tune many", "--tune");
  expect_error("run --model lenet5 --tune-cache x.json", "run: --tune-cache x.json needs --tune N");
  expect_error(std::string("run ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm --tune 2",
               "run: --tune applies to --model or --onnx, not to program runs");
  expect_error("compare --backends systemc,systemc --model lenet5 --tune 0", "--tune 0" + range);
  expect_error(
      std::string("compare --backends systemc,systemc --tune 2 ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm",
      "compare: --tune applies to --model or --onnx, not to programs");
  auto cache = write_temp("tune-damaged.json", "{\"format\": 1, \"layers\": [");
  expect_error("run --model lenet5 -b systemc --timing-only --tune 2 --tune-cache " + cache.string(),
               "tuning cache " + cache.string() + ": not a valid tuning cache");
}

TEST(CliErrors, UnknownPreset) { expect_error("config show --config no-such-design", "no such config file or preset"); }

TEST(CliErrors, BadSetSyntax) { expect_error("config show --set gemm.batch", "expected key=value"); }

TEST(CliErrors, UnknownBackend) {
  expect_error(std::string("run ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm --backend nope",
               "unknown backend 'nope'");
}

TEST(CliErrors, GoldenCannotTrace) {
  expect_error(std::string("run ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm --trace x.json",
               "the golden backend is untimed");
}

TEST(CliErrors, CompareNeedsCycleModels) {
  expect_error(std::string("compare --backends golden,golden ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm",
               "backend 'golden' reports no cycles");
  expect_error(std::string("compare --backends golden ") + VTA_SOURCE_DIR + "/examples/identity_requant.vasm",
               "--backends needs at least two backends");
}

TEST(CliErrors, AssemblerErrorNamesTheLine) {
  auto f = write_temp("bad.vasm", "GEMM uop_bgn=0 uop_end=1\nGEMM iter_out=99999\nFINISH\n");
  expect_error("run " + f.string(), "bad.vasm:2: field 'iter_out' = 99999 does not fit its 14 bits");
}

TEST(CliErrors, DeadlockingProgram) {
  auto f = write_temp("deadlock.vasm", "GEMM pop_prev reset uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\nFINISH\n");
  expect_error("run " + f.string(), "deadlock after 0 of 2 instructions: compute module: instruction 0");
}

TEST(CliErrors, OutOfRangeInstruction) {
  auto f = write_temp(
      "oob.vasm",
      ".buffer x INP 1 zero\nLOAD INP sram_base=2047 dram_base=@x y_size=1 x_size=1 x_stride=1 y_pad_0=1\nFINISH\n");
  expect_error("run " + f.string(), "instruction 0 (LOAD INP");
}

TEST(CliErrors, MissingConformanceFile) {
  fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "cli-errors" / "empty-vector";
  fs::create_directories(dir);
  expect_error("run " + dir.string(), "missing input.bin");
}

TEST(CliErrors, TruncatedInstructionFile) {
  auto f = write_temp("trunc.bin", std::string(20, '\0'));
  expect_error("disasm " + f.string(), "is not a whole number of 16-byte instructions");
}

TEST(CliErrors, MalformedOnnx) {
  auto f = write_temp("garbage.onnx", "this is not a protobuf at all \x01\x02");
  expect_error("run --onnx " + f.string(), "garbage.onnx: not a valid ONNX model");
  expect_error("run --onnx /nonexistent.onnx", "cannot open");
}

TEST(CliErrors, UnknownZooModel) { expect_error("run --model resnet19", "unknown zoo model 'resnet19'"); }

TEST(CliErrors, UnknownSubcommandOrOption) {
  auto r = run_vta("frobnicate");
  EXPECT_EQ(r.code, 2) << r.out;
  auto r2 = run_vta("run --no-such-flag x");
  EXPECT_EQ(r2.code, 2) << r2.out;
}

// A rectangular array (block_in != block_out) compiles only without batch rows.
TEST(CliErrors, RectangularArrayWithBatchRowsNamesTheKnobs) {
  expect_error("run --model lenet5 --config vta-4x16x16 --set gemm.block_out=32",
               "config vta-4x16x16: gemm.block_in 16 != gemm.block_out 32 needs gemm.batch 1 (it is 4)");
}

}  // namespace
