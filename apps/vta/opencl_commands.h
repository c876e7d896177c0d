#pragma once
// The OpenCL subcommands of `vta`: devices (list platforms and devices) and
// cl-source / cl-build (the kernel for offline compilation). Each runs from its CLI11
// callback and ends the program with its exit code (0 pass, 1 mismatch,
// 2 bad input or device error). Without VTA_WITH_OPENCL this adds nothing.
#include <CLI/CLI.hpp>

namespace vta::app {

#ifdef VTA_WITH_OPENCL
void add_opencl_commands(CLI::App& app);
#else
inline void add_opencl_commands(CLI::App&) {}
#endif

}  // namespace vta::app
