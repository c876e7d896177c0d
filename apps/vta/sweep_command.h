#pragma once
// `vta sweep run|status|export|report`: design-space sweeps (sweeps/README.md).
#include <CLI/CLI.hpp>

namespace vta::app {

void add_sweep_command(CLI::App& app);

}  // namespace vta::app
