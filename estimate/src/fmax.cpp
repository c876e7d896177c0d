// Fmax from the synthesized logic depth of the pipelined RTL, one level per
// family pinned to the published VTA clocks.
//
// Measured (estimate/calibration/depth.csv; critical_path.py over the
// flattened yosys synth_xilinx netlist with an xc7 -1 delay table): the GEMM
// datapath (vta_gemm_array.sv) is cut by E registers into E + 1 stages
// (gemm_stages below, the same function of gemm.pipeline_depth and block_in
// as the RTL's): the first stage starts at the INP/WGT block RAM outputs and
// holds the multiply, the adder-tree levels follow, and the last stage adds
// the forwarded ACC value and writes ACC. Each stage's path is fitted as
//   stage_ns = kStageNs + kMultNs [first] + kLevelNs x levels + kAccNs [last]
// and the GEMM path is the longest stage. Every other path of the core is
// not shortened by the GEMM depth: the longest is the ALU's 32-bit MUL
// (ACC read, three cascaded DSPs, write-back), kRestNs, and without MUL
// (isa.alu_mul false) the load engines' issue-cycle multiplies,
// kRestNoMulNs: rest(c). So
//   period(c) = max(rest(c), max over stages of stage_ns)
// rises with block_in (more levels per stage) and falls with
// gemm.pipeline_depth until the GEMM stages are below rest(c), the floor.
// The constants are fitted by `critical_path.py --fit --write`
// (fmax_fit.inc).
//
// Element widths (estimate/calibration/depth_widths.csv: the same
// measurement on the 1x8x8 base at other dtype widths; estimate/README.md,
// "Fmax by element width"):
//   acc_bits 16: the ALU's multiply is 16 x 16 -> 16, one DSP, and is no
//   longer the floor: the load engines' multiplies are, kRestNoMulNs (13.60
//   ns measured on all four acc_bits 16 designs, at depths 4 and 8); the
//   accumulate of the last GEMM stage is 16 bits: 1.45 ns shorter
//   (kNarrowAccSavingNs, w03 against p01 at depth 4).
//   A product of fewer than 9 bits (4 x 4) is built in LUTs, not a DSP
//   (mac_cost(), xc7 and xcup): the multiply stage takes 6.27 ns against
//   the DSP's 5.70 at depth 8 (w07), kFabricMultNs in place of kMultNs.
// alu.concurrent (depth_concurrent.csv): the floor, the ALU's MUL path, also
//   passes the ACC banks' pipe mux: +1.32 ns (c02). Before the scan's loop
//   offsets were registered (commit 4c652fb) the issue stage's hull
//   multiplies were the core's longest path, 20.75 ns (c01). Without MUL or
//   at 16-bit accumulators the concurrent floor is not measured (the load
//   multiplies are taken).
//   16-bit operands stay in one DSP: no change is modelled (w02 and w06
//   measure the GEMM path 0.85 ns shorter and 0 ns longer than 8 bits, the
//   floor 0.5 ns longer with 16-bit OUT: within the fit's residual).
//
// The RTL by the delay table (`rtl_mhz`, xc7 only): 1000 / period(c) (the
// table's absolute accuracy, about +-30 %).
//
// The estimate (`mhz`, what clock.mhz is checked against): the delay table
// sets the structure, one published clock per family its level, taken as
// the clock at which the core's floor closes on that family:
//   mhz(c) = floor_mhz(family) x kRestNs / period(c)
//   xc7   100 MHz: upstream VTA 1x16x16 on the Zynq-7020 of the Pynq-Z1;
//   xcup  333 MHz: upstream VTA 1x16x16 on Zynq UltraScale+ (Ultra96,
//         ZCU104), the top of the 250-333 MHz its 11-20-stage candidates ran at.
// No family cap: a design meets its family's published clock only where its
// GEMM stages are no longer than the floor. Intel families have no published
// VTA clock: arria10 takes 0.8 and stratix10 0.9 of xcup's level
// (uncalibrated, flagged). ecp5's level is not a pin but measured: the
// floor clock fitted to nextpnr-ecp5's Fmax of placed and routed designs
// (ecp5_fit.inc, estimate/calibration/ecp5_fit.py), its band the fit's
// worst error on them. Uncertainty otherwise: +-25 % where calibrated,
// +-40 % where not (the pin dominates; the fit's residual is in
// kDepthFitResidual).
#include "fmax.h"

#include "unit_costs.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace vta::estimate {

