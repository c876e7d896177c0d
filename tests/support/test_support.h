#pragma once
// Helpers shared by the test suites: build programs in C++ (instructions and
// uops through the ISA layout), install them in a backend, read results.
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"
#include "vta/model/builders.h"
#include "vta/model/image.h"

namespace vta::test {

/// A preset by name ("vta-1x16x16"), loaded from the source tree's configs/.
Config preset(const std::string& name, const std::vector<Override>& overrides = {});
/// gtest's name of a (network, preset) test parameter: "resnet18_vta_1x16x16".
struct NetPresetName {
  template <typename P>
  std::string operator()(const P& p) const {
    std::string n = std::get<0>(p.param) + "_" + std::get<1>(p.param);
    for (auto& ch : n)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
  }
};

/// The presets every ISA/golden test iterates over.
std::vector<std::string> preset_names();

/// Instruction builders (vta/model/builders.h) under the names the suites use.
template <typename... A>
isa::Insn make_load(A... a) {
  return build::load(a...);
}
template <typename... A>
isa::Insn make_store(A... a) {
  return build::store(a...);
}
template <typename... A>
isa::Insn make_gemm(A... a) {
  return build::gemm(a...);
}
template <typename... A>
isa::Insn make_alu(A... a) {
  return build::alu(a...);
}
inline isa::Insn make_finish() { return build::finish(); }
template <typename... A>
isa::Insn make_uop(A... a) {
  return build::uop(a...);
}
using build::random_bytes;
using build::with_deps;

/// A program under construction: DRAM buffers and instructions.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(Backend& b) : backend_(b), layout_(b.config()) {}
  /// Allocates `count` elements of memory `mem` filled with `bytes` (zero-padded);
  /// returns the element index of the first one (for dram_base).
  uint32_t buffer(isa::MemId mem, uint32_t count, const std::vector<uint8_t>& bytes = {});
  /// Allocates and fills a UOP buffer; returns its dram_base.
  uint32_t uops(const std::vector<isa::Insn>& uops);
  void add(const isa::Insn& insn) { insns_.push_back(insn); }
  /// Allocates and fills the buffers of `image` (laid out for this backend's
  /// next allocation, build::next_alloc) and appends its instructions.
  void add_image(const ProgramImage& image);
  Backend& backend() { return backend_; }
  /// Writes the instructions to DRAM and returns the launch, without running.
  Launch install();
  /// install() and run (throws vta::Error as Backend::run() does).
  void run();
  /// Reads `count` elements of memory `mem` from DRAM element index `at`.
  std::vector<uint8_t> read(isa::MemId mem, uint32_t at, uint32_t count) const;
  const std::vector<isa::Insn>& insns() const { return insns_; }

 private:
  Backend& backend_;
  isa::Layout layout_;
  std::vector<isa::Insn> insns_;
};

/// Builds a program on `b` with `build(ProgramBuilder&)` and runs it;
/// returns the vta::Error message, or "" when it ran.
template <typename F>
std::string run_error(Backend& b, F&& build) {
  ProgramBuilder p(b);
  build(p);
  try {
    p.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// The backend the shared suites run on: $VTA_TEST_BACKEND, default "golden".
/// CMake registers those suites once per backend built (see tests/CMakeLists.txt).
std::string test_backend();

/// RTL models that a test builds on demand (a config no built-in model fits,
/// e.g. alu.concurrent: sim/rtl/README.md, "Models on demand") go to the
/// build tree's test-tmp/rtl-cache-tests, unless VTA_RTL_CACHE names a
/// folder: built once for every test process, never in the user's cache.
void use_test_rtl_cache();

/// The conformance folder: VTA_CONFORMANCE_DIR, else the vectors shipped in
/// tests/data/conformance; "" when neither exists.
std::string conformance_dir();

}  // namespace vta::test
