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

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace vta::estimate {

namespace {

#include "ecp5_fit.inc"
#include "fmax_fit.inc"

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

double gemm_stage_ns(const GemmStage& s) {
  return kStageNs + (s.first ? kMultNs : 0.0) + kLevelNs * s.levels + (s.last ? kAccNs : 0.0);
}

Fmax estimate_fmax(const Config& c, Family f) {
  const Timing t = timing(f);
  const std::vector<GemmStage> stages = gemm_stages(c.gemm.pipeline_depth, c.gemm.block_in);
  double gemm = 0;
  for (const auto& s : stages) gemm = std::max(gemm, gemm_stage_ns(s));
  // The ALU's 32-bit multiply (three cascaded DSPs) is the floor where
  // isa.alu_mul builds it; without it the DMA engines' address multiplies.
  const double rest = c.isa.alu_mul ? kRestNs : kRestNoMulNs;
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
      c.isa.alu_mul ? "the ALU's 32-bit MUL" : "the load engines' address multiplies, no ALU MUL", t.band * 100);
  return r;
}

}  // namespace vta::estimate
