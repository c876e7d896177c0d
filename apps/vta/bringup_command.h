#pragma once
// `vta bringup -b BACKEND [--config C] [--set k=v] ...`: the bring-up battery
// (bringup/) on any registered backend against the golden model. Exit code 0
// when every case passes, 1 on a mismatch, 2 on bad input or a failing device.
#include <CLI/CLI.hpp>

namespace vta::app {
void add_bringup_command(CLI::App& app);
}  // namespace vta::app
