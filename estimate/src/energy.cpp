// Energy from activity counts (see energy.h).
//
// Default technology table: the 45 nm figures of M. Horowitz, "Computing's
// energy problem (and what we can do about it)", ISSCC 2014: 8-bit multiply
// 0.2 pJ + 32-bit add 0.1 pJ (one MAC 0.3 pJ), 32-bit add 0.1 pJ (one ALU
// operation; a multiply costs 3.1 pJ, an average over ALU opcodes is taken as
// 0.5 pJ), an 8 KiB SRAM 64-bit read 10 pJ (1.25 pJ per byte; 32 KiB 20 pJ
// and 1 MiB 100 pJ, which the sqrt(size) scaling reproduces) and DRAM
// 1.3-2.6 nJ per 64-bit access (about 20 pJ per byte taken as 160 pJ/B for
// the device and its I/O). An FPGA spends several times an ASIC's energy on
// the same operation (programmable routing, LUT logic); the table does not
// scale for that: supply a table for your part (tech_from_json) when the
// absolute figure matters; the default is meant for comparing designs.
// Other element widths scale the MAC and ALU figures (width_scale(), from
// the same paper's 8- and 32-bit multiply and add figures).
#include <cmath>

#include "vta/estimate/energy.h"
#include "vta/isa/error.h"

namespace vta::estimate {

TechTable default_tech() {
  TechTable t;
  t.source = "Horowitz ISSCC 2014, 45 nm (ASIC; FPGA energy is higher)";
  t.pj_per_mac = 0.3;
  t.pj_per_alu_op = 0.5;
  t.pj_per_sram_byte = 1.25;
  t.sram_ref_bytes = 8192;
  t.pj_per_dram_byte = 160;
  t.static_w = -1;
  return t;
}

TechTable tech_from_json(const nlohmann::json& j, TechTable base) {
  if (!j.is_object()) fail("technology table: expected a JSON object of numbers");
  for (const auto& [key, value] : j.items()) {
    if (key == "source") {
      if (!value.is_string()) fail("technology table: 'source' must be a string");
      base.source = value.get<std::string>();
      continue;
    }
    double* slot = key == "pj_per_mac"         ? &base.pj_per_mac
                   : key == "pj_per_alu_op"    ? &base.pj_per_alu_op
                   : key == "pj_per_sram_byte" ? &base.pj_per_sram_byte
                   : key == "sram_ref_bytes"   ? &base.sram_ref_bytes
                   : key == "pj_per_dram_byte" ? &base.pj_per_dram_byte
                   : key == "static_w"         ? &base.static_w
                                               : nullptr;
    if (!slot)
      fail(
          "technology table: unknown key '{}' (known: source, pj_per_mac, pj_per_alu_op, pj_per_sram_byte, "
          "sram_ref_bytes, pj_per_dram_byte, static_w)",
          key);
    if (!value.is_number()) fail("technology table: '{}' must be a number", key);
    const double v = value.get<double>();
    // An energy is not negative and a reference size is positive; static_w
    // < 0 means "the device's own figure" (the default).
    if (!std::isfinite(v) || (key == "sram_ref_bytes" ? v <= 0 : key != "static_w" && v < 0))
      fail("technology table: '{}' = {} must be {}", key, value.dump(),
           key == "sram_ref_bytes" ? "a positive number of bytes" : "a finite number >= 0");
    *slot = v;
  }
  return base;
}

WidthScale width_scale(const Config& c) {
  const double inp = static_cast<double>(c.dtype.inp_bits), wgt = static_cast<double>(c.dtype.wgt_bits);
  const double acc = static_cast<double>(c.dtype.acc_bits);
  return {2.0 / 3.0 * (inp * wgt / 64.0) + 1.0 / 3.0 * (acc / 32.0), acc / 32.0};
}

std::array<int64_t, 5> buffer_bytes(const Config& c) {
  return {c.buffers.uop, c.buffers.inp, c.buffers.wgt, c.buffers.acc,
          c.buffers.acc / c.dtype.acc_bits * c.dtype.out_bits};
}

Energy energy(const Activity& a, const TechTable& t, const Config& c, double static_w) {
  const std::array<int64_t, 5> sizes = buffer_bytes(c);
  const WidthScale scale = width_scale(c);
  auto pj_per_byte = [&](int64_t size) {
    return t.pj_per_sram_byte * std::sqrt(static_cast<double>(size) / t.sram_ref_bytes);
  };
  const uint64_t moved[5] = {a.uop_read_bytes + a.uop_write_bytes, a.inp_read_bytes + a.inp_write_bytes,
                             a.wgt_read_bytes + a.wgt_write_bytes, a.acc_read_bytes + a.acc_write_bytes,
                             a.out_read_bytes + a.out_write_bytes};
  Energy e;
  e.mac_nj = static_cast<double>(a.macs) * t.pj_per_mac * scale.mac * 1e-3;
  e.alu_nj = static_cast<double>(a.alu_ops) * t.pj_per_alu_op * scale.alu * 1e-3;
  for (size_t i = 0; i < 5; ++i) e.sram_nj += static_cast<double>(moved[i]) * pj_per_byte(sizes[i]) * 1e-3;
  e.dram_nj = static_cast<double>(a.dram_read_bytes + a.dram_write_bytes) * t.pj_per_dram_byte * 1e-3;
  // W x s = J; cycles / MHz = microseconds; x 1e3 to nJ.
  e.static_nj = static_w * static_cast<double>(a.cycles) / c.clock.mhz * 1e3;
  e.total_nj = e.mac_nj + e.alu_nj + e.sram_nj + e.dram_nj + e.static_nj;
  return e;
}

}  // namespace vta::estimate
