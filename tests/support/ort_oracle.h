#pragma once
// The outside oracle: ONNX Runtime 1.17 (onnxruntime-node, installed by
// scripts/setup.sh) run by tests/onnx_oracle/run_ort.js on .npy / .pb
// inputs. Tests that use it skip when node or the package is missing,
// except under CI, where that fails (REQUIRE_ORACLE()).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vta/compiler/frontend/npy.h"

namespace vta::test {

inline std::filesystem::path ort_modules() {
  if (const char* e = std::getenv("VTA_ORT_MODULES")) return e;
  return std::filesystem::path(VTA_SOURCE_DIR) / "build" / "onnxruntime" / "node_modules";
}

/// The backend an oracle test runs the compiled network on: VTA_TEST_BACKEND
/// (CMake's per-backend copies set it), golden without it.
inline std::string oracle_backend() {
  const char* b = std::getenv("VTA_TEST_BACKEND");
  return b ? b : "golden";
}

/// Empty when the oracle can run; otherwise why not.
inline std::string oracle_missing() {
  if (std::system("command -v node >/dev/null 2>&1") != 0) return "node is not installed";
  if (!std::filesystem::exists(ort_modules() / "onnxruntime-node" / "package.json"))
    return "onnxruntime-node is not installed under " + ort_modules().string() + " (run scripts/setup.sh)";
  return "";
}

#define REQUIRE_ORACLE()                                                  \
  do {                                                                    \
    const std::string why = vta::test::oracle_missing();                  \
    if (!why.empty()) {                                                   \
      if (std::getenv("CI")) FAIL() << "no ONNX Runtime oracle: " << why; \
      GTEST_SKIP() << "no ONNX Runtime oracle: " << why;                  \
    }                                                                     \
  } while (0)

struct Diff {
  size_t elements = 0, differing = 0;
  int64_t largest = 0;
};

inline Diff compare(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  Diff d;
  d.elements = a.size();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i]) {
      ++d.differing;
      d.largest = std::max(d.largest, std::abs(a[i] - b[i]));
    }
  return d;
}

/// Runs `model` in ONNX Runtime on NAME=FILE inputs (each quoted, space
/// separated); `work` gets its output (and error) files. Returns its single
/// output.
inline compiler::NpyArray run_ort_files(const std::filesystem::path& model, const std::string& inputs,
                                        const std::filesystem::path& work) {
  const std::filesystem::path out = work / "ort";
  std::filesystem::remove_all(out);
  const std::string cmd =
      fmt::format("node '{}' '{}' '{}' '{}' {} 2>'{}'", VTA_SOURCE_DIR "/tests/onnx_oracle/run_ort.js",
                  ort_modules().string(), model.string(), out.string(), inputs, (work / "ort.err").string());
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream e(work / "ort.err");
    std::stringstream ss;
    ss << e.rdbuf();
    throw std::runtime_error("ONNX Runtime: " + ss.str());
  }
  for (const auto& f : std::filesystem::directory_iterator(out)) return compiler::read_npy(f.path().string());
  throw std::runtime_error("ONNX Runtime wrote no output");
}

/// The same for one input, written as input.npy beside the model.
inline compiler::NpyArray run_ort(const std::filesystem::path& model, const std::string& input_name,
                                  const compiler::NpyArray& input) {
  const std::filesystem::path dir = model.parent_path();
  compiler::write_npy((dir / "input.npy").string(), input);
  return run_ort_files(model, fmt::format("'{}={}'", input_name, (dir / "input.npy").string()), dir);
}

}  // namespace vta::test
