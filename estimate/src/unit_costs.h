#pragma once
// Per-unit costs of the resource model (internal). Which are fitted to
// synthesis, which are structural (read off the RTL) and which are assumed
// is stated next to each value in unit_costs.cpp and in estimate/README.md.
#include <cstdint>

#include "vta/estimate/devices.h"

namespace vta::estimate {

/// cost = fixed x instances + per_unit x units.
struct LinearCost {
  double fixed = 0, per_unit = 0;
};

/// Logic (LUT6) and flip-flop costs of one component kind.
struct LogicCost {
  LinearCost lut, ff;
};

/// The fitted logic costs, on Xilinx 7-series LUT6/FF (yosys synth_xilinx).
struct LogicCosts {
  LogicCost mac_array;  // per MAC
  LogicCost acc_lanes;  // per accumulator lane (batch x block_out)
  LogicCost pipeline;   // per bit of a GEMM/ALU pipeline register stage
  LogicCost dma;        // fixed per DMA engine, per bit of its SRAM-side data path
  LogicCost control;    // fixed: fetch, command and token queues' control, run control, arbiter
};
const LogicCosts& logic_costs();

/// DSP blocks per operation on one family.
struct DspCosts {
  double per_mac;         // one int8 x int8 multiply (accumulation in the DSP cascade)
  double per_mac_packed;  // the same with two multiplies packed per DSP (pack_int8)
  double per_alu_mul;     // one 32 x 32 -> 32 ALU multiply
  double per_dma_engine;  // the address multiplies of one load DMA engine
};
/// `bus_bits`: the memory port width (a load engine's multiplies narrow with
/// a wider beat).
DspCosts dsp_costs(Family f, int64_t bus_bits);

/// Intel logic from the Xilinx-fitted figures: ALMs = max(LUT6 / lut_per_alm,
/// FF / ff_per_alm) (an ALM holds one 6-input or two smaller functions and 4 registers).
struct IntelLogic {
  double lut_per_alm, ff_per_alm;
};
IntelLogic intel_logic();

}  // namespace vta::estimate
