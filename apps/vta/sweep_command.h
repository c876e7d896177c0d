#pragma once
// `vta sweep run|status|export|report`: design-space sweeps (sweeps/README.md).
// `vta sweep run` exits 1 when a stage-3 check failed or did not run (an
// optional RTL check that did not run excepted), 2 on bad input.
#include <CLI/CLI.hpp>

namespace vta::app {

void add_sweep_command(CLI::App& app);

}  // namespace vta::app
