#pragma once
// Stage 4 of the funnel: a verified design placed and routed on the spec's
// ECP5 device by the open flow (yosys synth_ecp5 + nextpnr-ecp5, YoWASP's
// builds installed by `scripts/setup.sh --pnr`), through the project's
// driver estimate/calibration/ecp5_pnr.py: the design passes when nextpnr's
// Fmax reaches its clock.mhz. "Passes place and route and timing" is then
// measured, not assumed, where an open flow exists.
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/sweeps/stages.h"

namespace vta::sweeps {

/// ecp5_pnr.py's --part for an estimate device name ("lfe5u-85f" -> "85k",
/// "lfe5um-85f" -> "um-85k"); "" when `device` is not an ECP5 part.
std::string pnr_part(const std::string& device);
/// The ECP5 devices of the estimate's table, for messages.
std::vector<std::string> pnr_devices();

struct PnrOptions {
  std::string script;  // ecp5_pnr.py
  std::string vta;     // the vta program the script generates the SystemVerilog package with
  std::string work;    // netlists, reports and the CSV rows, one folder per design
  std::string device;  // an ECP5 device of the estimate (pnr_part)
  int seed = 1;
  double timeout_s = 0;
  bool optional = false;  // a flow that cannot run leaves the point ok ("not run, optional")
};

/// The default driver: ecp5_pnr.py in the source tree this program was built from.
std::string default_pnr_script();

/// Why the flow cannot run here ("" when it can): the driver or python3
/// missing, or the tools not installed (`ecp5_pnr.py --check`).
std::string pnr_unavailable(const PnrOptions& o);

/// Places and routes `c` (status ok: nextpnr's Fmax >= clock.mhz; invalid:
/// it does not fit the device or misses the clock, the error says which and
/// by how much; failed: the flow failed, or could not run and is not
/// optional; timeout). `unavailable`: pnr_unavailable()'s answer. Check
/// "pnr" says what was measured. A rerun reuses the design's netlist and
/// report in the work folder.
StageResult stage_pnr(const Config& c, const PnrOptions& o, const std::string& unavailable);

}  // namespace vta::sweeps
