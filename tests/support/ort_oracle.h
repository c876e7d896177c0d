#pragma once
// The outside oracle: ONNX Runtime 1.17 (onnxruntime-node, installed by
// scripts/setup.sh) run by tests/onnx_oracle/run_ort.js on .npy / .pb
// inputs. Tests that use it skip when node or the package is missing,
// except under CI, where that fails (REQUIRE_ORACLE()). Where ONNX Runtime's
// 8-bit convolutions are not exact on the machine's CPU, the tests that
// compare convolutions with it skip, saying why (REQUIRE_EXACT_INT8_ORACLE()).
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

#include <unistd.h>

#include "onnx_builder.h"
#include "vta/compiler/frontend/npy.h"
#include "vta/isa/shell_quote.h"

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
      fmt::format("node {} {} {} {} {} 2>{}", shell_quote(VTA_SOURCE_DIR "/tests/onnx_oracle/run_ort.js"),
                  shell_quote(ort_modules().string()), shell_quote(model.string()), shell_quote(out.string()), inputs,
                  shell_quote((work / "ort.err").string()));
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
  return run_ort_files(model, shell_quote(input_name + "=" + (dir / "input.npy").string()), dir);
}

/// Empty where ONNX Runtime's optimized 8-bit convolution is exact on this
/// machine's CPU; otherwise why not. Its MLAS kernels for x86 CPUs without
/// VNNI (AVX2 only) multiply 8-bit operands with VPMADDUBSW, which
/// saturates each pair of products to 16 bits (microsoft/onnxruntime#6004,
/// #24220; Intel's "Nuances of int8 computations"), so a QLinearConv (or
/// the QDQ convolution ORT fuses into one) whose pairs pass 32767 differs
/// from the integer result; VNNI CPUs (VPDPBUSD) accumulate in 32 bits. The
/// probe: 64 input channels of 255 against weights of -128, a sum of
/// -2 088 960 that maps to 72; pairs saturated at -32768 give 136. Run once
/// per test process.
inline std::string ort_int8_inexact() {
  static const std::string why = [] {
    namespace fs = std::filesystem;
    using onnx::TensorProto;
    const fs::path dir = fs::path(::testing::TempDir()) / fmt::format("ort_int8_probe_{}", ::getpid());
    fs::create_directories(dir);
    OnnxBuilder b(13);
    b.input("x", TensorProto::UINT8, {1, 64, 1, 1});
    b.output("y", TensorProto::UINT8, {1, 1, 1, 1});
    b.scalar("xs", 1.0f), b.ints("xz", TensorProto::UINT8, {}, {0});
    b.ints("w", TensorProto::INT8, {1, 64, 1, 1}, std::vector<int64_t>(64, -128));
    b.scalar("ws", 1.0f), b.ints("wz", TensorProto::INT8, {}, {0});
    b.scalar("ys", 16384.0f), b.ints("yz", TensorProto::UINT8, {}, {200});
    b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"});
    {
      std::ofstream f(dir / "probe.onnx", std::ios::binary);
      f << b.bytes();
    }
    compiler::NpyArray x;
    x.type = compiler::NpyType::Uint8, x.dims = {1, 64, 1, 1}, x.values.assign(64, 255);
    std::string out;
    try {
      const int64_t y = run_ort(dir / "probe.onnx", "x", x).values.at(0);
      if (y != 72)
        out = fmt::format(
            "ONNX Runtime's 8-bit convolution is not exact on this CPU: a QLinearConv of 64 x 255 x -128 gives {} "
            "where the integer result is 72 ({}: MLAS's kernels for CPUs without VNNI saturate pairs of products "
            "to 16 bits)",
            y, y == 136 ? "pairs saturated" : "another error");
    } catch (const std::exception& e) {
      out = std::string("the ONNX Runtime probe failed: ") + e.what();
    }
    fs::remove_all(dir);
    return out;
  }();
  return why;
}

/// REQUIRE_ORACLE(), and a skip (under CI too: the CPU, not the setup, is
/// what is missing) where ort_int8_inexact() says why ONNX Runtime cannot be
/// an exact oracle for 8-bit convolutions on this machine.
#define REQUIRE_EXACT_INT8_ORACLE()                                                         \
  do {                                                                                      \
    REQUIRE_ORACLE();                                                                       \
    const std::string inexact = vta::test::ort_int8_inexact();                              \
    if (!inexact.empty()) GTEST_SKIP() << "no exact ONNX Runtime oracle here: " << inexact; \
  } while (0)

}  // namespace vta::test
