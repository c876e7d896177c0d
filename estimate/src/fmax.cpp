// Fmax from the logic depth of the GEMM write-back path and the pipeline
// stages the config gives it.
//
// Path: the int8 multiply, the adder tree over block_in products
// (ceil(log2(block_in)) levels), the accumulate with the forwarded ACC value
// and the write-back select: levels = ceil(log2(block_in)) + 3. The
// configured gemm.pipeline_depth P has stages for the uop read, the address
// and the operand read; the remaining max(1, P - 3) stages share the levels
// (as upstream VTA's HLS core pipelines its GEMM; our RTL keeps the
// arithmetic in the last stage, so this is the clock a design that
// distributes the path reaches, see estimate/README.md).
//
//   period = t_fixed + t_level x ceil(levels / stages), capped by the
//   family's block-RAM / DSP maximum clock.
//
// Calibration (one published clock per family, so it pins one constant; the
// split fixed : per-level is assumed, 40 : 60 at the reference point):
//   xc7   the upstream VTA 1x16x16 (P = 4 here) closes at 100 MHz on the
//         Zynq-7020 of the Pynq-Z1 (TVM VTA pynq config, fclk 100 MHz);
//   xcup  the same design at 333 MHz on Zynq UltraScale+ (TVM VTA ultra96
//         config, 333 MHz).
// Intel families have no published VTA clock: arria10 takes 0.8 and
// stratix10 0.9 of xcup's speed (uncalibrated, flagged).
// Uncertainty: +-25 % where calibrated, +-40 % otherwise.
#include "fmax.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace vta::estimate {

namespace {

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

int levels_of(int64_t block_in) {
  return static_cast<int>(std::ceil(std::log2(static_cast<double>(std::max<int64_t>(block_in, 1))))) + 3;
}

}  // namespace

Fmax estimate_fmax(const Config& c, Family f) {
  const Timing t = timing(f);
  // The reference design: block_in 16, pipeline depth 4 -> 7 levels in 1 stage.
  const int ref_levels = levels_of(16);
  const double ref_period = 1000.0 / t.ref_mhz;
  const double t_fixed = 0.4 * ref_period;
  const double t_level = 0.6 * ref_period / ref_levels;

  Fmax r;
  r.logic_levels = levels_of(c.gemm.block_in);
  r.stages = static_cast<int>(std::max<int64_t>(1, c.gemm.pipeline_depth - 3));
  const int per_stage = (r.logic_levels + r.stages - 1) / r.stages;
  const double period = t_fixed + t_level * per_stage;
  r.mhz = std::min(1000.0 / period, t.cap_mhz);
  r.low_mhz = r.mhz * (1.0 - t.band);
  r.high_mhz = std::min(r.mhz * (1.0 + t.band), t.cap_mhz);
  r.calibrated = t.calibrated;
  r.basis = fmt::format("{}; {} levels in {} stage(s), +-{:.0f} %", t.basis, r.logic_levels, r.stages, t.band * 100);
  return r;
}

}  // namespace vta::estimate
