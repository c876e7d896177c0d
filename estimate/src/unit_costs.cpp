// The per-unit costs of the resource model.
//
// Fitted: LogicCosts come from estimate/calibration/fit.py, which fits them by
// least squares to yosys synth_xilinx (xc7) of the designs marked `fit` in
// estimate/calibration/designs.txt (results in calibration.csv) and writes
// unit_costs_fit.inc. Regenerate: estimate/calibration/fit.py --write.
//
// Structural: DSP counts per operation are what yosys maps our RTL to on
// 7-series (checked per module in the calibration logs: one DSP48E1 per int8
// MAC with the adder chain in the DSP cascade, three per 32x32->32 ALU
// multiply, the 25x18 partial products of which the fourth falls above bit
// 31); UltraScale+ (DSP48E2, 27x18) splits the same way.
//
// Assumed (not calibrated here): packing two int8 multiplies per DSP48E2
// (Xilinx WP486, "Deep Learning with INT8 Optimization on Xilinx Devices"),
// Intel's two 18x19 multipliers per variable-precision DSP block (Arria 10 /
// Stratix 10 DSP user guides) and a 32x32 multiply as two blocks (27x27 plus
// the cross terms), and the ALM conversion.
#include "unit_costs.h"

namespace vta::estimate {

namespace {
#include "ecp5_fit.inc"
}  // namespace

const LogicCosts& logic_costs() {
  static const LogicCosts costs = [] {
    LogicCosts c;
#include "unit_costs_fit.inc"
    return c;
  }();
  return costs;
}

DspCosts dsp_costs(Family f, int64_t bus_bits) {
  // A load DMA engine's address multiplies (row counts x padded row length)
  // as yosys maps them, per vta_dma_load module in the calibration logs: 4
  // DSP48E1 each with a 64-bit bus (c01-c10), 28 for the five engines with
  // a 128-bit bus (c11), 6 each with a 32-bit bus (rtl-tiny); other widths
  // take the larger figure.
  const double dma = bus_bits == 64 ? 4.0 : bus_bits == 128 ? 5.6 : 6.0;
  switch (f) {
    case Family::xc7:
      return {3.0, dma};
    case Family::xcup:
      return {3.0, dma};
    case Family::arria10:
    case Family::stratix10:
      return {2.0, dma / 2};
    case Family::ecp5:
      // MULT18X18D counts read off synth_ecp5 (ecp5_fit.inc): the ALU's 32 x 32 -> 32 multiply and a load
      // engine's address multiplies as yosys splits them into 18x18 pieces.
      return {kEcp5MultPerAluMul, kEcp5MultPerDmaEngine};
  }
  return {3.0, dma};
}

// Element widths (dtype; estimate/README.md, "Element widths"): yosys 0.23
// synth_xilinx puts every product of at least 9 bits in a DSP48E1 (mul2dsp's
// DSP_Y_MINWIDTH 9), so 4x8, 8x8, 16x8 and 16x16 each take one DSP and no
// LUT, and a 4x4 product (8 bits) goes to fabric. Its LUTs: the RTL's MAC
// array at 4/4/16/4 on the 1x8x8 calibration base (sim/rtl/README.md,
// "Element widths") is 2 311 LUT6 for 64 MACs, of which the fitted per-MAC
// logic (unit_costs_fit.inc) is 257: 32 more per MAC. (A bare 16-term dot
// product, estimate/calibration/dot.sv, takes 77 a MAC: the RTL's adder
// tree is shared differently.) synth_ecp5 maps every width up to 18 bits to
// one MULT18X18D. Intel's 18x19 halves take operands up to 16 bits.
namespace {
constexpr double kFabricMacLut = (2311.0 - 257.0) / 64.0;
}

MacCost mac_cost(Family f, int64_t a_bits, int64_t b_bits, bool pack) {
  switch (f) {
    case Family::xc7:
    case Family::xcup:
      if (a_bits + b_bits < 9) return {0.0, kFabricMacLut};
      if (pack && f == Family::xcup && a_bits <= 8 && b_bits <= 8) return {0.5, 0.0};
      return {1.0, 0.0};
    case Family::arria10:
    case Family::stratix10:
      return {0.5, 0.0};
    case Family::ecp5:
      return {1.0, 0.0};
  }
  return {1.0, 0.0};
}

double alu_mul_dsp(Family f, int64_t acc_bits) {
  // A 16 x 16 -> 16 multiply is one DSP48E1 and one MULT18X18D (yosys, as
  // above); 32 bits: dsp_costs()'s per_alu_mul.
  if (acc_bits <= 16) return f == Family::arria10 || f == Family::stratix10 ? 0.5 : 1.0;
  return dsp_costs(f, 64).per_alu_mul;
}

IntelLogic intel_logic() { return {1.6, 4.0}; }

LatticeLogic lattice_logic() { return {kEcp5Lut4PerLut, kEcp5FfPerFf, kEcp5Lut4Error}; }

}  // namespace vta::estimate
