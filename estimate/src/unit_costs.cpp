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
      return {1.0, 1.0, 3.0, dma};
    case Family::xcup:
      return {1.0, 0.5, 3.0, dma};
    case Family::arria10:
    case Family::stratix10:
      return {0.5, 0.5, 2.0, dma / 2};
    case Family::ecp5:
      // MULT18X18D counts read off synth_ecp5 (ecp5_fit.inc): one per int8
      // multiply (no packing), the ALU's 32 x 32 -> 32 multiply and a load
      // engine's address multiplies as yosys splits them into 18x18 pieces.
      return {1.0, 1.0, kEcp5MultPerAluMul, kEcp5MultPerDmaEngine};
  }
  return {1.0, 1.0, 3.0, dma};
}

IntelLogic intel_logic() { return {1.6, 4.0}; }

LatticeLogic lattice_logic() { return {kEcp5Lut4PerLut, kEcp5FfPerFf, kEcp5Lut4Error}; }

}  // namespace vta::estimate
