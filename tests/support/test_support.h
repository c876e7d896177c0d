#pragma once
// Helpers shared by the test suites: build programs in C++ (instructions and
// uops through the ISA layout), install them in a backend, read results.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"

namespace vta::test {

/// A preset by name ("vta-1x16x16"), loaded from the source tree's configs/.
Config preset(const std::string& name, const std::vector<Override>& overrides = {});
/// The presets every ISA/golden test iterates over.
std::vector<std::string> preset_names();

/// Builders for instructions; unlisted fields are zero.
isa::Insn make_load(isa::MemId mem, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
                    uint32_t yp0 = 0, uint32_t yp1 = 0, uint32_t xp0 = 0, uint32_t xp1 = 0);
isa::Insn make_store(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride);
isa::Insn make_gemm(bool reset, uint32_t uop_bgn, uint32_t uop_end, uint32_t iter_out, uint32_t iter_in,
                    uint32_t dst_out = 0, uint32_t dst_in = 0, uint32_t src_out = 0, uint32_t src_in = 0,
                    uint32_t wgt_out = 0, uint32_t wgt_in = 0);
isa::Insn make_alu(isa::AluOp op, bool use_imm, int32_t imm, uint32_t uop_bgn, uint32_t uop_end, uint32_t iter_out,
                   uint32_t iter_in, uint32_t dst_out = 0, uint32_t dst_in = 0, uint32_t src_out = 0,
                   uint32_t src_in = 0);
isa::Insn make_finish();
isa::Insn make_uop(uint32_t dst, uint32_t src, uint32_t wgt);
/// Sets dependency flags on an instruction and returns it.
isa::Insn with_deps(isa::Insn i, bool pop_prev, bool pop_next, bool push_prev, bool push_next);

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

/// The backend the shared suites run on: $VTA_TEST_BACKEND, default "golden".
/// CMake registers those suites once per backend built (see tests/CMakeLists.txt).
std::string test_backend();

/// Deterministic pseudo-random bytes.
std::vector<uint8_t> random_bytes(size_t n, uint32_t seed);
/// The conformance folder from VTA_CONFORMANCE_DIR, or "" when unset.
std::string conformance_dir();

}  // namespace vta::test
