#pragma once
// The one random program generator, used by the golden tests
// (tests/test_golden_random.cpp), the RTL tests, the bring-up battery
// (bringup/) and fuzz targets. Seeded and deterministic: the same config,
// seed and options give the same image on every machine.
//
// A program is tiles of load -> compute -> store phases chained by
// dependency tokens, so that every legal schedule computes what program order
// computes (race-free by construction). It covers every instruction kind and
// the field corners: LOAD of UOP (one or two rows), INP, WGT, ACC and
// ACC_8BIT with random shapes, strides and pads (up to 15), token-only loads
// and stores (x_size 0), GEMM with reset and two-level loops, every ALU op
// enabled by the config with immediate (extremes, SHR edge amounts) and
// vector operands, strided stores, FINISH popping the last store token.
// Indices stay in small windows at the bottom, middle or top of each buffer so
// that instructions interact.
#include <cstdint>

#include "vta/isa/config.h"
#include "vta/model/dram.h"
#include "vta/model/image.h"

namespace vta {

struct RandomProgramOptions {
  /// Most tiles (load -> compute -> store phases); a program has 1..size.
  uint32_t size = 3;
  /// VALID: every field in range, the program runs. OUT_OF_RANGE: one
  /// instruction also gets a field past its buffer (an SRAM index, a uop
  /// range, a DRAM address), so that the run must fail with a clear error
  /// naming that instruction (the error suites).
  enum class Fields { VALID, OUT_OF_RANGE } fields = Fields::VALID;
  /// Leaves out the tokens between tiles (ImageBuilder::unchain_tiles), so
  /// that instructions of neighbouring tiles race: for the race checker's
  /// tests only. Every other program is race-free.
  bool racy = false;
  /// Where the backend's next DRAM allocation lands (build::next_alloc), for
  /// a program installed after another on the same backend.
  uint64_t first_addr = Dram::kBase;
};

/// A seeded random program for config `c`, to be installed with vta::install.
ProgramImage random_program(const Config& c, uint32_t seed, const RandomProgramOptions& options = {});

}  // namespace vta
