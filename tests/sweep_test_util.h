#pragma once
// Helpers of the sweep suites: spec files in a per-test temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace vta::test {

inline std::filesystem::path sweep_dir(const std::string& name) {
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::path(VTA_BINARY_DIR) / "test-tmp" / "sweep" /
             (std::string(t->test_suite_name()) + "." + t->name()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_spec(const std::filesystem::path& dir, const std::string& file, const std::string& text) {
  std::ofstream(dir / file) << text;
  return (dir / file).string();
}

}  // namespace vta::test
