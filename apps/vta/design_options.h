#pragma once
// The design and the OpenCL target as `vta bringup`, `vta cl-source` and
// `vta cl-build` take them: a preset or YAML file, --set overrides, and
// --device / --platform / --variant / --binary over the opencl.* knobs.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "vta/isa/config.h"

namespace vta::app {

struct DesignOptions {
  std::string config = "vta-1x16x16";
  std::vector<std::string> sets;
  std::string device, platform, variant, binary;
  void add(CLI::App* app, bool with_device = true) {
    app->add_option("-c,--config", config, "preset name or YAML file")->capture_default_str();
    app->add_option("--set", sets, "override a knob: --set gemm.block_out=32 (repeatable)");
    app->add_option("--variant", variant, "opencl: kernel variant, single or workgroup (default: opencl.variant)")
        ->check(CLI::IsMember({"single", "workgroup"}));
    if (!with_device) return;
    app->add_option("-d,--device", device,
                    "opencl: device name substring or index from `vta devices` (default: opencl.device)");
    app->add_option("--platform", platform, "opencl: platform name substring or index (default: opencl.platform)");
    app->add_option("--binary", binary, "opencl: offline-compiled kernel binary to load (default: opencl.binary)");
  }
  Config load() const {
    std::vector<Override> ov;
    for (const auto& s : sets) ov.push_back(parse_override(s));
    Config c = load_config(resolve_config_path(config), ov);
    if (!device.empty()) c.opencl.device = device;
    if (!platform.empty()) c.opencl.platform = platform;
    if (!variant.empty()) c.opencl.variant = variant;
    if (!binary.empty()) c.opencl.binary = binary;
    return c;
  }
};

}  // namespace vta::app
