// Generated files are committed and must match what the generators produce
// now (label: isa): the CI-style "regenerating changes nothing" check for the
// SystemVerilog packages, the OpenCL defines and docs/config.md, plus checks
// that the generated texts carry the Layout's field offsets and that the
// SystemVerilog is accepted by Verilator.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "test_support.h"
#include "vta/isa/config.h"
#include "vta/isa/fields.h"

namespace {

namespace fs = std::filesystem;
using vta::isa::FieldPos;
using vta::isa::Format;

const fs::path kSource = VTA_SOURCE_DIR;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path sv_path(const std::string& name) { return kSource / "sim/rtl/generated" / ("vta_pkg_" + name + ".sv"); }
fs::path cl_path(const std::string& name) { return kSource / "kernels/generated" / ("vta_defines_" + name + ".h"); }

// The first line where two texts differ, for a readable failure.
std::string first_difference(const std::string& committed, const std::string& fresh) {
  std::istringstream a(committed), b(fresh);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) return "texts differ only in the final newline";
    if (!ga || !gb || la != lb)
      return "first difference at line " + std::to_string(line) + ":\n  committed: " + (ga ? la : "<end of file>") +
             "\n  generated: " + (gb ? lb : "<end of file>");
  }
}

std::string prefix(Format f) {
  switch (f) {
    case Format::MEM:
      return "MEM";
    case Format::GEMM:
      return "GEM";
    case Format::ALU:
      return "ALU";
    case Format::UOP:
      return "UOP";
  }
  return "?";
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

class Generated : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { cfg_ = vta::test::preset(GetParam()); }
  vta::Config cfg_;
};

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// The committed file `path` must equal `fresh`; `regen` is the command that writes it.
void expect_committed(const fs::path& path, const std::string& fresh, const std::string& regen) {
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; create it with\n  " << regen;
  const std::string committed = read_text(path);
  EXPECT_TRUE(committed == fresh) << path
                                  << " is stale (the field table, the generator or the config changed); "
                                     "regenerate it with\n  "
                                  << regen << "\nand commit the result.\n"
                                  << first_difference(committed, fresh);
}

TEST_P(Generated, CommittedSystemVerilogPackageIsUpToDate) {
  expect_committed(
      sv_path(GetParam()), vta::isa::generate_sv_package(cfg_),
      "./build/dev/apps/vta gen sv --config " + GetParam() + " -o sim/rtl/generated/vta_pkg_" + GetParam() + ".sv");
}

TEST_P(Generated, CommittedOpenclDefinesAreUpToDate) {
  expect_committed(
      cl_path(GetParam()), vta::isa::generate_opencl_defines(cfg_),
      "./build/dev/apps/vta gen cl --config " + GetParam() + " -o kernels/generated/vta_defines_" + GetParam() + ".h");
}

// The packages of the test-only designs in tests/configs that are verilated
// (sim/rtl/CMakeLists.txt): rtl-alu4 (the ALU lane-group timing test),
// rtl-deep (the pipelined GEMM array) and rtl-tiny (the gate-level netlist test).
class TestConfigPackage : public ::testing::TestWithParam<std::string> {};

TEST_P(TestConfigPackage, CommittedSystemVerilogPackageIsUpToDate) {
  const std::string yaml = "tests/configs/" + GetParam() + ".yaml";
  expect_committed(
      sv_path(GetParam()), vta::isa::generate_sv_package(vta::load_config((kSource / yaml).string())),
      "./build/dev/apps/vta gen sv --config " + yaml + " -o sim/rtl/generated/vta_pkg_" + GetParam() + ".sv");
}

INSTANTIATE_TEST_SUITE_P(TestConfigs, TestConfigPackage, ::testing::Values("rtl-alu4", "rtl-deep", "rtl-tiny"),
                         param_name);

TEST_P(Generated, FirstLineSaysGeneratedAndHowToRegenerate) {
  for (const auto& [what, text] : {std::pair<std::string, std::string>{"sv", vta::isa::generate_sv_package(cfg_)},
                                   {"cl", vta::isa::generate_opencl_defines(cfg_)}}) {
    const std::string first = text.substr(0, text.find('\n'));
    EXPECT_NE(first.find("GENERATED"), std::string::npos) << first;
    EXPECT_NE(first.find("vta gen " + what + " --config " + GetParam()), std::string::npos) << first;
    EXPECT_NE(first.find("fields.def"), std::string::npos) << "names its source: " << first;
    EXPECT_NE(text.find(cfg_.hash()), std::string::npos) << "carries the config hash";
  }
}

// Parses "localparam int NAME = VALUE;" / "#define VTA_NAME VALUE" lines into
// a map, failing on a name given twice.
std::map<std::string, long long> sv_params(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kw, type, name, eq;
    long long value = 0;
    if (!(ls >> kw >> type >> name >> eq >> value) || kw != "localparam" || eq != "=") continue;
    EXPECT_TRUE(out.emplace(name, value).second) << "localparam " << name << " is declared twice";
  }
  return out;
}
std::map<std::string, long long> cl_defines(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kw, name;
    long long value = 0;
    if (!(ls >> kw >> name >> value) || kw != "#define") continue;
    EXPECT_TRUE(out.emplace(name, value).second) << "#define " << name << " is given twice";
  }
  return out;
}

