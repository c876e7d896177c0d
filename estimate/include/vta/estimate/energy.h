#pragma once
// Energy of one inference (or any run) from activity counts, with the
// per-operation energies in a replaceable technology table.
//
// The counts are a plain struct so that any producer (the cycle models'
// stats, the compiler's tile cost model, a hand calculation) can fill it
// without this library depending on them.
#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "vta/isa/config.h"

namespace vta::estimate {

/// What a run did. SRAM traffic is in bytes moved through the buffer's ports.
struct Activity {
  uint64_t cycles = 0;   // core clock cycles of the run (for the static term)
  uint64_t macs = 0;     // multiply-accumulates of GEMM (at the config's widths)
  uint64_t alu_ops = 0;  // ALU lane operations (at the accumulator's width)
  uint64_t uop_read_bytes = 0, uop_write_bytes = 0;
  uint64_t inp_read_bytes = 0, inp_write_bytes = 0;
  uint64_t wgt_read_bytes = 0, wgt_write_bytes = 0;
  uint64_t acc_read_bytes = 0, acc_write_bytes = 0;
  uint64_t out_read_bytes = 0, out_write_bytes = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
};

/// Energy per operation. Defaults: default_tech() (sources in energy.cpp and
/// estimate/README.md); a user replaces any entry through tech_from_json.
struct TechTable {
  std::string source;           // where the numbers come from, printed with the result
  double pj_per_mac = 0;        // one int8 multiply + 32-bit accumulate
  double pj_per_alu_op = 0;     // one 32-bit ALU lane operation
  double pj_per_sram_byte = 0;  // one byte read or written in an 8 KiB SRAM array
  double sram_ref_bytes = 0;    // the array size of pj_per_sram_byte
  double pj_per_dram_byte = 0;  // one byte of DRAM traffic (device + I/O)
  double static_w = -1;         // static power in W; < 0: the device's (or 0 without one)
};

/// Energy of a run, by kind, in nanojoules.
struct Energy {
  double mac_nj = 0, alu_nj = 0, sram_nj = 0, dram_nj = 0, static_nj = 0;
  double total_nj = 0;
};

/// The built-in table (45 nm ASIC figures scaled to FPGA fabric; see energy.cpp).
TechTable default_tech();
/// `base` with the keys present in `j` replaced (keys as TechTable's members);
/// an unknown key or a non-number is a vta::Error naming it.
TechTable tech_from_json(const nlohmann::json& j, TechTable base = default_tech());

/// The energy of one MAC and of one ALU lane operation at `c`'s element
/// widths, relative to the table's (an int8 x int8 multiply with a 32-bit
/// add; a 32-bit operation). Horowitz's figures: a multiply's energy grows
/// with the product of its operand widths (8 x 8 bits 0.2 pJ, 32 x 32 bits
/// 3.1 pJ: 15.5x for 16x the bits), an add's with its width (8 bits 0.03 pJ,
/// 32 bits 0.1 pJ); so mac = (2/3) (inp x wgt / 64) + (1/3) (acc / 32), the
/// table's MAC being 0.2 + 0.1 pJ, and alu = acc / 32.
struct WidthScale {
  double mac = 1, alu = 1;
};
WidthScale width_scale(const Config& c);

/// Bytes of the five buffers {uop, inp, wgt, acc, out}: OUT has ACC's depth
/// at dtype.out_bits.
std::array<int64_t, 5> buffer_bytes(const Config& c);

/// Energy of `a` on design `c`: a MAC and an ALU operation at the table's
/// figure times width_scale(c), an SRAM byte pj_per_sram_byte scaled by
/// sqrt(buffer size / sram_ref_bytes) (longer word and bit lines), the static
/// term static_w x cycles / clock.mhz.
Energy energy(const Activity& a, const TechTable& t, const Config& c, double static_w);

}  // namespace vta::estimate
