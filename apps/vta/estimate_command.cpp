// `vta estimate` (see estimate_command.h).
#include "estimate_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "run_and_exit.h"
#include "vta/estimate/estimate.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/json_error.h"
#include "vta/isa/read_file.h"

namespace vta::app {

namespace {

struct EstimateCli {
  std::string config = "vta-1x16x16";
  std::vector<std::string> sets;
  estimate::EstimateOptions options;
  std::string activity, tech;
  bool json = false, list = false, no_pack = false, no_uram = false;
};

// A bounded read noted as an input (read_file.h), parsed as json_error.h says.
nlohmann::json read_json(const std::string& path, std::string_view what) {
  return parse_json(read_file(path, what), path);
}

// Activity counts from a JSON object whose keys are Activity's members.
estimate::Activity read_activity(const std::string& path) {
  nlohmann::json j = read_json(path, "--activity");
  estimate::Activity a;
  const std::pair<const char*, uint64_t*> keys[] = {{"cycles", &a.cycles},
                                                    {"macs", &a.macs},
                                                    {"alu_ops", &a.alu_ops},
                                                    {"uop_read_bytes", &a.uop_read_bytes},
                                                    {"uop_write_bytes", &a.uop_write_bytes},
                                                    {"inp_read_bytes", &a.inp_read_bytes},
                                                    {"inp_write_bytes", &a.inp_write_bytes},
                                                    {"wgt_read_bytes", &a.wgt_read_bytes},
                                                    {"wgt_write_bytes", &a.wgt_write_bytes},
                                                    {"acc_read_bytes", &a.acc_read_bytes},
                                                    {"acc_write_bytes", &a.acc_write_bytes},
                                                    {"out_read_bytes", &a.out_read_bytes},
                                                    {"out_write_bytes", &a.out_write_bytes},
                                                    {"dram_read_bytes", &a.dram_read_bytes},
                                                    {"dram_write_bytes", &a.dram_write_bytes}};
  if (!j.is_object()) fail("{}: expected a JSON object of activity counts", path);
  for (const auto& [key, value] : j.items()) {
    uint64_t* slot = nullptr;
    for (const auto& [k, p] : keys)
      if (key == k) slot = p;
    if (!slot) fail("{}: unknown activity count '{}'", path, key);
    if (!value.is_number_unsigned()) fail("{}: '{}' must be a non-negative integer", path, key);
    *slot = value.get<uint64_t>();
  }
  return a;
}

int run(EstimateCli& o) {
  if (o.list) {
    for (const auto& d : estimate::devices())
      std::cout << fmt::format("{:<10} {:<9} {}\n", d.name, estimate::family_name(d.family), d.board);
    return kExitOk;
  }
  std::vector<Override> ov;
  for (const auto& s : o.sets) ov.push_back(parse_override(s));
  Config c = load_config(resolve_config_path(o.config), ov);
  o.options.pack_int8 = !o.no_pack;
  o.options.use_uram = !o.no_uram;
  if (!o.activity.empty()) o.options.activity = read_activity(o.activity);
  if (!o.tech.empty()) o.options.tech = estimate::tech_from_json(read_json(o.tech, "--tech"));
  estimate::Estimate e = estimate::estimate(c, o.options);
  if (o.json)
    std::cout << estimate::to_json(e).dump(2) << "\n";
  else
    std::cout << estimate::to_text(e);
  return kExitOk;
}

}  // namespace

void add_estimate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("estimate", "FPGA resources, Fmax and fit of a config on a device");
  auto o = std::make_shared<EstimateCli>();
  cmd->add_option("-c,--config", o->config, "preset name or YAML file")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a knob: --set gemm.block_out=32 (repeatable)");
  cmd->add_option("-d,--device", o->options.device, "device budget (see --list-devices)");
  cmd->add_option("--family", o->options.family,
                  "xc7, xcup, arria10, stratix10 or ecp5 (default: the device's, else xc7)");
  cmd->add_option("--max-util", o->options.max_utilization, "fit limit as a fraction of each resource")
      ->capture_default_str();
  cmd->add_flag("--no-pack-int8", o->no_pack, "UltraScale+: one int8 multiply per DSP48E2");
  cmd->add_flag("--no-uram", o->no_uram, "UltraScale+: block RAM only");
  cmd->add_option("--activity", o->activity, "JSON activity counts (macs, cycles, *_read_bytes...) for energy");
  cmd->add_option("--tech", o->tech, "JSON technology table replacing the default energies");
  cmd->add_flag("--json", o->json, "print JSON instead of the table");
  cmd->add_flag("--list-devices", o->list, "list the known devices and exit");
  cmd->callback([o] { run_and_exit([o] { return run(*o); }); });
}

}  // namespace vta::app
