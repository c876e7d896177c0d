// The bring-up battery (bringup/) on the simulators: a small battery passes
// on systemc, verilator and systemc-rtl and its summary names the backend,
// the design and the config hash; a bug planted in the RTL core
// (VTA_RTL_FAULT, sim/rtl/README.md "Test hooks") is localised to its
// instruction and element, with a bounded VCD window; `vta bringup -b`; the
// one XML/HTML escape. The OpenCL battery is tested in test_opencl.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "env_guard.h"
#include "run_cli.h"
#include "test_support.h"
#include "vta/bringup/battery.h"
#include "vta/bringup/diagnose.h"
#include "vta/bringup/junit.h"
#include "vta/bringup/programs.h"
#include "vta/isa/xml_escape.h"
#include "vta/model/random_program.h"

namespace {

using vta::bringup::CaseResult;
using vta::test::preset;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

using vta::test::EnvGuard;

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::path(VTA_BINARY_DIR) / "test-bringup" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(XmlEscape, EscapesMarkupAndControlCharacters) {
  EXPECT_EQ(vta::xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(vta::xml_escape(std::string("x\x01y\nz\t", 6)), "x y\nz\t");
  EXPECT_EQ(vta::xml_escape(""), "");
}

// The battery race-checks every program before comparing: racy programs
// (the generator's racy knob) are named as the program's fault with both
// instructions, race-free ones pass the check, and a program whose error is
// not a race is left to the comparison.
TEST(RaceCheck, RacyProgramsAreTheProgramsFault) {
  const vta::Config c = preset("vta-1x16x16");
  int racy = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(vta::bringup::race_in(c, vta::random_program(c, seed)), "") << "seed " << seed;
    vta::RandomProgramOptions o;
    o.racy = true;
    const std::string msg = vta::bringup::race_in(c, vta::random_program(c, seed, o));
    if (msg.empty()) continue;
    ++racy;
    EXPECT_HAS(msg, "data race on ");
    EXPECT_HAS(msg, "with no dependency-token path between them");
  }
  EXPECT_GE(racy, 10);
  vta::RandomProgramOptions bad;
  bad.fields = vta::RandomProgramOptions::Fields::OUT_OF_RANGE;
  EXPECT_EQ(vta::bringup::race_in(c, vta::random_program(c, 3, bad)), "");
}

void expect_passes(const vta::bringup::Report& r, const std::string& backend, size_t min_passed) {
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  EXPECT_GE(r.count(CaseResult::Status::PASS), min_passed) << vta::bringup::summary(r);
  const std::string s = vta::bringup::summary(r);
  EXPECT_HAS(s, "bring-up of backend " + backend + " (");
  EXPECT_HAS(s, "design vta-1x16x16 (config hash " + preset("vta-1x16x16").hash() + ")");
  EXPECT_HAS(s, "race check: passed");
  const std::string x = vta::bringup::junit_xml(r);
  EXPECT_HAS(x, "<property name=\"backend\" value=\"" + backend + "\"/>");
  EXPECT_HAS(x, "<property name=\"race_check\" value=\"passed\"/>");
}

/// The whole battery, as every backend built in CI must pass it: corners,
/// conformance vectors, 100 random programs and lenet5.
void expect_full_battery_passes(const std::string& backend) {
  vta::bringup::Options o;
  o.backend = backend;
  o.config = preset("vta-1x16x16");
  o.random = 100;
  o.networks = {"lenet5"};
  o.wave_dir = temp_dir(backend + "-full-waves");
  const auto r = vta::bringup::run(o);
  expect_passes(r, backend, 150);
  auto in = [&](const char* suite) {
    return std::count_if(r.cases.begin(), r.cases.end(),
                         [&](const auto& c) { return c.suite == suite && c.status == CaseResult::Status::PASS; });
  };
  EXPECT_GE(in("corners"), 40);
  EXPECT_GE(in("conformance"), 8);
  EXPECT_EQ(in("random"), 100);
  EXPECT_EQ(in("networks"), 1);
}

TEST(Battery, FullOnGolden) { expect_full_battery_passes("golden"); }

#ifdef VTA_WITH_SYSTEMC
TEST(Battery, FullOnSystemc) { expect_full_battery_passes("systemc"); }

// alu.concurrent (docs/timing.md, "Concurrent ALU"): every buffer equals the
// golden model's after each program, on each preset's shape.
TEST(Battery, ConcurrentAluOnSystemc) {
  for (const char* name : {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16"}) {
    vta::bringup::Options o;
    o.backend = "systemc";
    o.config = preset(name, {{"alu.concurrent", "true"}});
    o.conformance = false;
    o.random = 40;
    o.networks = {};
    o.wave_dir = "";
    const auto r = vta::bringup::run(o);
    EXPECT_TRUE(r.passed()) << name << ": " << vta::bringup::summary(r);
    EXPECT_GE(r.count(CaseResult::Status::PASS), 80u) << name << ": " << vta::bringup::summary(r);
  }
}

// Element widths (docs/design.md, "Data types"): the corner programs pack
// their ACC values at 16 bits, lenet5 is built at the design's widths (4-bit
// weights; 4-bit values into 16-bit accumulators), and a network the
// compiler cannot lower to a design (OUT wider than INP) is skipped saying
// why, never failed; the int8 conformance vectors are skipped on other
// widths.
TEST(Battery, ElementWidthsOnSystemc) {
  vta::bringup::Options o;
  o.backend = "systemc";
  o.random = 10;
  o.networks = {"lenet5"};
  o.wave_dir = "";
  o.config = preset("vta-1x16x16", {{"dtype.wgt_bits", "4"}, {"buffers.wgt", "128KiB"}});
  auto r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  for (const auto& c : r.cases) {
    if (c.suite == "networks") {
      EXPECT_EQ(c.status, CaseResult::Status::PASS) << c.message;
    }
    if (c.suite == "conformance") {
      EXPECT_EQ(c.status, CaseResult::Status::SKIP) << c.name;
    }
  }
  o.config = preset(VTA_SOURCE_DIR "/tests/configs/dtype-w4a4.yaml");
  r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  for (const auto& c : r.cases) {
    if (c.suite == "corners") {
      EXPECT_EQ(c.status, CaseResult::Status::PASS) << c.name << ": " << c.message;
    }
    if (c.suite == "networks") {
      EXPECT_EQ(c.status, CaseResult::Status::PASS) << c.message;
    }
  }
  o.config = preset("vta-1x16x16", {{"dtype.out_bits", "16"}});
  o.random = 2;
  r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  for (const auto& c : r.cases)
    if (c.suite == "networks") {
      EXPECT_EQ(c.status, CaseResult::Status::SKIP);
      EXPECT_NE(c.message.find("dtype.out_bits 16 != dtype.inp_bits 8"), std::string::npos) << c.message;
    }
}
#endif

#ifdef VTA_WITH_VERILATOR
TEST(Battery, FullOnVerilator) { expect_full_battery_passes("verilator"); }

// alu.concurrent on the RTL (vta_concurrent.sv): every buffer equals the
// golden model's after each program. vta-1x16x16 only: its model with the
// knob is built on demand (the other presets' would cost a build each).
TEST(Battery, ConcurrentAluOnVerilator) {
  vta::test::use_test_rtl_cache();
  vta::bringup::Options o;
  o.backend = "verilator";
  o.config = preset("vta-1x16x16", {{"alu.concurrent", "true"}});
  o.conformance = false;
  o.random = 40;
  o.networks = {};
  o.wave_dir = "";
  const auto r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  EXPECT_GE(r.count(CaseResult::Status::PASS), 80u) << vta::bringup::summary(r);
}

TEST(Battery, FullOnSystemcRtl) { expect_full_battery_passes("systemc-rtl"); }

// The GEMM two stages deeper than the ALU (tests/configs/rtl-deep.yaml: 8
// and 6): the GEMM's write stage must not take an ALU's last steps for its
// own (the shared stage registers). The reverse, an ALU deeper than the GEMM,
// is in test_rtl_on_demand.cpp. Every buffer is compared after each program.
TEST(Battery, UnequalPipelineDepthsOnVerilator) {
  vta::bringup::Options o;
  o.backend = "verilator";
  o.config = vta::load_config(std::string(VTA_SOURCE_DIR) + "/tests/configs/rtl-deep.yaml");
  o.conformance = false;
  o.random = 20;
  o.networks = {};  // no network compiles for its batch 2 with block_in != block_out
  o.wave_dir = "";
  const auto r = vta::bringup::run(o);
  EXPECT_TRUE(r.passed()) << vta::bringup::summary(r);
  EXPECT_GE(r.count(CaseResult::Status::PASS), 60u) << vta::bringup::summary(r);  // corners and random
}

/// The corner program `name` of vta-1x16x16.
vta::ProgramImage corner(const std::string& name) {
  const auto corners = vta::programs::corner_programs(preset("vta-1x16x16"));
  const auto it = std::find_if(corners.begin(), corners.end(), [&](const auto& p) { return p.name == name; });
  EXPECT_NE(it, corners.end()) << name;
  return it == corners.end() ? vta::ProgramImage{} : it->image;
}

// The planted decoder bug turns SHR by -3 into SHR by -4: localised to the
// ALU instruction and an OUT/ACC element, with a VCD window of at most
// kWaveWindowCycles cycles around it.
TEST(Diagnose, PlantedRtlFaultIsLocalisedWithAWaveWindow) {
  EnvGuard g("VTA_RTL_FAULT", "alu-imm");
  const std::string wave = temp_dir("diagnose") + "/shr.vcd";
  const std::string msg =
      vta::bringup::compare_with_golden("systemc-rtl", preset("vta-1x16x16"), corner("alu_shr_negative_imm"), wave);
  EXPECT_HAS(msg, "expected");
  EXPECT_HAS(msg, "actual");
  EXPECT_HAS(msg, "first differing instruction: instruction ");
  EXPECT_HAS(msg, "(ALU SHR");
  EXPECT_HAS(msg, "waveform of cycles [");
  EXPECT_HAS(msg, "(verilator runs instruction ");  // the co-simulated core has no tracing: the same RTL on verilator
  EXPECT_HAS(msg, "in " + wave);
  ASSERT_TRUE(std::filesystem::exists(wave)) << msg;
  std::ifstream in(wave);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_HAS(text.str(), "$enddefinitions");
  EXPECT_FALSE(std::filesystem::exists(wave + ".trace.json"));
  // The window is bounded: count the time stamps.
  size_t stamps = 0;
  std::string line;
  std::istringstream lines(text.str());
  while (std::getline(lines, line)) stamps += !line.empty() && line[0] == '#';
  EXPECT_GT(stamps, 0u);
  EXPECT_LE(stamps, 2 * vta::bringup::kWaveWindowCycles + 2);
}

// Without the fault nothing is written.
TEST(Diagnose, CleanRunsWriteNoWave) {
  const std::string dir = temp_dir("clean");
  EXPECT_EQ(vta::bringup::compare_with_golden("verilator", preset("vta-1x16x16"), corner("alu_shr_negative_imm"),
                                              dir + "/x.vcd"),
            "");
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(Diagnose, PlantedFaultThroughTheCommand) {
  const std::string dir = temp_dir("cli");
  const auto r = vta::test::run_vta(
      "bringup -b verilator --no-conformance --random 0 --networks none --wave-dir " + dir, "VTA_RTL_FAULT=alu-imm");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_HAS(r.out, "FAIL corners/alu_shr_negative_imm");
  EXPECT_HAS(r.out, "waveform of cycles [");
  EXPECT_HAS(r.out, "verilator runs instruction");
  EXPECT_TRUE(std::filesystem::exists(dir + "/corners-alu_shr_negative_imm.vcd")) << r.out;
  EXPECT_HAS(r.out, "bring-up of backend verilator (verilator), design vta-1x16x16");
  EXPECT_HAS(r.out, ": FAIL (");
}
#endif

TEST(Command, BackendIsNamedAndBadInputIsOneLine) {
  const auto ok = vta::test::run_vta("bringup -b golden --random 2 --no-conformance --networks none --wave-dir ''");
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_HAS(ok.out, "vta bringup: backend golden (golden), design vta-1x16x16 (config hash ");
  EXPECT_HAS(ok.out, ": PASS (");
  const auto bad = vta::test::run_vta("bringup -b no-such-backend");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_HAS(bad.out, "vta: error: ");
  EXPECT_HAS(bad.out, "no-such-backend");
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
  const auto bad_set = vta::test::run_vta("bringup -b golden --set gemm.no_such_knob=3");
  EXPECT_EQ(bad_set.code, 2) << bad_set.out;
  EXPECT_HAS(bad_set.out, "no_such_knob");
}

}  // namespace
