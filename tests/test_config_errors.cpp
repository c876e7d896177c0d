// Bad configs must fail with a specific message (label: error): every
// message names the file, the line and the key, and says what is wrong.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "error_of.h"
#include "test_support.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"

using vta::test::error_of;

namespace {

// The vta::Error message of `f()`, or a marker when it does not throw one.

std::string load_error(const std::string& yaml, const std::vector<vta::Override>& overrides = {}) {
  return error_of([&] { (void)vta::load_config_text(yaml, "bad.yaml", overrides); });
}

// Checks that `msg` is a vta::Error message containing every part.
void expect_parts(const std::string& msg, std::initializer_list<std::string> parts) {
  ASSERT_NE(msg, vta::test::kNoError);
  EXPECT_EQ(msg.rfind("<not a vta::Error>", 0), std::string::npos) << msg;
  for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
}

// ------------------------------------------------------------------ keys

// yaml-cpp 0.7's LoadAll looped forever, allocating gigabytes, on a stray ','
// at the start of a line after an indented map (found by
// tests/fuzz/fuzz_config; the fuzzer's input is in tests/fuzz/regressions/).
TEST(ConfigErrors, StrayCommaIsASyntaxErrorNotAHang) {
  expect_parts(load_error(" b: 1\n,\n"), {"bad.yaml:2", "YAML syntax error", "unexpected character"});
  expect_parts(load_error("# Bat/ch 4\n  block_in: 16\n ,\xff\xff\xff ard\nname: vt128\n"),
               {"bad.yaml:", "YAML syntax error"});
}

TEST(ConfigErrors, UnknownKeySuggestsTheClosest) {
  const std::string msg = load_error("name: x\ngemm:\n  batch: 1\n  blok_in: 16\n");
  expect_parts(msg, {"bad.yaml:4", "gemm.blok_in", "unknown key", "did you mean 'block_in'"});
}

TEST(ConfigErrors, UnknownKeyFarFromAnyHasNoSuggestion) {
  const std::string msg = load_error("memory:\n  frobnicate: 3\n");
  expect_parts(msg, {"bad.yaml:2", "memory.frobnicate", "unknown key"});
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
}

TEST(ConfigErrors, KeyOfAnotherSectionIsUnknownHere) {
  // No aliases: a knob is only accepted in its own section.
  expect_parts(load_error("gemm:\n  lanes: 16\n"), {"bad.yaml:2", "gemm.lanes", "unknown key"});
}

TEST(ConfigErrors, UnknownSectionSuggestsTheClosest) {
  expect_parts(load_error("gemm:\n  batch: 1\ngemn:\n  batch: 1\n"),
               {"bad.yaml:3", "unknown section 'gemn'", "did you mean 'gemm'"});
  expect_parts(load_error("bufers:\n  inp: 32KiB\n"), {"bad.yaml:1", "'bufers'", "did you mean 'buffers'"});
}

TEST(ConfigErrors, DuplicateKey) {
  expect_parts(load_error("gemm:\n  batch: 1\n  block_in: 16\n  batch: 2\n"),
               {"bad.yaml:4", "gemm.batch", "given twice"});
  // A repeated section is itself an error (not merged with the first).
  expect_parts(load_error("buffers:\n  inp: 32KiB\nalu:\n  lanes: 16\nbuffers:\n  wgt: 16KiB\n"),
               {"bad.yaml:5", "'buffers' is given twice"});
}

// ---------------------------------------------------------------- values

TEST(ConfigErrors, StringWhereAnIntegerIsExpected) {
  expect_parts(load_error("gemm:\n  batch: four\n"), {"bad.yaml:2", "gemm.batch", "'four'", "integer"});
  expect_parts(load_error("alu:\n  latency: 4 cycles\n"), {"bad.yaml:2", "alu.latency", "integer"});
}

TEST(ConfigErrors, FractionWhereAnIntegerIsExpected) {
  expect_parts(load_error("gemm:\n  batch: 1\n  block_in: 16.5\n"),
               {"bad.yaml:3", "gemm.block_in", "'16.5'", "integer"});
  expect_parts(load_error("buffers:\n  inp: 1.5KiB\n"), {"bad.yaml:2", "buffers.inp", "'1.5KiB'", "size"});
}

TEST(ConfigErrors, ListOrMappingWhereAScalarIsExpected) {
  expect_parts(load_error("gemm:\n  batch: [1, 2]\n"), {"bad.yaml:2", "gemm.batch", "single value", "list"});
  expect_parts(load_error("gemm:\n  batch:\n    - 1\n"), {"bad.yaml:2", "gemm.batch", "list"});
  expect_parts(load_error("gemm:\n  batch:\n    value: 1\n"), {"bad.yaml:2", "gemm.batch", "mapping"});
  expect_parts(load_error("clock:\n  mhz:\n"), {"bad.yaml:2", "clock.mhz", "null"});
}

TEST(ConfigErrors, WrongTypesOfOtherKinds) {
  expect_parts(load_error("isa:\n  alu_mul: yes\n"), {"bad.yaml:2", "isa.alu_mul", "'yes'", "true or false"});
  expect_parts(load_error("clock:\n  mhz: fast\n"), {"bad.yaml:2", "clock.mhz", "'fast'", "number"});
  expect_parts(load_error("buffers:\n  wgt: 256KB\n"), {"bad.yaml:2", "buffers.wgt", "'256KB'", "32KiB"});
}

TEST(ConfigErrors, SectionsAndTheFileHaveAShape) {
  expect_parts(load_error("gemm: 16\n"), {"bad.yaml:1", "section 'gemm'", "mapping"});
  expect_parts(load_error("- gemm\n- alu\n"), {"bad.yaml:1", "mapping"});
  expect_parts(load_error("name: [a, b]\n"), {"bad.yaml:1", "name"});
}

TEST(ConfigErrors, OutOfRange) {
  expect_parts(load_error("gemm:\n  batch: 128\n"), {"bad.yaml:2", "gemm.batch", "out of range", "[1, 64]"});
  expect_parts(load_error("gemm:\n  batch: 0\n"), {"bad.yaml:2", "gemm.batch", "out of range"});
  expect_parts(load_error("alu:\n  latency: -1\n"), {"bad.yaml:2", "alu.latency", "out of range", "[1, 64]"});
  expect_parts(load_error("clock:\n  mhz: 0.5\n"), {"bad.yaml:2", "clock.mhz", "out of range"});
  expect_parts(load_error("buffers:\n  acc: 2GiB\n"), {"bad.yaml:2", "buffers.acc", "out of range", "1GiB"});
}

TEST(ConfigErrors, BlockMustBeAPowerOfTwo) {
  expect_parts(load_error("gemm:\n  batch: 1\n  block_in: 24\n"),
               {"bad.yaml:3", "gemm.block_in", "24", "power of two"});
  expect_parts(load_error("gemm:\n  block_out: 12\n"), {"bad.yaml:2", "gemm.block_out", "power of two"});
  expect_parts(load_error("buffers:\n  inp: 3000\n"), {"bad.yaml:2", "buffers.inp", "power of two"});
}

// The widths the datapath builds (docs/design.md, "Data types"); every
// refusal names the knob, its line and the rule.
TEST(ConfigErrors, UnsupportedDtypeWidth) {
  expect_parts(load_error("dtype:\n  inp_bits: 6\n"), {"bad.yaml:2", "dtype.inp_bits = 6", "4, 8 or 16"});
  expect_parts(load_error("dtype:\n  wgt_bits: 12\n"), {"bad.yaml:2", "dtype.wgt_bits = 12", "4, 8 or 16"});
  expect_parts(load_error("dtype:\n  acc_bits: 24\n"), {"bad.yaml:2", "dtype.acc_bits = 24", "16 or 32"});
  expect_parts(load_error("dtype:\n  inp_bits: 2\n"), {"bad.yaml:2", "dtype.inp_bits"});
  expect_parts(load_error("dtype:\n  out_bits: 32\n"), {"bad.yaml:2", "dtype.out_bits"});
}

TEST(ConfigErrors, DtypeWidthsThatDoNotCombine) {
  expect_parts(load_error("dtype:\n  acc_bits: 16\n  out_bits: 16\n  inp_bits: 16\n"),
               {"bad.yaml:2", "dtype.acc_bits = 16", "cannot hold one product", "dtype.inp_bits = 16",
                "dtype.wgt_bits = 8", "24 bits"});
  expect_parts(load_error("gemm:\n  block_in: 1\ndtype:\n  inp_bits: 4\n"),
               {"bad.yaml:4", "dtype.inp_bits = 4", "INP element of 4 bits", "gemm.batch x gemm.block_in = 1"});
  expect_parts(load_error("gemm:\n  block_out: 1\n  block_in: 2\ndtype:\n  out_bits: 4\n"),
               {"bad.yaml:5", "dtype.out_bits = 4", "OUT element of 4 bits", "not whole bytes"});
}

TEST(ConfigErrors, BadEnumSuggestsTheClosest) {
  expect_parts(
      load_error("memory:\n  bus_bits: 64\n  arbitration: round_robn\n"),
      {"bad.yaml:3", "memory.arbitration", "'round_robn'", "round_robin|fixed_priority", "did you mean 'round_robin'"});
  expect_parts(load_error("host:\n  link: pcei\n"), {"bad.yaml:2", "host.link", "did you mean 'pcie'"});
}

// ------------------------------------------------------- cross-knob rules

TEST(ConfigErrors, BufferSmallerThanOneElement) {
  // A WGT element of the 16x16 core is 256 bytes.
  expect_parts(load_error("gemm:\n  block_in: 16\nbuffers:\n  wgt: 128\n"),
               {"bad.yaml:4", "buffers.wgt", "smaller than one WGT element", "256 bytes"});
  expect_parts(load_error("gemm:\n  batch: 4\nbuffers:\n  acc: 128\n"),
               {"bad.yaml:4", "buffers.acc", "ACC element", "256 bytes"});
}

TEST(ConfigErrors, DepthBeyondTheSramBaseField) {
  // 2MiB of 16-byte INP elements is 131072 elements; sram_base has 16 bits.
  expect_parts(load_error("buffers:\n  inp: 2MiB\n"),
               {"bad.yaml:2", "buffers.inp", "131072", "sram_base", "16 bits", "65536"});
}

TEST(ConfigErrors, AluLanesBeyondOneAccElement) {
  expect_parts(load_error("gemm:\n  block_out: 8\nalu:\n  lanes: 16\n"), {"bad.yaml:4", "alu.lanes", "8 elements"});
}

TEST(ConfigErrors, ConcurrentAluNeedsTwoAccBanks) {
  // A 1x16x16 ACC element is 64 bytes: 64B is one element, no two banks.
  expect_parts(load_error("alu:\n  concurrent: true\nbuffers:\n  acc: 64B\n"),
               {"bad.yaml:2", "alu.concurrent = true", "at least 2 elements", "buffers.acc = 64B holds 1"});
}

TEST(ConfigErrors, DramBeyondWhatDramBaseAddresses) {
  expect_parts(load_error("memory:\n  dram_size: 32GiB\n"), {"bad.yaml:2", "memory.dram_size", "32GiB", "16GiB"});
}

TEST(ConfigErrors, DramChannelsMustBeAPowerOfTwo) {
  expect_parts(load_error("memory:\n  dram: ddr4-2400\n  channels: 3\n"),
               {"bad.yaml:3", "memory.channels = 3", "power of two"});
}

TEST(ConfigErrors, DramKnobsWithTheFixedModelHaveNoEffect) {
  expect_parts(load_error("memory:\n  page_policy: closed\n"),
               {"bad.yaml:2", "memory.page_policy = closed", "no effect with memory.dram = fixed"});
  expect_parts(load_error("", {{"memory.dram_queue_depth", "4"}}),
               {"--set memory.dram_queue_depth", "no effect with memory.dram = fixed"});
}

TEST(ConfigErrors, UnknownDramPresetListsTheChoices) {
  expect_parts(load_error("memory:\n  dram: ddr5\n"), {"bad.yaml:2", "memory.dram", "ddr4-2400", "hbm2-2000"});
}

// What only the DRAM model can check fails when a cycle model is made for the
// config, naming the file and the knob.
TEST(ConfigErrors, DramDeviceErrorsNameTheKnob) {
  const vta::Config bad_map =
      vta::load_config_text("memory:\n  dram: ddr4-2400\n  dram_mapping: ro.ba.co\n", "bad.yaml");
  expect_parts(error_of([&] { (void)vta::make_backend("systemc", bad_map); }), {"bad.yaml", "memory.dram_mapping"});
}

TEST(ConfigErrors, GemmWordOneOverflows) {
  // 64KiB of INP is 4096 elements: every sram_base still fits 16 bits, but
  // GEMM word 1 needs 2 x (11 + 12 + 10) = 66 bits.
  const std::string msg = load_error("name: big\nbuffers:\n  inp: 64KiB\n");
  expect_parts(msg, {"bad.yaml:3", "buffers.inp", "GEMM/FINISH word 1", "66 bits", "has 64", "src_factor_out=12 bits"});
}

TEST(ConfigErrors, GemmWordOneOverflowsFromTheShape) {
  // block_in 4 makes INP elements of 4 bytes and WGT elements of 64: the
  // default buffers then hold 8192 (13 bits) and 4096 (12 bits) of them, so
  // GEMM word 1 needs 2 x (11 + 13 + 12) = 72 bits. No buffer is given: the
  // shape is to blame.
  const std::string msg = load_error("gemm:\n  block_in: 4\n");
  expect_parts(msg, {"bad.yaml:2", "gemm.block_in", "GEMM/FINISH word 1", "72 bits", "has 64"});
}

TEST(ConfigErrors, GemmWordZeroOverflows) {
  // 16384 uops: uop_bgn 14 bits and uop_end 15 bits make word 0 65 bits.
  const std::string msg = load_error("alu:\n  lanes: 16\nbuffers:\n  uop: 64KiB\n");
  expect_parts(msg, {"bad.yaml:4", "buffers.uop", "word 0", "65 bits", "has 64", "uop_bgn=14 bits"});
}

TEST(ConfigErrors, AluWordOneOverflows) {
  // ACC 12 bits: ALU word 1 is 4 x 12 + 3 + 1 + 16 = 68 bits while GEMM word
  // 1 (2 x (12 + 10 + 10)) still fits.
  const std::string msg = load_error("buffers:\n  inp: 16KiB\n  acc: 256KiB\n");
  expect_parts(msg, {"bad.yaml:3", "buffers.acc", "ALU word 1", "68 bits", "has 64"});
}

TEST(ConfigErrors, UopOverflows32Bits) {
  // dst 11 + src max(11, 10) + wgt 11 = 33 bits; every instruction word fits.
  const std::string msg = load_error("buffers:\n  inp: 16KiB\n  wgt: 512KiB\n");
  expect_parts(msg, {"bad.yaml:3", "buffers.wgt", "uop word", "33 bits", "has 32", "wgt=11 bits"});
}

TEST(ConfigErrors, FitErrorFromAnOverrideNamesTheOverride) {
  const std::string msg = error_of([] {
    (void)vta::load_config(vta::resolve_config_path("vta-1x16x16"), {{"buffers.inp", "64KiB"}});
  });
  expect_parts(msg, {"--set buffers.inp", "GEMM/FINISH word 1", "66 bits"});
}

TEST(ConfigErrors, FitErrorBlamesTheOverrideOverTheFile) {
  // vta-4x16x16 sizes its buffers for batch 4 in the file; batch 2 doubles
  // the INP and ACC depths (12 bits each): the override is what broke it.
  const std::string msg = error_of([] {
    (void)vta::load_config(vta::resolve_config_path("vta-4x16x16"), {{"gemm.batch", "2"}, {"alu.lanes", "32"}});
  });
  expect_parts(msg, {"--set gemm.batch", "gemm.batch = 2", "GEMM/FINISH word 1", "68 bits", "has 64"});
}

// ----------------------------------------------------------------- syntax

TEST(ConfigErrors, MalformedYamlNamesTheLine) {
  // An unclosed flow list is found where the next key starts.
  expect_parts(load_error("gemm:\n  batch: 1\n  block_in: [16\nalu:\n  lanes: 16\n"),
               {"bad.yaml:4", "YAML syntax error"});
  expect_parts(load_error("gemm:\n  batch: 1\n block_in: 16\n"), {"bad.yaml:3", "YAML syntax error"});
  expect_parts(load_error("gemm:\n  batch: 1\n  block_in: 16\n\tblock_out: 16\n"),
               {"bad.yaml:4", "YAML syntax error", "tab"});
  expect_parts(load_error("name: a: b\n"), {"bad.yaml:1", "YAML syntax error"});
}

// -------------------------------------------------------------- overrides

TEST(ConfigErrors, OverrideWithUnknownKey) {
  const std::string msg = load_error("gemm:\n  batch: 1\n", {{"gemm.blok_out", "32"}});
  expect_parts(msg, {"--set gemm.blok_out", "unknown key", "did you mean 'gemm.block_out'"});
}

TEST(ConfigErrors, OverrideWithBadValue) {
  expect_parts(load_error("", {{"gemm.batch", "3"}}), {"--set gemm.batch", "power of two"});
  expect_parts(load_error("", {{"buffers.inp", "lots"}}), {"--set buffers.inp", "'lots'", "size"});
  expect_parts(load_error("", {{"host.link", "pci"}}), {"--set host.link", "did you mean 'pcie'"});
  // A host CPU preset that does not exist: the key and every allowed name.
  expect_parts(load_error("host:\n  cpu: cortex-a9-667\n"), {"bad.yaml:2",
                                                             "host.cpu = 'cortex-a9-667' is not one of "
                                                             "custom|cortex-a9-650|cortex-a53-1200|xeon-e5-2690v3",
                                                             "did you mean 'cortex-a9-650'"});
}

// A caller that knows where its overrides came from (a sweep: the spec line
// of an axis) names that place in every message about them, as it would
// name `--set`: a bad value, an unknown key, a cross-knob rule and the fit
// of the encoding; a knob of the file is still named by its line.
TEST(ConfigErrors, OverrideOriginNamesWhereTheOverrideCameFrom) {
  const auto from_spec = [](const std::vector<vta::Override>& overrides) {
    return error_of([&] {
      (void)vta::load_config_text("gemm:\n  batch: 1\n", "bad.yaml", overrides, [&](size_t i) {
        return "s.yaml:" + std::to_string(10 + i) + ": axis " + overrides[i].first;
      });
    });
  };
  const std::string bad_value = from_spec({{"alu.lanes", "16"}, {"gemm.batch", "3"}});
  expect_parts(bad_value, {"s.yaml:11: axis gemm.batch: gemm.batch = 3 must be a power of two"});
  EXPECT_EQ(bad_value.find("--set"), std::string::npos) << bad_value;
  expect_parts(from_spec({{"gemm.blok_out", "32"}}),
               {"s.yaml:10: axis gemm.blok_out: unknown key 'gemm.blok_out'", "did you mean 'gemm.block_out'"});
  expect_parts(from_spec({{"clock.mhz", "300"}, {"alu.lanes", "32"}}),
               {"s.yaml:11: axis alu.lanes: alu.lanes = 32 exceeds the 16 elements"});
  const std::string fit = from_spec({{"buffers.inp", "64KiB"}});
  expect_parts(fit, {"s.yaml:10: axis buffers.inp: buffers.inp = 64KiB: ", "GEMM/FINISH word 1", "66 bits"});
  EXPECT_EQ(fit.find("--set"), std::string::npos) << fit;
  // A knob the file sets keeps its line in the file.
  const std::string file = error_of([] {
    (void)vta::load_config_text("gemm:\n  batch: 1\nalu:\n  lanes: 32\n", "bad.yaml", {{"clock.mhz", "300"}},
                                [](size_t) { return std::string("s.yaml:10: axis clock.mhz"); });
  });
  expect_parts(file, {"bad.yaml:4: alu.lanes = 32 exceeds"});
}

TEST(ConfigErrors, OverrideWithoutEquals) {
  expect_parts(error_of([] { (void)vta::parse_override("gemm.block_out"); }), {"--set", "gemm.block_out", "key=value"});
  expect_parts(error_of([] { (void)vta::parse_override("=32", "sweep axis"); }), {"sweep axis", "key=value"});
}

// ------------------------------------------------------------------ files

TEST(ConfigErrors, MissingFileAndPreset) {
  expect_parts(error_of([] { (void)vta::load_config("/nonexistent/x.yaml"); }), {"/nonexistent/x.yaml", "cannot open"});
  expect_parts(error_of([] { (void)vta::resolve_config_path("vta-2x16x16"); }),
               {"vta-2x16x16", "no such config", "vta-1x16x16"});
}

// --------------------------------------------------------- upstream json

std::string import_error(const std::string& json) {
  return error_of([&] { (void)vta::import_upstream_json(json, "vta_config.json"); });
}

TEST(ConfigErrors, UpstreamJsonUnknownKey) {
  expect_parts(import_error(R"({"TARGET": "sim", "LOG_BLOK": 4})"), {"vta_config.json", "unknown", "'LOG_BLOK'"});
}

TEST(ConfigErrors, UpstreamJsonOtherHardwareVersion) {
  expect_parts(import_error(R"({"HW_VER": "0.0.1", "LOG_BLOCK": 4})"), {"vta_config.json", "HW_VER", "0.0.1", "0.0.2"});
}

// Bytes after a NUL were ignored: {"LOG_BLOCK": 4}\0{"LOG_BLOCK": 5} imported as block 4.
TEST(ConfigErrors, UpstreamJsonWithANulByte) {
  expect_parts(import_error(std::string("{\"LOG_BLOCK\": 4}\n\0{\"LOG_BLOCK\": 5}", 34)),
               {"vta_config.json:2: a NUL byte; not a JSON text file"});
}

TEST(ConfigErrors, UpstreamJsonInvalid) {
  expect_parts(import_error(R"({"LOG_BLOCK": 4,)"), {"vta_config.json:1:17: not valid JSON (syntax error"});
  expect_parts(import_error("{\n  \"LOG_BLOCK\": junk\n}"),
               {"vta_config.json:2:16: not valid JSON (syntax error while parsing value - invalid literal"});
  expect_parts(import_error("[1, 2]"), {"vta_config.json", "object"});
  // The place and nlohmann's reason, not its exception tag.
  const std::string m = import_error(R"({"LOG_BLOCK": 4,)");
  EXPECT_EQ(m.find("json.exception"), std::string::npos) << m;
}

// Found by fuzz_config_import: a number too large for a double is
// nlohmann's out_of_range, not a parse_error, and escaped as itself.
TEST(ConfigErrors, UpstreamJsonNumberOverflow) {
  expect_parts(import_error("1e3001"), {"vta_config.json", "not valid JSON", "number overflow"});
  expect_parts(import_error(R"({"LOG_BLOCK": 1e400})"), {"vta_config.json", "not valid JSON"});
}

TEST(ConfigErrors, UpstreamJsonBadValues) {
  expect_parts(import_error(R"({"LOG_BATCH": "2"})"), {"vta_config.json", "LOG_BATCH", "integer"});
  expect_parts(import_error(R"({"LOG_BLOCK": 9})"), {"vta_config.json", "LOG_BLOCK", "out of range"});
  // Converts, but the design itself is not encodable.
  expect_parts(import_error(R"({"LOG_INP_BUFF_SIZE": 16})"), {"vta_config.json", "GEMM/FINISH word 1"});
}

}  // namespace
