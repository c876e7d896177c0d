// `vta devices`, `vta bringup`, `vta cl-source` and `vta cl-build` (see opencl_commands.h).
#include "opencl_commands.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/kernels/bringup.h"
#include "vta/kernels/opencl.h"
#include "run_and_exit.h"

namespace vta::app {

namespace {

constexpr int kOk = 0, kMismatch = 1, kBadInput = 2;

/// The design and the OpenCL target, as every subcommand here takes them.
struct Target {
  std::string config = "vta-1x16x16";
  std::vector<std::string> sets;
  std::string device, platform, variant, binary;
  void add(CLI::App* app, bool with_device = true) {
    app->add_option("-c,--config", config, "preset name or YAML file")->capture_default_str();
    app->add_option("--set", sets, "override a knob: --set gemm.block_out=32 (repeatable)");
    app->add_option("--variant", variant, "kernel variant: single or workgroup (default: opencl.variant)")
        ->check(CLI::IsMember({"single", "workgroup"}));
    if (!with_device) return;
    app->add_option("-d,--device", device,
                    "device name substring or index from `vta devices` (default: opencl.device)");
    app->add_option("--platform", platform, "platform name substring or index (default: opencl.platform)");
    app->add_option("--binary", binary, "offline-compiled kernel binary to load (default: opencl.binary)");
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

}  // namespace

void add_opencl_commands(CLI::App& app) {
  // vta devices
  auto* devices = app.add_subcommand("devices", "list OpenCL platforms and devices (for --device / opencl.device)");
  devices->callback([] {
    run_and_exit([] {
      const auto list = opencl::list_devices();
      if (list.empty()) {
        std::cerr << "vta: error: " << opencl::describe_devices(list);
        return kBadInput;
      }
      std::cout << opencl::describe_devices(list);
      return kOk;
    });
  });

  // vta bringup
  auto* bringup =
      app.add_subcommand("bringup", "run the bring-up battery on an OpenCL device against the golden model");
  auto target = std::make_shared<Target>();
  auto junit = std::make_shared<std::string>();
  auto vectors = std::make_shared<std::string>();
  auto random = std::make_shared<uint32_t>(20);
  auto seed = std::make_shared<uint32_t>(1);
  auto no_corners = std::make_shared<bool>(false);
  auto no_conformance = std::make_shared<bool>(false);
  auto networks = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"lenet5"});
  target->add(bringup);
  bringup->add_option("--junit", *junit, "write the results as JUnit XML to this file");
  bringup->add_option("--random", *random, "seeded random programs to run")->capture_default_str();
  bringup->add_option("--seed", *seed, "first random seed (also the corner programs' data)")->capture_default_str();
  bringup->add_option("--vectors", *vectors,
                      "conformance-vector folder (default: VTA_CONFORMANCE_DIR, then tests/data/conformance/vectors)");
  bringup->add_flag("--no-corners", *no_corners, "skip the per-instruction corner programs");
  bringup->add_flag("--no-conformance", *no_conformance, "skip the conformance vectors");
  bringup->add_option("--networks", *networks, "zoo networks to compile and compare (comma-separated; none: skip)")
      ->delimiter(',')
      ->capture_default_str();
  bringup->callback([=] {
    run_and_exit([&] {
      bringup::Options o;
      o.config = target->load();
      o.random = *random;
      o.seed = *seed;
      o.vectors = *vectors;
      o.corners = !*no_corners;
      o.conformance = !*no_conformance;
      o.networks.clear();
      for (const auto& n : *networks)
        if (n != "none") o.networks.push_back(n);
      const bringup::Report r = bringup::run(o, &std::cout);
      if (!junit->empty()) write_file(*junit, bringup::junit_xml(r));
      std::cout << bringup::summary(r);
      return r.passed() ? kOk : kMismatch;
    });
  });

  // vta cl-source / cl-build
  auto* source =
      app.add_subcommand("cl-source", "write the complete kernel source for a config (for offline compilers)");
  auto src_target = std::make_shared<Target>();
  auto src_out = std::make_shared<std::string>();
  auto onchip = std::make_shared<bool>(false);
  src_target->add(source, false);
  source->add_option("-o,--output", *src_out, "output .cl file (default: stdout)");
  source->add_flag("--onchip", *onchip, "single variant: on-chip buffers as private arrays (BRAM on an FPGA)");
  source->callback([=] {
    run_and_exit([&] {
      const Config c = src_target->load();
      const std::string text = opencl::kernel_source(c, c.opencl.variant, *onchip);
      if (src_out->empty() || *src_out == "-")
        std::cout << text;
      else
        write_file(*src_out, text);
      return kOk;
    });
  });
  auto* build =
      app.add_subcommand("cl-build", "build the kernel for a device and write its program binary (opencl.binary)");
  auto bin_target = std::make_shared<Target>();
  auto bin_out = std::make_shared<std::string>();
  bin_target->add(build);
  build->add_option("-o,--output", *bin_out, "output binary file")->required();
  build->callback([=] {
    run_and_exit([&] {
      const std::vector<uint8_t> bin = opencl::build_binary(bin_target->load());
      write_file(*bin_out, std::string(bin.begin(), bin.end()));
      std::cout << fmt::format("{}: {} bytes\n", *bin_out, bin.size());
      return kOk;
    });
  });
}

}  // namespace vta::app
