// The estimate as sweep columns, JSON and terminal text.
#include <algorithm>

#include <fmt/format.h>

#include "vta/estimate/estimate.h"

namespace vta::estimate {

namespace {

nlohmann::ordered_json resources_json(const Resources& r, Family f) {
  nlohmann::ordered_json j;
  if (is_xilinx(f)) {
    j["lut"] = r.lut;
    j["ff"] = r.ff;
    j["dsp"] = r.dsp;
    j["bram36"] = r.bram36;
    j["uram"] = r.uram;
  } else if (is_lattice(f)) {
    j["lut4"] = r.lut;
    j["ff"] = r.ff;
    j["dsp"] = r.dsp;
    j["ebr"] = r.ebr;
  } else {
    j["alm"] = r.alm;
    j["ff"] = r.ff;
    j["dsp"] = r.dsp;
    j["m20k"] = r.m20k;
  }
  return j;
}

}  // namespace

std::vector<std::pair<std::string, double>> columns(const Estimate& e) {
  const Resources& t = e.total;
  const Resources& u = e.utilization;
  std::vector<std::pair<std::string, double>> c = {
      {"lut", t.lut},
      {"ff", t.ff},
      {"dsp", t.dsp},
      {"bram36", t.bram36},
      {"uram", t.uram},
      {"alm", t.alm},
      {"m20k", t.m20k},
      {"ebr", t.ebr},
      {"lutram", e.lutram},
      {"fmax_mhz", e.fmax.mhz},
      {"fmax_low_mhz", e.fmax.low_mhz},
      {"fmax_high_mhz", e.fmax.high_mhz},
      {"fmax_rtl_mhz", e.fmax.rtl_mhz},
      {"clock_ok", e.clock_ok ? 1.0 : 0.0},
      {"fits", e.fits ? 1.0 : 0.0},
      {"util_lut", u.lut},
      {"util_ff", u.ff},
      {"util_dsp", u.dsp},
      {"util_bram36", u.bram36},
      {"util_uram", u.uram},
      {"util_alm", u.alm},
      {"util_m20k", u.m20k},
      {"util_ebr", u.ebr},
      {"max_util", max_of(u)},
  };
  if (e.energy) {
    const Energy& en = *e.energy;
    c.insert(c.end(), {{"energy_nj", en.total_nj},
                       {"energy_mac_nj", en.mac_nj},
                       {"energy_alu_nj", en.alu_nj},
                       {"energy_sram_nj", en.sram_nj},
                       {"energy_dram_nj", en.dram_nj},
                       {"energy_static_nj", en.static_nj}});
  }
  return c;
}

nlohmann::ordered_json to_json(const Estimate& e) {
  nlohmann::ordered_json j;
  j["config_name"] = e.config_name;
  j["config_hash"] = e.config_hash;
  j["family"] = std::string(family_name(e.family));
  if (e.device) {
    j["device"] = {{"name", e.device->name}, {"board", e.device->board}};
    j["device"]["budget"] = resources_json(e.device->budget, e.family);
  } else {
    j["device"] = nullptr;
  }
  nlohmann::ordered_json comps = nlohmann::ordered_json::array();
  for (const Component& k : e.components) {
    nlohmann::ordered_json row;
    row["name"] = k.name;
    row["detail"] = k.detail;
    row["units"] = k.units;
    row["unit"] = k.unit;
    row["resources"] = resources_json(k.res, e.family);
    row["lutram"] = k.lutram;
    comps.push_back(row);
  }
  j["components"] = comps;
  j["total"] = resources_json(e.total, e.family);
  j["total"]["lutram"] = e.lutram;
  if (e.device) j["utilization_percent"] = resources_json(e.utilization, e.family);
  j["fmax"] = {{"mhz", e.fmax.mhz},
               {"low_mhz", e.fmax.low_mhz},
               {"high_mhz", e.fmax.high_mhz},
               {"gemm_path_ns", e.fmax.gemm_path_ns},
               {"rest_path_ns", e.fmax.rest_path_ns},
               {"stages", e.fmax.stages},
               {"rtl_mhz", e.fmax.rtl_mhz},
               {"calibrated", e.fmax.calibrated},
               {"basis", e.fmax.basis}};
  j["clock_mhz"] = e.clock_mhz;
  j["clock_ok"] = e.clock_ok;
  j["fits"] = e.fits;
  j["problems"] = e.problems;
  j["assumptions"] = e.assumptions;
  if (e.energy) {
    const Energy& en = *e.energy;
    j["energy_nj"] = {{"mac", en.mac_nj},   {"alu", en.alu_nj},       {"sram", en.sram_nj},
                      {"dram", en.dram_nj}, {"static", en.static_nj}, {"total", en.total_nj}};
  }
  nlohmann::ordered_json cols;
  for (const auto& [name, value] : columns(e)) cols[name] = value;
  j["columns"] = cols;
  return j;
}

std::string to_text(const Estimate& e) {
  const bool x = is_xilinx(e.family);
  const bool lat = is_lattice(e.family);
  std::string out = fmt::format("{} ({}) on {}{}\n\n", e.config_name, e.config_hash, family_name(e.family),
                                e.device ? fmt::format(", device {} ({})", e.device->name, e.device->board) : "");
  const char* hdr = x ? "{:<13} {:>9} {:>9} {:>7} {:>7} {:>5}  {}\n" : "{:<13} {:>9} {:>9} {:>7} {:>7}  {}\n";
  auto line = [&](const std::string& name, const Resources& r, const std::string& detail) {
    if (x)
      out +=
          fmt::format(fmt::runtime(hdr), name, fmt::format("{:.0f}", r.lut), fmt::format("{:.0f}", r.ff),
                      fmt::format("{:g}", r.dsp), fmt::format("{:g}", r.bram36), fmt::format("{:g}", r.uram), detail);
    else if (lat)
      out += fmt::format(fmt::runtime(hdr), name, fmt::format("{:.0f}", r.lut), fmt::format("{:.0f}", r.ff),
                         fmt::format("{:g}", r.dsp), fmt::format("{:g}", r.ebr), detail);
    else
      out += fmt::format(fmt::runtime(hdr), name, fmt::format("{:.0f}", r.alm), fmt::format("{:.0f}", r.ff),
                         fmt::format("{:g}", r.dsp), fmt::format("{:g}", r.m20k), detail);
  };
  if (x)
    out += fmt::format(fmt::runtime(hdr), "component", "LUT", "FF", "DSP", "BRAM36", "URAM", "shape");
  else if (lat)
    out += fmt::format(fmt::runtime(hdr), "component", "LUT4", "FF", "MULT18", "EBR", "shape");
  else
    out += fmt::format(fmt::runtime(hdr), "component", "ALM", "FF", "DSP", "M20K", "shape");
  for (const Component& k : e.components) line(k.name, k.res, k.detail);
  line("total", e.total,
       fmt::format("({:.0f} {} as distributed RAM)", e.lutram,
                   x     ? "LUTs"
                   : lat ? "LUT4 positions"
                         : "ALMs"));
  if (e.device) {
    const Resources& u = e.utilization;
    out +=
        lat ? fmt::format("\nutilization   LUT4 {:.1f} %  FF {:.1f} %  MULT18 {:.1f} %  EBR {:.1f} %\n", u.lut, u.ff,
                          u.dsp, u.ebr)
        : x ? fmt::format("\nutilization   LUT {:.1f} %  FF {:.1f} %  DSP {:.1f} %  BRAM36 {:.1f} %  URAM {:.1f} %\n",
                          u.lut, u.ff, u.dsp, u.bram36, u.uram)
            : fmt::format("\nutilization   ALM {:.1f} %  FF {:.1f} %  DSP {:.1f} %  M20K {:.1f} %\n", u.alm, u.ff,
                          u.dsp, u.m20k);
  }
  out += fmt::format("\nFmax          {:.0f} MHz ({:.0f}-{:.0f}{}); clock.mhz {:g}: {}\n", e.fmax.mhz, e.fmax.low_mhz,
                     e.fmax.high_mhz, e.fmax.calibrated ? "" : ", uncalibrated", e.clock_mhz,
                     e.clock_ok ? "ok" : "ABOVE the estimate");
  if (e.fmax.rtl_mhz > 0)
    out += fmt::format("              this RTL as written: {:.0f} MHz (GEMM path {:.1f} ns in one stage)\n",
                       e.fmax.rtl_mhz, e.fmax.gemm_path_ns);
  if (e.device) out += fmt::format("fit           {}\n", e.fits ? "fits" : "does NOT fit");
  for (const auto& p : e.problems) out += fmt::format("  - {}\n", p);
  if (e.energy)
    out += fmt::format("energy        {:.1f} nJ (MAC {:.1f}, ALU {:.1f}, SRAM {:.1f}, DRAM {:.1f}, static {:.1f})\n",
                       e.energy->total_nj, e.energy->mac_nj, e.energy->alu_nj, e.energy->sram_nj, e.energy->dram_nj,
                       e.energy->static_nj);
  out += "assumptions\n";
  for (const auto& a : e.assumptions) out += fmt::format("  - {}\n", a);
  return out;
}

}  // namespace vta::estimate
