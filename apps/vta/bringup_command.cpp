// `vta bringup` (see bringup_command.h).
#include "bringup_command.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <sstream>

#include "design_options.h"
#include "run_and_exit.h"
#include "vta/bringup/battery.h"
#include "vta/bringup/junit.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/isa/error.h"
#include "vta/isa/write_file.h"

namespace vta::app {

namespace {

// The --networks list: names split at commas, where a part that starts with
// a digit continues the microbenchmark before it ("conv:16,8,8,16,3,1,1").
// An unknown name is bad input (exit 2), not a failed comparison.
std::vector<std::string> network_list(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const auto& arg : given) {
    std::string part;
    std::istringstream in(arg);
    while (std::getline(in, part, ',')) {
      if (!part.empty() && std::isdigit(static_cast<unsigned char>(part[0])) && !out.empty() &&
          out.back().find(':') != std::string::npos)
        out.back() += "," + part;
      else
        out.push_back(part);
    }
  }
  std::erase(out, std::string("none"));
  const auto names = compiler::zoo_names();
  for (const auto& n : out) {
    if (n.find(':') != std::string::npos) {
      try {
        (void)compiler::build_zoo(n);  // one layer: parses and checks the shape
      } catch (const Error& e) {
        fail("--networks {}: {}", n, e.what());
      }
    } else if (std::find(names.begin(), names.end(), n) == names.end()) {
      fail("--networks {}: no such zoo network (the zoo: {}; or a microbenchmark such as conv:16,8,8,16,3,1,1)", n,
           fmt::join(names, ", "));
    }
  }
  return out;
}

}  // namespace

void add_bringup_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bringup", "run the bring-up battery on a backend (an OpenCL device, the RTL, ...) against the golden model");
  auto design = std::make_shared<DesignOptions>();
  auto o = std::make_shared<bringup::Options>();
  auto junit = std::make_shared<std::string>();
  auto no_corners = std::make_shared<bool>(false);
  auto no_conformance = std::make_shared<bool>(false);
  auto networks = std::make_shared<std::vector<std::string>>(o->networks);
  cmd->add_option("-b,--backend", o->backend, "the backend to bring up (`vta backends` lists them)")
      ->capture_default_str();
  design->add(cmd);
  cmd->add_option("--junit", *junit, "write the results as JUnit XML to this file");
  cmd->add_option("--random", o->random, "seeded random programs to run")->capture_default_str();
  cmd->add_option("--seed", o->seed, "first random seed (also the corner programs' data)")->capture_default_str();
  cmd->add_option("--vectors", o->vectors,
                  "conformance-vector folder (default: VTA_CONFORMANCE_DIR, then tests/data/conformance/vectors)");
  cmd->add_flag("--no-corners", *no_corners, "skip the per-instruction corner programs");
  cmd->add_flag("--no-conformance", *no_conformance, "skip the conformance vectors");
  cmd->add_option("--networks", *networks,
                  "zoo networks to compile and compare (comma-separated, e.g. lenet5,conv:16,8,8,16,3,1,1; none: skip)")
      ->capture_default_str();
  cmd->add_option("--wave-dir", o->wave_dir,
                  "verilator, systemc-rtl: folder for the VCD window of each mismatch (\"\": none)")
      ->capture_default_str();
  cmd->callback([=] {
    run_and_exit([&] {
      o->config = design->load();
      o->corners = !*no_corners;
      o->conformance = !*no_conformance;
      o->networks = network_list(*networks);
      const bringup::Report r = bringup::run(*o, &std::cout);
      if (!junit->empty()) write_file(*junit, bringup::junit_xml(r), "--junit");
      std::cout << bringup::summary(r);
      return r.passed() ? kExitOk : kExitMismatch;
    });
  });
}

}  // namespace vta::app
