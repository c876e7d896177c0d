// Bad options to the estimate fail with one message that names the problem:
// unknown devices and families, a family that contradicts the device, a bad
// technology table; the CLI maps them to exit code 2.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "error_of.h"
#include "run_cli.h"
#include "vta/estimate/estimate.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::estimate;
namespace fs = std::filesystem;

EstimateOptions target(const std::string& device, const std::string& family = "") {
  EstimateOptions o;
  o.device = device;
  o.family = family;
  return o;
}

std::string error_of(const EstimateOptions& o) {
  return vta::test::error_of([&] { estimate(vta::default_config(), o); });
}

TEST(EstimateErrors, UnknownDeviceNamesItAndListsTheKnownOnes) {
  std::string m = error_of(target("xc7z045"));
  EXPECT_NE(m.find("unknown device 'xc7z045'"), std::string::npos) << m;
  for (const char* known : {"xc7z020", "xczu3eg", "xczu7ev", "xcvu9p", "xcu250", "10ax115", "1sg280", "lfe5u-25f",
                            "lfe5u-45f", "lfe5u-85f", "lfe5um-85f"})
    EXPECT_NE(m.find(known), std::string::npos) << m;
}

TEST(EstimateErrors, BadFamily) {
  std::string m = error_of(target("", "virtex5"));
  EXPECT_EQ(m, "unknown FPGA family 'virtex5' (known: xc7, xcup, arria10, stratix10, ecp5)");
  // A part name is not a family.
  EXPECT_EQ(error_of(target("", "lfe5u-85f")),
            "unknown FPGA family 'lfe5u-85f' (known: xc7, xcup, arria10, stratix10, ecp5)");
}

TEST(EstimateErrors, FamilyContradictsDevice) {
  EXPECT_EQ(error_of(target("xc7z020", "xcup")), "device 'xc7z020' is of family xc7, not xcup");
  EXPECT_EQ(error_of(target("lfe5u-85f", "xc7")), "device 'lfe5u-85f' is of family ecp5, not xc7");
}

TEST(EstimateErrors, BadTechTable) {
  try {
    tech_from_json(nlohmann::json{{"pj_per_flop", 1.0}});
    FAIL() << "no error";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'pj_per_flop'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tech_from_json(nlohmann::json{{"pj_per_mac", "cheap"}}), vta::Error);
}

// A zero reference size made every energy nan, a negative energy was summed.
TEST(EstimateErrors, TechTableValuesOutOfRange) {
  for (const auto& [key, value, needle] : std::vector<std::tuple<std::string, double, std::string>>{
           {"sram_ref_bytes", 0.0, "'sram_ref_bytes' = 0.0 must be a positive number of bytes"},
           {"pj_per_mac", -1.0, "'pj_per_mac' = -1.0 must be a finite number >= 0"},
           {"pj_per_dram_byte", -0.5, "must be a finite number >= 0"}}) {
    try {
      tech_from_json(nlohmann::json{{key, value}});
      ADD_FAILURE() << key << ": no error";
    } catch (const vta::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(tech_from_json(nlohmann::json{{"static_w", -1.0}, {"pj_per_mac", 0.0}}));
}

TEST(EstimateErrors, CliExitsTwoWithOneLine) {
  for (const char* args :
       {"estimate --device nosuchpart", "estimate --family nosuchfamily", "estimate --device xcu250 --family xc7"}) {
    auto r = vta::test::run_vta(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vta: error: ", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

TEST(EstimateErrors, CliActivityWithUnknownCount) {
  fs::path dir = fs::path(VTA_BINARY_DIR) / "test-tmp" / "estimate-errors";
  fs::create_directories(dir);
  std::ofstream(dir / "activity.json") << R"({"macs": 1000, "flops": 5})";
  auto r = vta::test::run_vta("estimate --activity " + (dir / "activity.json").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown activity count 'flops'"), std::string::npos) << r.out;
}

}  // namespace
