// Fmax from the synthesized logic depth of the RTL, pinned to the published
// VTA clocks.
//
// Measured (estimate/calibration/depth.csv; critical_path.py over the
// flattened yosys synth_xilinx netlist with an xc7 -1 delay table): the
// deepest path of the core is the GEMM write-back path. It starts at the INP
// and WGT block RAM outputs, multiplies in one DSP48E1 per MAC and sums the
// block_in products through the DSPs' PCIN cascade, all in one cycle (the
// RTL keeps the arithmetic in its last pipeline stage), then adds the
// forwarded ACC value in a carry chain and writes the ACC RAM. It grows
// linearly with block_in, one cascade hop per product:
//   gemm_ns(block_in) = kGemmNs0 + kGemmNsPerBlockIn x block_in
// and does not depend on batch, block_out or gemm.pipeline_depth (the
// earlier stages carry only addresses). Every other path of the core (the
// store's address arithmetic, the DMA engines, control) is shorter and
// about constant: kRestNs. The constants are fitted by
// `critical_path.py --fit --write` (fmax_fit.inc).
//
// The RTL as written: 1000 / max(gemm_ns, rest_ns) MHz on xc7 (`rtl_mhz`;
// the delay table's absolute accuracy, about +-30 %).
//
// The estimate (`mhz`, what clock.mhz is checked against): a design that
// spreads the GEMM path over the stages gemm.pipeline_depth P leaves after
// the uop read, the address and the operand read, max(1, P - 3) (as
// upstream's HLS core pipelines its GEMM), while the rest of the core is
// not shortened:
//   period(c) = max(rest_ns, gemm_ns(block_in) / stages)
// pinned to one published clock per family at the reference design
// (upstream's 1x16x16, P = 4: one stage):
//   mhz(c) = ref_mhz x period(ref) / period(c), capped by the family's
//   block-RAM/DSP maximum clock.
// So the depth measurements set how the clock scales with the config; the
// published clock sets its level:
//   xc7   100 MHz on the Zynq-7020 of the Pynq-Z1 (TVM VTA pynq config);
//   xcup  333 MHz on Zynq UltraScale+ (TVM VTA ultra96 config).
// Intel families have no published VTA clock: arria10 takes 0.8 and
// stratix10 0.9 of xcup's level (uncalibrated, flagged).
// Uncertainty: +-25 % where calibrated, +-40 % otherwise (the pipelining
// assumption and the pin dominate; the depth fit's residual is in
// kDepthFitResidual).
#include "fmax.h"

#include <algorithm>

#include <fmt/format.h>

namespace vta::estimate {

namespace {

#include "fmax_fit.inc"

struct Timing {
  double ref_mhz;  // published clock of the reference design
  double cap_mhz;  // block RAM / DSP maximum of the slowest speed grade
  double band;     // relative uncertainty
  bool calibrated;
  const char* basis;
};

Timing timing(Family f) {
  switch (f) {
    case Family::xc7:
      return {100.0, 388.0, 0.25, true, "upstream VTA 1x16x16 at 100 MHz on Zynq-7020 (Pynq-Z1)"};
    case Family::xcup:
      return {333.0, 637.0, 0.25, true, "upstream VTA 1x16x16 at 333 MHz on Zynq UltraScale+ (Ultra96)"};
    case Family::arria10:
      return {333.0 * 0.8, 500.0, 0.40, false, "uncalibrated: 0.8 x the UltraScale+ figure"};
    case Family::stratix10:
      return {333.0 * 0.9, 600.0, 0.40, false, "uncalibrated: 0.9 x the UltraScale+ figure (no hyper-retiming)"};
  }
  return {100.0, 388.0, 0.25, true, ""};
}

double gemm_ns(int64_t block_in) { return kGemmNs0 + kGemmNsPerBlockIn * static_cast<double>(block_in); }

int stages_of(int64_t pipeline_depth) { return static_cast<int>(std::max<int64_t>(1, pipeline_depth - 3)); }

double period_ns(int64_t block_in, int stages) { return std::max(kRestNs, gemm_ns(block_in) / stages); }

}  // namespace

Fmax estimate_fmax(const Config& c, Family f) {
  const Timing t = timing(f);
  const double ref_period = period_ns(16, stages_of(4));  // upstream's 1x16x16, P = 4

  Fmax r;
  r.gemm_path_ns = gemm_ns(c.gemm.block_in);
  r.rest_path_ns = kRestNs;
  r.stages = stages_of(c.gemm.pipeline_depth);
  r.rtl_mhz = f == Family::xc7 ? 1000.0 / std::max(r.gemm_path_ns, r.rest_path_ns) : 0.0;
  r.mhz = std::min(t.ref_mhz * ref_period / period_ns(c.gemm.block_in, r.stages), t.cap_mhz);
  r.low_mhz = r.mhz * (1.0 - t.band);
  r.high_mhz = std::min(r.mhz * (1.0 + t.band), t.cap_mhz);
  r.calibrated = t.calibrated;
  r.basis = fmt::format(
      "{}; scaled by the synthesized depth: GEMM path {:.1f} ns over {} stage(s), rest {:.1f} ns (xc7 -1 "
      "delay table), +-{:.0f} %",
      t.basis, r.gemm_path_ns, r.stages, r.rest_path_ns, t.band * 100);
  return r;
}

}  // namespace vta::estimate
