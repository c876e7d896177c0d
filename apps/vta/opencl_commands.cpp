// `vta devices`, `vta cl-source` and `vta cl-build` (see opencl_commands.h).
#include "opencl_commands.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "design_options.h"
#include "run_and_exit.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/kernels/opencl.h"

namespace vta::app {

namespace {

constexpr int kOk = 0, kBadInput = 2;

using Target = DesignOptions;

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
