#pragma once
// Energy of one inference (or any run) from activity counts, with the
// per-operation energies in a replaceable technology table.
//
// The counts are a plain struct so that any producer (the cycle models'
// stats, the compiler's tile cost model, a hand calculation) can fill it
// without this library depending on them.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace vta::estimate {

/// What a run did. SRAM traffic is in bytes moved through the buffer's ports.
struct Activity {
  uint64_t cycles = 0;   // core clock cycles of the run (for the static term)
  uint64_t macs = 0;     // int8 x int8 multiply-accumulates of GEMM
  uint64_t alu_ops = 0;  // 32-bit ALU lane operations
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

/// Energy of `a` on a design whose buffers hold `buffer_bytes` each
/// ({uop, inp, wgt, acc, out}): an SRAM byte costs pj_per_sram_byte scaled
/// by sqrt(buffer size / sram_ref_bytes) (longer word and bit lines), the
/// static term is static_w x cycles / clock_mhz.
Energy energy(const Activity& a, const TechTable& t, const int64_t (&buffer_bytes)[5], double clock_mhz,
              double static_w);

}  // namespace vta::estimate
