#include "vta/sweeps/layer_energy.h"

#include <fmt/format.h>

#include "vta/isa/fields.h"

namespace vta::sweeps {

estimate::Activity activity_of(const Stats& s) {
  auto rd = [&](isa::MemId m) { return s.get(fmt::format("sram.read_bytes.{}", isa::mem_name(m))); };
  auto wr = [&](isa::MemId m) { return s.get(fmt::format("sram.write_bytes.{}", isa::mem_name(m))); };
  estimate::Activity a;
  a.cycles = s.get("cycles.total");
  a.macs = s.get("gemm.macs");
  a.alu_ops = s.get("alu.lane_ops");
  a.uop_read_bytes = rd(isa::MemId::UOP), a.uop_write_bytes = wr(isa::MemId::UOP);
  a.inp_read_bytes = rd(isa::MemId::INP), a.inp_write_bytes = wr(isa::MemId::INP);
  a.wgt_read_bytes = rd(isa::MemId::WGT), a.wgt_write_bytes = wr(isa::MemId::WGT);
  a.acc_read_bytes = rd(isa::MemId::ACC), a.acc_write_bytes = wr(isa::MemId::ACC);
  a.out_read_bytes = rd(isa::MemId::OUT), a.out_write_bytes = wr(isa::MemId::OUT);
  a.dram_read_bytes = s.get("dram.read_bytes");
  a.dram_write_bytes = s.get("dram.write_bytes.OUT");
  return a;
}

void add_energy(compiler::Report& r, const compiler::NetworkResult& res, const Config& c,
                const estimate::TechTable& tech, double static_w) {
  double total = 0;
  for (size_t i = 0; i < r.rows.size() && i < res.layers.size(); ++i) {
    const Stats& s = res.layers[i].stats;
    if (!s.has("gemm.macs")) continue;  // a host layer
    const estimate::Energy e = estimate::energy(activity_of(s), tech, c, std::max(static_w, 0.0));
    r.rows[i].energy_uj = e.total_nj * 1e-3;
    total += r.rows[i].energy_uj;
  }
  r.total.energy_uj = total;
  r.energy_basis =
      fmt::format("{}{}", tech.source, static_w > 0 ? fmt::format(", static {} W", static_w) : ", dynamic only");
}

}  // namespace vta::sweeps
