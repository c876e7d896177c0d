// Bad input that `vta` once accepted silently or handled badly: each is one line naming what is wrong and exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_cli.h"
#include "vta/compiler/compile.h"

namespace {

using vta::test::run_vta;
namespace fs = std::filesystem;

const std::string kProgram = std::string(VTA_SOURCE_DIR) + "/examples/identity_requant.vasm";

fs::path temp_dir() {
  fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "cli-input-errors";
  fs::create_directories(dir);
  return dir;
}
fs::path write_temp(const std::string& name, const std::string& text) {
  std::ofstream(temp_dir() / name, std::ios::binary) << text;
  return temp_dir() / name;
}
std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(CliInputErrors, OneBadProgramAmongSeveralIsNamedAndTheOthersStillRun) {
  const fs::path bad = write_temp("bad_among_several.vasm", "LOAD NOPE\nFINISH\n");
  const fs::path stats = temp_dir() / "several.json";
  fs::remove(stats);
  const auto r = run_vta("run " + kProgram + " " + bad.string() + " " + kProgram + " --stats-out " + stats.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("vta: error: " + bad.string() + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 3 programs passed"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(stats));
  ASSERT_EQ(doc["runs"].size(), 3u);
  EXPECT_EQ(doc["runs"][0]["check"], "pass");
  EXPECT_EQ(doc["runs"][1]["check"], "error");
  EXPECT_EQ(doc["runs"][1]["program"], bad.string());
  EXPECT_EQ(doc["runs"][2]["check"], "pass");
}

// One line: the error line is the whole output.
void expect_one_line_error(const std::string& args, const std::string& needle) {
  const auto r = run_vta(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

bool have_backend(const std::string& name) { return run_vta("backends").out.find(name + " ") != std::string::npos; }

// Timing-only mode skips the tensors, not the checks.
TEST(CliInputErrors, TimingOnlyStillChecksBounds) {
  if (!have_backend("systemc")) GTEST_SKIP() << "built without SystemC";
  const fs::path f = write_temp("ld_dram_hi.vasm",
                                ".buffer i INP 4 random 1\n"
                                "LOAD INP sram_base=0 dram_base=0xffffffff y_size=1 x_size=1 x_stride=1\nFINISH\n");
  const auto golden = run_vta("run " + f.string());
  ASSERT_EQ(golden.code, 2) << golden.out;
  const auto timing = run_vta("run -b systemc --timing-only " + f.string());
  EXPECT_EQ(timing.code, 2) << timing.out;
  EXPECT_EQ(timing.out, golden.out);
  const fs::path g =
      write_temp("uop_end_hi.vasm",
                 ".uop dst=0 src=0 wgt=0\nLOAD UOP sram_base=0 dram_base=@uop y_size=1 x_size=1 x_stride=1\n"
                 "GEMM reset uop_bgn=0 uop_end=9000 iter_out=1 iter_in=1\nFINISH\n");
  expect_one_line_error("run -b systemc --timing-only " + g.string(), "instruction 1 (GEMM");
}

// DRAM bounds are a buffer's own size, not the 4 KiB page behind it.
TEST(CliInputErrors, DramBoundsArePerBuffer) {
  const fs::path f = write_temp("wgt_from_inp.vasm",
                                ".buffer x INP 1 zero\n"
                                "LOAD WGT sram_base=0 dram_base=@x y_size=1 x_size=1 x_stride=1\nFINISH\n");
  expect_one_line_error("run " + f.string(), "outside any allocation");
}

// A conformance folder whose files are cut or empty: named before it runs,
// or met as an access past out.bin's end.
struct Vector {
  fs::path dir;
  explicit Vector(const std::string& name) : dir(temp_dir() / name) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    // STORE 16 OUT elements (256 bytes) into out.bin at 0x3000 (input, weight, out: one page each)
    const fs::path src =
        write_temp(name + ".vasm", "STORE OUT sram_base=0 dram_base=0x300 y_size=1 x_size=16 x_stride=16\nFINISH\n");
    const auto r = run_vta("asm " + src.string() + " -o " + (dir / "instructions.bin").string());
    EXPECT_EQ(r.code, 0) << r.out;
    file("input.bin", 16), file("weight.bin", 256), file("out.bin", 256), file("uop.bin", 4),
        file("accumulator.bin", 0);
    file("expected_out.bin", 256);
  }
  void file(const std::string& name, size_t bytes) const {
    std::ofstream(dir / name, std::ios::binary) << std::string(bytes, '\0');
  }
};

TEST(CliInputErrors, ConformanceVectorFiles) {
  Vector ok("vec-ok");
  EXPECT_EQ(run_vta("run " + ok.dir.string()).code, 0);
  Vector cut("vec-cut-out");
  cut.file("out.bin", 16), cut.file("expected_out.bin", 16);
  expect_one_line_error("run " + cut.dir.string(), "writes DRAM [0x3000, 0x3100) outside any allocation");
  Vector uop("vec-uop7");
  uop.file("uop.bin", 7);
  expect_one_line_error("run " + uop.dir.string(), "uop.bin has 7 bytes, not a whole number of 4-byte uops");
  Vector empty("vec-empty-expect");
  empty.file("expected_out.bin", 0);
  expect_one_line_error("run " + empty.dir.string(), "expected_out.bin is empty");
  Vector longer("vec-long-expect");
  longer.file("expected_out.bin", 512);
  expect_one_line_error("run " + longer.dir.string(), "expected_out.bin has 512 bytes, more than out.bin's 256");
  // Found by fuzz_program under UBSan: an empty instructions.bin was copied
  // from a null pointer.
  Vector none("vec-no-insns");
  none.file("instructions.bin", 0);
  expect_one_line_error("run " + none.dir.string(), "instructions.bin: no instructions (the file is empty)");
}

// A DRAM image larger than memory.dram_size is refused before it is
// installed, naming the buffer, the field and the limit.
TEST(CliInputErrors, DramImageLargerThanTheDramSize) {
  Vector big("vec-big-input");
  big.file("input.bin", 2 << 20);
  expect_one_line_error("run " + big.dir.string() + " --set memory.dram_size=1MiB",
                        "buffer 'input' has 2097152 bytes, more than memory.dram_size (1048576 bytes)");
}

TEST(CliInputErrors, VasmNumbers) {
  expect_one_line_error("run " + write_temp("huge.vasm", ".buffer x INP 1152921504606846976\nFINISH\n").string(),
                        "huge.vasm:1: 1152921504606846976 elements of 16 bytes do not fit memory.dram_size");
  expect_one_line_error(
      "run " + write_temp("idx.vasm", ".buffer o OUT 1 zero\nFINISH\n.expect sram OUT 4294967296 values 1\n").string(),
      "idx.vasm:3: bad '.expect sram' memory or index '4294967296'");
  // 08 is eight (decimal, as in instruction fields), not a bad octal number
  const auto r = run_vta("run " + write_temp("dec.vasm", ".buffer x INP 08 zero\nFINISH\n").string());
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST(CliInputErrors, VasmFieldGivenTwice) {
  expect_one_line_error("run " + write_temp("twice.vasm", "GEMM uop_end=1 uop_end=2\nFINISH\n").string(),
                        "twice.vasm:1: field 'uop_end' is given twice");
}

TEST(CliInputErrors, VasmExpectWithoutValues) {
  expect_one_line_error("run " + write_temp("novals.vasm", ".buffer x OUT 1 zero\nFINISH\n.expect x values\n").string(),
                        "novals.vasm:3: .expect x values: no values given");
}

TEST(CliInputErrors, ConfigDuplicatesAndSecondDocument) {
  expect_one_line_error("config validate " + write_temp("name2.yaml", "name: a\nname: b\n").string(),
                        "name2.yaml:2: 'name' is given twice");
  expect_one_line_error(
      "config validate " + write_temp("gemm2.yaml", "gemm:\n  batch: 1\ngemm:\n  block_in: 16\n").string(),
      "gemm2.yaml:3: 'gemm' is given twice");
  expect_one_line_error("config validate " + write_temp("docs2.yaml", "name: a\n---\nname: b\n").string(),
                        "docs2.yaml:2: a second YAML document");  // the line of its "---"
}

TEST(CliInputErrors, ControlCharactersInAMessageStayOnOneLine) {
  expect_one_line_error("config validate " + write_temp("nl.yaml", "gemm:\n  batch: \"16\\n\"\n").string(), "16\\n");
}

TEST(CliInputErrors, ConfigImport) {
  expect_one_line_error("config import " + write_temp("big.json", R"({"LOG_BATCH":4294967296})").string(),
                        "LOG_BATCH = 4294967296 is out of range [0, 6]");
  expect_one_line_error("config import " + write_temp("dup.json", R"({"LOG_BATCH":1,"LOG_BATCH":2})").string(),
                        "key 'LOG_BATCH' is given twice");
  expect_one_line_error("config import " + write_temp("target.json", R"({"TARGET":"x\nclock:\n  mhz: 7\n#"})").string(),
                        "TARGET \"x\\nclock:\\n  mhz: 7\\n#\" must be a word");
  expect_one_line_error("config import " + write_temp("num.json", R"({"TARGET":5})").string(),
                        "TARGET must be a string");
}

TEST(CliInputErrors, ConfigShowQuotesTheName) {
  const fs::path f = write_temp("colon.yaml", "name: \"a: b\"\n");
  const auto shown = run_vta("config show --config " + f.string());
  ASSERT_EQ(shown.code, 0) << shown.out;
  EXPECT_NE(shown.out.find("name: \"a: b\"\n"), std::string::npos) << shown.out;
  // what config show prints (YAML, the rest comments) reads back as the same design
  const fs::path back = write_temp("colon-back.yaml", shown.out);
  const auto again = run_vta("config validate " + back.string());
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("(a: b, hash"), std::string::npos) << again.out;
}

TEST(CliInputErrors, OptionsOfTheOtherMode) {
  for (const char* opt : {"--report-csv r.csv", "--report-json r.json", "--report-html r.html", "--batch 2",
                          "--image 8", "--dump-after partition"})
    expect_one_line_error("run " + kProgram + " " + opt, "applies to --model or --onnx, not to program runs");
  for (const char* opt : {"--stats none", "--stats-out s.json", "--dump OUT:0:1", "--compare golden"})
    expect_one_line_error(std::string("run --model dense:16,16 ") + opt, "applies to program runs, not to --model");
  // The message lists the pipeline's passes in order (pipeline.def), whatever they are.
  std::string passes;
  for (const std::string& p : vta::compiler::pass_names()) passes += (passes.empty() ? "" : ", ") + p;
  expect_one_line_error("run --model dense:16,16 --dump-after bogus",
                        "--dump-after bogus: no such pass (the passes: " + passes + ")");
}

TEST(CliInputErrors, DumpAndWaveWindowSyntax) {
  expect_one_line_error("run " + kProgram + " --dump OUT:1:2junk",
                        "--dump OUT:1:2junk: INDEX and COUNT must be decimal");
  expect_one_line_error("run " + kProgram + " --wave-window 0:0", "CYCLES at least 1");
}

// CLI11's usage errors read like every other error: one line, exit 2.
TEST(CliInputErrors, UsageErrorsAreOneLine) {
  expect_one_line_error("run --no-such-flag x", "vta: error: The following argument was not expected: --no-such-flag");
  expect_one_line_error("run --stats bogus x", "--stats: bogus not in {text,json,none}");
  const auto help = run_vta("run --help");
  EXPECT_EQ(help.code, 0) << help.out;
}

TEST(CliInputErrors, FailedCheckSaysSoWithoutATextReport) {
  const fs::path f = write_temp("wrong.vasm", ".buffer o OUT 1 zero\nFINISH\n.expect o values 1\n");
  const auto r = run_vta("run " + f.string() + " --stats none");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("wrong.vasm: check FAIL buffer o: 1 bytes differ"), std::string::npos) << r.out;
}

// A run-time budget. huge_gemm.vasm (a GEMM of 16383 x
// 16383 iterations over 1024 uops) ran for hours; it is refused before it
// runs, naming the instruction, the budget and the option that raises it.
const std::string kRepro = std::string(VTA_SOURCE_DIR) + "/tests/data/repro-programs/";

TEST(CliInputErrors, HugeGemmIsRefusedByTheStepBudget) {
  expect_one_line_error("run " + kRepro + "huge_gemm.vasm", "instruction 1 (GEMM");
  expect_one_line_error("run " + kRepro + "huge_gemm.vasm",
                        "over the budget of 4294967296 steps per run (raise it with --max-steps)");
  expect_one_line_error("run " + kProgram + " --max-steps 3", "over the budget of 3 steps per run");
  const auto raised = run_vta("run " + kProgram + " --max-steps 100000 --stats none");
  EXPECT_EQ(raised.code, 0) << raised.out;
}

// The budget holds for timing-only runs too (they compute no tensors but
// still walk every step): huge_gemm.vasm said 274,844,354,095 cycles.
TEST(CliInputErrors, StepBudgetAppliesToTimingOnlyRuns) {
  if (!have_backend("systemc")) GTEST_SKIP() << "built without SystemC";
  expect_one_line_error("run -b systemc --timing-only " + kRepro + "huge_gemm.vasm",
                        "over the budget of 4294967296 steps per run (raise it with --max-steps)");
  expect_one_line_error("run -b systemc --timing-only " + kProgram + " --max-steps 3",
                        "over the budget of 3 steps per run");
}

// --batch and --image are refused up front, naming the option and the limit,
// rather than running until memory runs out.
TEST(CliInputErrors, BatchAndImageLimits) {
  expect_one_line_error("run --model lenet5 --batch 100000", "--batch 100000 is over the limit of 1024");
  expect_one_line_error("run --model lenet5 --image 100000",
                        "--image 100000 is outside 0 (the network's standard size) .. 2048");
  expect_one_line_error("run --model resnet18 --batch 1000", "over the limit of 4194304");
  expect_one_line_error("run --model lenet5 --batch 64 --image 2048",
                        "--batch 64 x --image 2048 is 268435456 input pixels");
}

// An image smaller than the network's total stride used to run and report 0 %
// utilisation; it is refused, naming --image and the minimum.
TEST(CliInputErrors, ImageBelowTheNetworksMinimum) {
  expect_one_line_error("run --model resnet18 --image 1", "--image 1 is below resnet18's minimum of 32");
  expect_one_line_error("run --model mobilenet_v1 --image 31", "--image 31 is below mobilenet_v1's minimum of 32");
  expect_one_line_error("run --model lenet5 --image 15", "--image 15 is below lenet5's minimum of 16");
  const auto ok = run_vta("run --model lenet5 --image 16");
  EXPECT_EQ(ok.code, 0) << ok.out;
}

// Messages that named nothing or leaked a library's own text.
TEST(CliInputErrors, HugeSizesNameTheirSource) {
  expect_one_line_error("run --model dense:99999999999,10", "zoo model 'dense:99999999999,10': input");
  const auto r = run_vta("run " + write_temp("bigbuf.vasm", ".buffer x INP 100000000000\nFINISH\n").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bigbuf.vasm:1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("bad_alloc"), std::string::npos) << r.out;
}

TEST(CliInputErrors, DirectoriesAsInputFiles) {
  const fs::path dir = temp_dir() / "a-directory";
  fs::create_directories(dir);
  expect_one_line_error("run --onnx " + dir.string(),
                        "--onnx " + dir.string() + ": not a regular file (it is a directory)");
  expect_one_line_error("run " + write_temp("dirbuf.vasm", ".buffer x INP 1 file a-directory\nFINISH\n").string(),
                        "dirbuf.vasm:1: file " + dir.string() + ": cannot read (it is a directory)");
  // A conformance folder whose instructions.bin is a directory.
  const fs::path vec = temp_dir() / "dir-vector";
  fs::remove_all(vec);
  fs::copy(std::string(VTA_SOURCE_DIR) + "/tests/data/conformance/vectors/smm", vec);
  fs::remove(vec / "instructions.bin");
  fs::create_directories(vec / "instructions.bin");
  expect_one_line_error("run " + vec.string(), "instructions.bin: cannot read (it is a directory)");
}

// Names longer than the system allows (a preset, an ONNX file, a test
// folder): the same message as a missing file, never std::filesystem's own
// "File name too long" exception (found by tests/fuzz/fuzz_sweep_spec).
TEST(CliInputErrors, NamesTooLongForTheSystem) {
  const std::string name(300, 'x');
  expect_one_line_error("run -c " + name + " " + kProgram, name + ": no such config file or preset");
  expect_one_line_error("run --onnx-test /tmp/" + name, "/tmp/" + name + ": no model.onnx");
  expect_one_line_error("sweep status /tmp/" + name + ".db", "/tmp/" + name + ".db: no such results store");
}

TEST(CliInputErrors, YamlComplexKeyIsNamed) {
  const auto r = run_vta("config validate " + write_temp("complex.yaml", "? [a, b]\n: 1\n").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("complex.yaml:1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("bad conversion"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("yaml-cpp"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

// A binary instruction file given as a program is named as binary, not
// echoed; a huge token is cut; the line stays one line.
TEST(CliInputErrors, BinaryAndHugeInputsAreNotEchoed) {
  expect_one_line_error("run " + std::string(VTA_SOURCE_DIR) + "/tests/data/conformance/vectors/smm/instructions.bin",
                        "binary data (a zero byte at offset");
  const auto r = run_vta("run " + write_temp("longtoken.vasm", std::string(200000, 'A') + "\nFINISH\n").string());
  EXPECT_EQ(r.code, 2) << r.out.substr(0, 300);
  EXPECT_LT(r.out.size(), 2200u);
  EXPECT_NE(r.out.find("more characters)"), std::string::npos) << r.out.substr(0, 300);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

// Errors from the DRAM allocator and the SRAM reader name the program and
// buffer, or the option, they came from.
TEST(CliInputErrors, AllocationAndDumpErrorsNameTheirSource) {
  const fs::path two = write_temp("twobufs.vasm", ".buffer a INP 40000\n.buffer b INP 40000\nFINISH\n");
  expect_one_line_error("run " + two.string() + " --set memory.dram_size=1MiB",
                        "twobufs.vasm: buffer 'b': DRAM allocation");
  expect_one_line_error("run --stats none " + kProgram + " --dump OUT:4294967295:1",
                        "--dump OUT:4294967295:1: read_sram: OUT");
}

// selfmod.vasm stores into its own later instructions.
// Every backend built refuses it before it runs, with the same message.
TEST(CliInputErrors, SelfModifyingProgramIsRefusedAlike) {
  const std::string prog = kRepro + "selfmod.vasm";
  const auto golden = run_vta("run " + prog);
  EXPECT_EQ(golden.code, 2) << golden.out;
  EXPECT_NE(golden.out.find("instruction 0 (STORE OUT"), std::string::npos) << golden.out;
  EXPECT_NE(golden.out.find("over the program's own instruction 20"), std::string::npos) << golden.out;
  EXPECT_NE(golden.out.find("a program may not store into its instructions"), std::string::npos) << golden.out;
  int others = 0;
  for (const char* b : {"systemc", "opencl", "verilator"}) {
    if (!have_backend(b)) continue;
    const auto r = run_vta(std::string("run -b ") + b + " " + prog);
    EXPECT_EQ(r.code, 2) << b;
    EXPECT_EQ(r.out, golden.out) << b;
    ++others;
  }
  if (others == 0) GTEST_SKIP() << "only the golden backend is built";
}

// A design whose DRAM elements are larger than a 4 KiB
// page (batch 64, blocks 256x256) once failed every network with "buffer
// input at 0x1000 is not aligned"; buffers are now aligned to their
// elements, and what remains is named by layer.
TEST(CliInputErrors, ElementsLargerThanAPageAreAligned) {
  const auto r = run_vta(
      "run --model lenet5 --set gemm.batch=64 --set gemm.block_in=256 --set gemm.block_out=256 "
      "--set alu.lanes=1024 --set buffers.inp=1MiB --set buffers.acc=4MiB --set buffers.wgt=4MiB");
  EXPECT_EQ(r.out.find("not aligned"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layer "), std::string::npos) << r.out;
}

// Line numbers are lines the file has.
TEST(CliInputErrors, LineNumbersExist) {
  expect_one_line_error("config validate " + write_temp("eof.yaml", "name: x\ngemm:\n  batch: [1, 2\n").string(),
                        "eof.yaml:3: YAML syntax error");
  const auto r =
      run_vta("config import " +
              write_temp("badwgt.json", R"({"LOG_BLOCK_IN":8,"LOG_BLOCK_OUT":8,"LOG_WGT_BUFF_SIZE":10})").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("badwgt.json: the imported design is not valid: buffers.wgt = 1KiB is smaller than one WGT"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("badwgt.json:"), r.out.find("badwgt.json: ")) << r.out;  // no line number
}

}  // namespace