namespace {

#include "ecp5_fit.inc"
#include "fmax_fit.inc"

// alu.concurrent, measured (depth_concurrent.csv): the ALU's MUL path runs
// through the ACC banks' pipe mux (vta_concurrent.sv), 16.12 ns against
// 14.80 on the 1x8x8 base at depth 8.
constexpr double kConcurrentBankMuxNs = 16.12 - 14.80;
// Element widths, measured (depth_widths.csv, see the top of this file).
constexpr double kNarrowAccSavingNs = 1.45;        // a 16-bit accumulate against a 32-bit one
constexpr double kFabricMultNs = 6.27 - kStageNs;  // a 4 x 4 product in LUTs, the first stage alone

struct Timing {
  double floor_mhz;  // the clock the core's floor path closes at
  double band;       // relative uncertainty
  bool calibrated;
  const char* basis;
};

Timing timing(Family f) {
  switch (f) {
    case Family::xc7:
      return {100.0, 0.25, true, "floor at upstream VTA 1x16x16's 100 MHz on Zynq-7020 (Pynq-Z1)"};
    case Family::xcup:
      return {333.0, 0.25, true, "floor at upstream VTA 1x16x16's 333 MHz on Zynq UltraScale+ (Ultra96, ZCU104)"};
    case Family::arria10:
      return {333.0 * 0.8, 0.40, false, "uncalibrated: floor at 0.8 x the UltraScale+ figure"};
    case Family::stratix10:
      return {333.0 * 0.9, 0.40, false, "uncalibrated: floor at 0.9 x the UltraScale+ figure (no hyper-retiming)"};
    case Family::ecp5:
      return {kEcp5FloorMhz, kEcp5FmaxBand, true,
              "floor fitted to nextpnr-ecp5 place and route of this RTL (LFE5U-85F, -6 grade; "
              "estimate/calibration/ecp5.csv)"};
  }
  return {100.0, 0.25, true, ""};
}

}  // namespace

std::vector<GemmStage> gemm_stages(int64_t pipeline_depth, int64_t block_in) {
  int t_levels = 0;
  while ((int64_t{1} << t_levels) < block_in) ++t_levels;
  const int64_t e = std::clamp<int64_t>(pipeline_depth - 4, 0, t_levels + 1);
  std::vector<GemmStage> stages;
  GemmStage cur{true, false, 0};
  if (e >= 1) {
    stages.push_back(cur);  // the multiply register
    cur = {false, false, 0};
  }
  for (int64_t t = 1; t <= t_levels; ++t) {
    ++cur.levels;
    if (e >= 1 && (t * e) / (t_levels + 1) != ((t - 1) * e) / (t_levels + 1)) {
      stages.push_back(cur);
      cur = {false, false, 0};
    }
  }
  cur.last = true;
  stages.push_back(cur);
  return stages;
}

double gemm_stage_ns(const GemmStage& s, const StageWidths& w) {
  const double mult = w.fabric_mult ? kFabricMultNs : kMultNs;
  const double acc = w.acc_bits <= 16 ? kAccNs - kNarrowAccSavingNs : kAccNs;
  return kStageNs + (s.first ? mult : 0.0) + kLevelNs * s.levels + (s.last ? acc : 0.0);
}

Fmax estimate_fmax(const Config& c, Family f) {
  const Timing t = timing(f);
  const std::vector<GemmStage> stages = gemm_stages(c.gemm.pipeline_depth, c.gemm.block_in);
  const bool xilinx = f == Family::xc7 || f == Family::xcup;
  const StageWidths w{xilinx && mac_cost(f, c.dtype.inp_bits, c.dtype.wgt_bits, false).dsp == 0, c.dtype.acc_bits};
  double gemm = 0;
  for (const auto& s : stages) gemm = std::max(gemm, gemm_stage_ns(s, w));
  // The ALU's 32-bit multiply (three cascaded DSPs) is the floor where
  // isa.alu_mul builds it; without it, or at 16-bit accumulators (a
  // one-DSP multiply), the DMA engines' address multiplies.
  const bool mul_floor = c.isa.alu_mul && c.dtype.acc_bits > 16;
  const double rest = mul_floor ? kRestNs + (c.alu.concurrent ? kConcurrentBankMuxNs : 0.0) : kRestNoMulNs;
  const double period = std::max(rest, gemm);

  Fmax r;
  r.gemm_path_ns = gemm;
  r.rest_path_ns = rest;
  r.stages = static_cast<int>(stages.size());
  r.rtl_mhz = f == Family::xc7 ? 1000.0 / period : 0.0;
  r.mhz = t.floor_mhz * kRestNs / period;
  r.low_mhz = r.mhz * (1.0 - t.band);
  r.high_mhz = r.mhz * (1.0 + t.band);
  r.calibrated = t.calibrated;
  r.basis = fmt::format(
      "{}; scaled by the synthesized depth: GEMM path {:.1f} ns over {} stage(s), floor {:.1f} ns ({}; xc7 -1 "
      "delay table), +-{:.0f} %",
      t.basis, r.gemm_path_ns, r.stages, r.rest_path_ns,
      mul_floor && c.alu.concurrent ? "the ALU's 32-bit MUL through the ACC banks' pipe mux"
      : mul_floor                   ? "the ALU's 32-bit MUL"
      : c.isa.alu_mul               ? "the load engines' address multiplies; the ALU's MUL is 16-bit"
                                    : "the load engines' address multiplies, no ALU MUL",
      t.band * 100);
  return r;
}

}  // namespace vta::estimate
