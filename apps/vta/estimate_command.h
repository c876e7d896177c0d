#pragma once
// `vta estimate --config C [--set k=v] [--device D] [--family F] [--json]`:
// FPGA resources per component, utilization of a device, Fmax estimate and
// fit (vta::estimate). Exit code 0 whether or not the design fits (the fit is
// part of the result); 2 on bad input (unknown device or family, bad config).
#include <CLI/CLI.hpp>

namespace vta::app {
void add_estimate_command(CLI::App& app);
}  // namespace vta::app
