#pragma once
// FPGA families and named parts (device budgets), as data.
//
// A family fixes which resources exist and how logic maps onto them; a device
// is a family plus its resource counts from the vendor's product table (the
// table and its sources live in src/devices.cpp, one row per part).
#include <string>
#include <string_view>
#include <vector>

namespace vta::estimate {

/// The device families the model maps onto.
///   xc7       Xilinx 7-series (Zynq-7000): LUT6, FF, DSP48E1, RAMB36E1
///   xcup      Xilinx UltraScale+: LUT6, FF, DSP48E2, RAMB36E2, URAM288
///   arria10   Intel Arria 10: ALM, register, variable-precision DSP, M20K
///   stratix10 Intel Stratix 10: as Arria 10 (hyper-registers not modelled)
///   ecp5      Lattice ECP5: LUT4, FF, MULT18X18D, DP16KD (EBR), calibrated
///             on yosys synth_ecp5 + nextpnr-ecp5 place and route (-6 grade)
enum class Family { xc7, xcup, arria10, stratix10, ecp5 };

/// "xc7", "xcup", "arria10", "stratix10", "ecp5".
std::string_view family_name(Family f);
/// True for the Xilinx families (LUT/BRAM36/URAM), false for Intel (ALM/M20K)
/// and Lattice (LUT4/EBR).
bool is_xilinx(Family f);
/// True for Lattice ECP5 (LUT4 in `lut`, MULT18X18D in `dsp`, DP16KD in `ebr`).
bool is_lattice(Family f);
/// The family named `name`; throws vta::Error naming it and listing the
/// known families when it is not one.
Family parse_family(std::string_view name);

/// Resource counts. Which members are meaningful depends on the family:
/// Xilinx uses lut, ff, dsp, bram36, uram; Intel uses alm, ff, dsp, m20k;
/// Lattice ECP5 uses lut (LUT4), ff, dsp, ebr (dsp counts DSP48 slices on
/// Xilinx, variable-precision DSP blocks on Intel and MULT18X18D on ECP5;
/// ebr counts DP16KD 18 Kbit blocks). Members a family lacks are 0.
/// Fractional values are model estimates (e.g. half a BRAM36 is one RAMB18).
struct Resources {
  double lut = 0, ff = 0, dsp = 0, bram36 = 0, uram = 0, alm = 0, m20k = 0, ebr = 0;
  Resources& operator+=(const Resources& o);
};

/// The largest of a Resources' values (of utilization percents: the fullest resource).
double max_of(const Resources& r);

/// One named part: its family and its resource budget.
struct Device {
  std::string name;   // lower case part name used on the command line: "xc7z020"
  std::string board;  // the board it is known from: "Pynq-Z1"
  Family family;
  Resources budget;
  /// Static (leakage) power of the part in watts at 25 C, typical silicon:
  /// the default of the energy model's static term (see energy.h).
  double static_w;
};

/// Every known device, in table order.
const std::vector<Device>& devices();
/// The device named `name` (case-insensitive); throws vta::Error naming it and
/// listing the known devices when it is unknown.
const Device& find_device(std::string_view name);

}  // namespace vta::estimate
