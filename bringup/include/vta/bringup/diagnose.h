#pragma once
// First-mismatch diagnosis: one program on a backend under test against the
// golden model, each on a fresh backend of the same config. The first
// differing DRAM or on-chip element; the first differing instruction, found
// by binary search over prefixes of the golden execution order (tokens
// cleared, so that a prefix runs in that order on any backend); and, on the
// RTL backends (verilator, systemc-rtl), a VCD waveform of the Verilator
// model over a bounded window of cycles around that instruction.
// Tests: Diagnose.* in tests/test_bringup.cpp.
#include <cstdint>
#include <string>

#include "vta/isa/config.h"
#include "vta/model/image.h"

namespace vta::bringup {

/// Most cycles a mismatch waveform holds (a VCD of the core grows by about
/// 10 KiB a cycle).
constexpr uint64_t kWaveWindowCycles = 2000;

/// "" when `image` has no data race; else the race checker's message (both
/// instructions, the buffer, the element). Checked on a fresh golden model's
/// DRAM without computing tensors (model/race.h); other errors the program
/// raises are left to the comparison, where every backend must raise them
/// alike.
std::string race_in(const Config& c, ProgramImage image);

/// "" when `image` gives the same DRAM buffers, on-chip buffers and errors on
/// `backend` as on the golden model; else the first differing buffer, index,
/// expected and actual values, then the first differing instruction, then
/// (RTL backends, `wave_file` given) where the VCD window was written.
std::string compare_with_golden(const std::string& backend, const Config& c, const ProgramImage& image,
                                const std::string& wave_file = "");

}  // namespace vta::bringup