TEST_P(Generated, TextsCarryEveryFieldOffsetAndWidthOfTheLayout) {
  const auto sv = sv_params(vta::isa::generate_sv_package(cfg_));
  const auto cl = cl_defines(vta::isa::generate_opencl_defines(cfg_));
  const vta::isa::Layout layout(cfg_);
  int fields = 0;
  for (Format f : {Format::MEM, Format::GEMM, Format::ALU, Format::UOP}) {
    for (const FieldPos& p : layout.fields(f)) {
      const std::string base = prefix(f) + "_" + upper(vta::isa::member_name(p.member));
      ASSERT_TRUE(sv.count(base + "_LSB")) << base;
      ASSERT_TRUE(sv.count(base + "_WIDTH")) << base;
      EXPECT_EQ(sv.at(base + "_LSB"), p.lsb) << base;
      EXPECT_EQ(sv.at(base + "_WIDTH"), p.width) << base;
      ASSERT_TRUE(cl.count("VTA_" + base + "_LSB")) << base;
      EXPECT_EQ(cl.at("VTA_" + base + "_LSB"), p.lsb) << base;
      EXPECT_EQ(cl.at("VTA_" + base + "_WIDTH"), p.width) << base;
      ++fields;
    }
  }
  EXPECT_EQ(fields, static_cast<int>(vta::isa::field_specs().size()));
  // Derived quantities and the enumerations.
  const auto& d = cfg_.derived;
  const std::pair<const char*, long long> expected[] = {{"BATCH", cfg_.gemm.batch},
                                                        {"BLOCK_IN", cfg_.gemm.block_in},
                                                        {"BLOCK_OUT", cfg_.gemm.block_out},
                                                        {"INP_BUFF_DEPTH", d.inp_depth},
                                                        {"WGT_BUFF_DEPTH", d.wgt_depth},
                                                        {"ACC_BUFF_DEPTH", d.acc_depth},
                                                        {"UOP_BUFF_DEPTH", d.uop_depth},
                                                        {"LOG_ACC_BUFF_DEPTH", d.log_acc_depth},
                                                        {"INP_ELEM_BYTES", d.inp_elem_bytes},
                                                        {"OPCODE_ALU", 4},
                                                        {"MEM_ID_ACC_8BIT", 5},
                                                        {"ALU_OPCODE_SHR", 3},
                                                        {"INSN_WIDTH", 128},
                                                        {"UOP_WIDTH", 32}};
  for (auto [name, value] : expected) {
    ASSERT_TRUE(sv.count(name)) << name;
    EXPECT_EQ(sv.at(name), value) << name;
    if (std::string(name) != "INSN_WIDTH" && std::string(name) != "UOP_WIDTH") {
      ASSERT_TRUE(cl.count(std::string("VTA_") + name)) << name;
      EXPECT_EQ(cl.at(std::string("VTA_") + name), value) << name;
    }
  }
}

TEST(GeneratedText, DefaultDesignHasUpstreamOffsets) {
  const vta::Config c = vta::test::preset("vta-1x16x16");
  const std::string sv = vta::isa::generate_sv_package(c);
  const std::string cl = vta::isa::generate_opencl_defines(c);
  for (const char* s : {"localparam int GEM_UOP_BGN_LSB = 8;", "localparam int GEM_UOP_END_LSB = 21;",
                        "localparam int GEM_ITER_IN_LSB = 49;", "localparam int GEM_DST_FACTOR_OUT_LSB = 64;",
                        "localparam int GEM_WGT_FACTOR_IN_LSB = 118;", "localparam int MEM_DRAM_BASE_LSB = 26;",
                        "localparam int MEM_Y_SIZE_LSB = 64;", "localparam int MEM_X_PAD_1_LSB = 124;",
                        "localparam int ALU_ALU_OPCODE_LSB = 108;", "localparam int ALU_USE_IMM_LSB = 111;",
                        "localparam int ALU_IMM_LSB = 112;", "localparam int UOP_WGT_LSB = 22;",
                        "localparam int LOG_UOP_BUFF_DEPTH = 13;", "localparam int INP_BUFF_DEPTH = 2048;"})
    EXPECT_NE(sv.find(s), std::string::npos) << s;
  for (const char* s : {"#define VTA_GEM_UOP_BGN_LSB 8 ", "#define VTA_ALU_IMM_LSB 112 ", "#define VTA_UOP_SRC_LSB 11 ",
                        "#define VTA_MEM_SRAM_BASE_LSB 10 ", "#define VTA_WGT_BUFF_DEPTH 1024 "})
    EXPECT_NE(cl.find(s), std::string::npos) << s;
  EXPECT_NE(cl.find("#ifndef VTA_DEFINES_H_"), std::string::npos);
  EXPECT_NE(cl.find("#endif"), std::string::npos);
  EXPECT_NE(sv.find("package vta_pkg;"), std::string::npos);
  EXPECT_NE(sv.find("endpackage"), std::string::npos);
}

