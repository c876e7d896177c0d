// The independent conformance vectors (tests/data/conformance) must pass
// bit-exactly. The folder comes from VTA_CONFORMANCE_DIR (set by .ci/run and
// scripts/test.sh); without it every test here reports itself skipped.
#include <gtest/gtest.h>

#include <cstdlib>

#include <filesystem>

#include "test_support.h"
#include "vta/model/image.h"

namespace {

const char* kVectors[] = {"16x16",        "16x16_relu",        "32x32", "32x32_relu",
                          "lenet5_conv1", "lenet5_conv1_relu", "relu",  "smm"};

class Conformance : public ::testing::TestWithParam<std::tuple<std::string, const char*>> {};

TEST_P(Conformance, BitExact) {
  const std::string root = vta::test::conformance_dir();
  if (root.empty()) {
    if (std::getenv("CI")) FAIL() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
    GTEST_SKIP() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
  }
  const auto& [backend_name, vector] = GetParam();
  const std::string dir = root + "/" + vector;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << " is missing";
  vta::Config cfg = vta::test::preset("vta-1x16x16");
  vta::ProgramImage image = vta::read_conformance_dir(dir);
  auto backend = vta::make_backend(backend_name, cfg);
  vta::Launch launch = vta::install(image, *backend);
  backend->run(launch);
  ASSERT_FALSE(image.expect.empty());
  ASSERT_GT(image.expect[0].bytes.size(), 0u);
  auto mismatches = vta::check_expectations(image, *backend);
  for (const auto& m : mismatches)
    ADD_FAILURE() << m.what << ": " << m.total_diffs << " bytes differ, first at " << m.offset << " expected "
                  << m.expected << " got " << m.actual;
  // The expected output is not trivially the initial content of the output area.
  const auto* out = image.buffer("out");
  ASSERT_NE(out, nullptr);
  if (image.expect[0].where == vta::Expectation::Where::DRAM) {
    EXPECT_NE(
        std::vector<uint8_t>(out->init.begin(), out->init.begin() + static_cast<long>(image.expect[0].bytes.size())),
        image.expect[0].bytes)
        << "vector " << vector << " would pass without running";
  }
}

// Every vector also runs instruction by instruction through the layout: the
// disassembly of the program reassembles to the same bytes.
TEST(ConformanceText, DisassemblyReassembles) {
  const std::string root = vta::test::conformance_dir();
  if (root.empty()) {
    if (std::getenv("CI")) FAIL() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
    GTEST_SKIP() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
  }
  vta::Config cfg = vta::test::preset("vta-1x16x16");
  vta::isa::Layout layout(cfg);
  for (const char* v : kVectors) {
    vta::ProgramImage image = vta::read_conformance_dir(root + "/" + v);
    for (size_t i = 0; i < image.insns.size(); ++i) {
      auto insn = layout.decode(image.insns[i], static_cast<int64_t>(i));
      EXPECT_EQ(layout.encode(layout.assemble(layout.disasm(insn))), image.insns[i]) << v << " instruction " << i;
    }
  }
}

std::vector<std::string> all_backends() {
  std::vector<std::string> names;
  for (const auto& [n, d] : vta::backends()) names.push_back(n);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Vectors, Conformance,
                         ::testing::Combine(::testing::ValuesIn(all_backends()), ::testing::ValuesIn(kVectors)),
                         [](const auto& param_info) {
                           std::string n = std::get<0>(param_info.param) + "_" + std::get<1>(param_info.param);
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
