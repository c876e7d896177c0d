// The device table: named parts and their resource budgets.
//
// Counts are the vendors' product-table figures (the whole part, before any
// shell or platform logic a board reserves):
//   xc7z020   Zynq-7000 SoC product selection guide (XMP098): 53,200 LUT,
//             106,400 FF, 220 DSP48E1, 140 BRAM36 (4.9 Mb)
//   xczu3eg   Zynq UltraScale+ MPSoC product selection guide (XMP104):
//             70,560 LUT, 141,120 FF, 360 DSP48E2, 216 BRAM36 (7.6 Mb), no URAM
//   xczu7ev   XMP104: 230,400 LUT, 460,800 FF, 1,728 DSP48E2, 312 BRAM36
//             (11 Mb), 96 URAM288 (27 Mb)
//   xcvu9p    Virtex UltraScale+ product selection guide (XMP103): 1,182,240 LUT,
//             2,364,480 FF, 6,840 DSP48E2, 2,160 BRAM36 (75.9 Mb), 960 URAM288 (270 Mb)
//   xcu250    Alveo U250 data sheet (DS962): 1,728,000 LUT, 3,456,000 FF,
//             12,288 DSP, 2,688 BRAM36, 1,280 URAM288 (54 MB on-chip SRAM)
//   10ax115   Intel Arria 10 GX product table (10AX115, the PAC's part):
//             427,200 ALM, 1,708,800 registers, 1,518 DSP blocks, 2,713 M20K (53 Mb)
//   1sg280    Intel Stratix 10 GX product table (1SG280, the D5005's part):
//             933,120 ALM, 3,732,480 registers, 5,760 DSP blocks, 11,721 M20K (229 Mb)
//   lfe5u-25f, lfe5u-45f, lfe5u-85f, lfe5um-85f   Lattice ECP5 and ECP5-5G
//             family data sheet (FPGA-DS-02012), table 1.1: 24K / 44K / 84K
//             LUT4 (one flip-flop per LUT4), 28 / 72 / 156 18x18 multipliers
//             (MULT18X18D), 56 / 108 / 208 EBR (DP16KD, 18 Kbit); the exact
//             LUT4 counts are nextpnr-ecp5 0.11's TRELLIS_COMB sites (its
//             --report on each part, which also gives the flip-flops, MULT18X18D
//             and DP16KD above): 24,288 / 43,848 / 83,640. The LFE5UM-85F
//             adds SERDES to the same fabric.
// Static power (W, 25 C junction, typical process) is a rough default for the
// energy model's static term, of the order the vendors' power estimators
// (XPE, EPE) give for these parts; it is not a measured figure: replace it
// with your estimator's output (TechTable::static_w) for real numbers.
#include <algorithm>
#include <cctype>

#include "vta/estimate/devices.h"
#include "vta/isa/error.h"

namespace vta::estimate {

namespace {

Resources xilinx(double lut, double ff, double dsp, double bram36, double uram) {
  Resources r;
  r.lut = lut;
  r.ff = ff;
  r.dsp = dsp;
  r.bram36 = bram36;
  r.uram = uram;
  return r;
}

Resources lattice(double lut4, double mult18, double ebr) {
  Resources r;
  r.lut = lut4;
  r.ff = lut4;
  r.dsp = mult18;
  r.ebr = ebr;
  return r;
}

Resources intel(double alm, double ff, double dsp, double m20k) {
  Resources r;
  r.alm = alm;
  r.ff = ff;
  r.dsp = dsp;
  r.m20k = m20k;
  return r;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return out;
}

}  // namespace

double max_of(const Resources& r) { return std::max({r.lut, r.ff, r.dsp, r.bram36, r.uram, r.alm, r.m20k, r.ebr}); }

Resources& Resources::operator+=(const Resources& o) {
  lut += o.lut;
  ff += o.ff;
  dsp += o.dsp;
  bram36 += o.bram36;
  uram += o.uram;
  alm += o.alm;
  m20k += o.m20k;
  ebr += o.ebr;
  return *this;
}

std::string_view family_name(Family f) {
  switch (f) {
    case Family::xc7:
      return "xc7";
    case Family::xcup:
      return "xcup";
    case Family::arria10:
      return "arria10";
    case Family::stratix10:
      return "stratix10";
    case Family::ecp5:
      return "ecp5";
  }
  return "?";
}

bool is_xilinx(Family f) { return f == Family::xc7 || f == Family::xcup; }

bool is_lattice(Family f) { return f == Family::ecp5; }

Family parse_family(std::string_view name) {
  for (Family f : {Family::xc7, Family::xcup, Family::arria10, Family::stratix10, Family::ecp5})
    if (lower(name) == family_name(f)) return f;
  fail("unknown FPGA family '{}' (known: xc7, xcup, arria10, stratix10, ecp5)", name);
}

const std::vector<Device>& devices() {
  static const std::vector<Device> table = {
      {"xc7z020", "Pynq-Z1", Family::xc7, xilinx(53200, 106400, 220, 140, 0), 0.15},
      {"xczu3eg", "Ultra96", Family::xcup, xilinx(70560, 141120, 360, 216, 0), 0.3},
      {"xczu7ev", "ZCU104", Family::xcup, xilinx(230400, 460800, 1728, 312, 96), 0.6},
      {"xcvu9p", "AWS F1", Family::xcup, xilinx(1182240, 2364480, 6840, 2160, 960), 3.0},
      {"xcu250", "Alveo U250", Family::xcup, xilinx(1728000, 3456000, 12288, 2688, 1280), 4.0},
      {"10ax115", "Intel PAC (Arria 10 GX 1150)", Family::arria10, intel(427200, 1708800, 1518, 2713), 2.5},
      {"1sg280", "D5005 (Stratix 10 GX 2800)", Family::stratix10, intel(933120, 3732480, 5760, 11721), 6.0},
      {"lfe5u-25f", "ECP5 25K (OrangeCrab, ULX3S-25)", Family::ecp5, lattice(24288, 28, 56), 0.05},
      {"lfe5u-45f", "ECP5 45K (ULX3S-45)", Family::ecp5, lattice(43848, 72, 108), 0.08},
      {"lfe5u-85f", "ECP5 85K (ULX3S-85)", Family::ecp5, lattice(83640, 156, 208), 0.12},
      {"lfe5um-85f", "ECP5 85K with SERDES", Family::ecp5, lattice(83640, 156, 208), 0.15},
  };
  return table;
}

const Device& find_device(std::string_view name) {
  for (const Device& d : devices())
    if (d.name == lower(name)) return d;
  std::vector<std::string> known;
  for (const Device& d : devices()) known.push_back(fmt::format("{} ({})", d.name, d.board));
  fail("unknown device '{}' (known: {})", name, fmt::join(known, ", "));
}

}  // namespace vta::estimate
