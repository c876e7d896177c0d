#pragma once
// `vta compare --backends systemc,verilator ...`: the cross-fidelity report.
// Runs one program or network on each backend and prints, per region
// (layer), the cycles of each and the relative difference to the first.
// Exit code 0, or 1 when a region differs by more than --max-diff percent
// or the backends' results differ; 2 on bad input.
#include <CLI/CLI.hpp>

namespace vta::app {
void add_compare_command(CLI::App& app);
}  // namespace vta::app