TEST(GeneratedText, DifferentDesignsGiveDifferentOffsets) {
  const vta::Config a = vta::test::preset("vta-1x16x16");
  // A quarter of the accumulator: ACC depth 512 (9 bits) moves every word-1
  // field after dst_factor_out down by 2 bits, then 4, ...
  const vta::Config b = vta::test::preset("vta-1x16x16", {{"buffers.acc", "32KiB"}});
  const std::string sv = vta::isa::generate_sv_package(b);
  EXPECT_NE(sv.find("localparam int GEM_DST_FACTOR_IN_LSB = 73;"), std::string::npos);
  EXPECT_NE(sv.find("localparam int GEM_SRC_FACTOR_OUT_LSB = 82;"), std::string::npos);
  EXPECT_NE(sv.find("localparam int UOP_SRC_LSB = 9;"), std::string::npos);
  EXPECT_NE(vta::isa::generate_opencl_defines(b).find("#define VTA_ALU_ALU_OPCODE_LSB 100 "), std::string::npos);
  EXPECT_NE(vta::isa::generate_sv_package(a), sv);
  const vta::Config c = vta::test::preset("vta-4x16x16");
  EXPECT_NE(vta::isa::generate_opencl_defines(a), vta::isa::generate_opencl_defines(c));
  EXPECT_NE(vta::isa::generate_opencl_defines(c).find("#define VTA_BATCH 4 "), std::string::npos);
}

TEST(GeneratedDocs, ConfigReferenceIsUpToDate) {
  const fs::path path = kSource / "docs/config.md";
  ASSERT_TRUE(fs::exists(path))
      << path << " is missing; create it with\n  ./build/dev/apps/vta config schema -o docs/config.md";
  const std::string committed = read_text(path);
  const std::string fresh = vta::schema_markdown();
  EXPECT_TRUE(committed == fresh) << "docs/config.md is stale (config_knobs.def changed); regenerate it with\n"
                                     "  ./build/dev/apps/vta config schema -o docs/config.md\nand commit the result.\n"
                                  << first_difference(committed, fresh);
  // Every knob is documented, with its key.
  for (const auto& k : vta::knobs()) EXPECT_NE(fresh.find("`" + k.key() + "`"), std::string::npos) << k.key();
  EXPECT_EQ(fresh.rfind("<!-- Generated", 0), 0u) << "first line says it is generated";
}

// ---------------------------------------------------------------- Verilator lint

bool have_verilator() { return std::system("command -v verilator >/dev/null 2>&1") == 0; }

// A temporary folder removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "vta_lint_XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// Lints `package_text` as vta_pkg.sv with a small module that imports it (a
// package alone has no top module, which Verilator rejects). Returns the exit
// status; `log` receives Verilator's output.
int lint(const std::string& package_text, std::string& log) {
  TempDir dir;
  if (dir.path.empty()) {
    log = "cannot create a temporary folder";
    return -1;
  }
  std::ofstream(dir.path / "vta_pkg.sv") << package_text;
  std::ofstream(dir.path / "vta_lint_top.sv")
      << "module vta_lint_top (output logic [31:0] o);\n"
         "  import vta_pkg::*;\n"
         "  assign o = 32'(INSN_WIDTH + UOP_WIDTH + GEM_UOP_BGN_LSB + ALU_IMM_LSB + MEM_DRAM_BASE_WIDTH);\n"
         "endmodule\n";
  // -Wall, less UNUSEDPARAM: a package of constants is mostly unused by one module.
  const std::string cmd = "cd '" + dir.path.string() +
                          "' && verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module vta_lint_top "
                          "vta_pkg.sv vta_lint_top.sv > lint.log 2>&1";
  const int rc = std::system(cmd.c_str());
  log = read_text(dir.path / "lint.log");
  return rc;
}

TEST_P(Generated, SystemVerilogPassesVerilatorLint) {
  if (!have_verilator()) GTEST_SKIP() << "verilator is not on PATH";
  std::string log;
  EXPECT_EQ(lint(vta::isa::generate_sv_package(cfg_), log), 0) << log;
}

TEST(GeneratedLint, VerilatorRejectsABrokenPackage) {
  // The lint step can fail: a package with a missing ';' is reported.
  if (!have_verilator()) GTEST_SKIP() << "verilator is not on PATH";
  std::string text = vta::isa::generate_sv_package(vta::test::preset("vta-1x16x16"));
  const auto at = text.find("localparam int BATCH = 1;");
  ASSERT_NE(at, std::string::npos);
  text.erase(text.find(';', at), 1);
  std::string log;
  EXPECT_NE(lint(text, log), 0) << log;
  EXPECT_NE(log.find("rror"), std::string::npos) << log;
}

INSTANTIATE_TEST_SUITE_P(Presets, Generated, ::testing::ValuesIn(vta::test::preset_names()), param_name);

}  // namespace
