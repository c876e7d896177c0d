// Host CPU presets (host_cpu.h): the list of files is the list of presets.
#include "vta/isa/host_cpu.h"

#include <fmt/format.h>

#include "vta/isa/config.h"
#include "vta/isa/error.h"

namespace vta {

const std::vector<HostCpuPreset>& host_cpu_presets() {
  static const std::vector<HostCpuPreset> all = [] {
    std::vector<HostCpuPreset> v;
#define HOST_CPU(name, doc) v.push_back(HostCpuPreset{name, doc, {}});
#define HOST_VALUE(key, value, source) v.back().values.push_back(HostCpuValue{#key, value, source});
    // Slowest first, the order of host.cpu's choices.
    // clang-format off
#include "../host_cpus/cortex_a9_650.def"
#include "../host_cpus/cortex_a53_1200.def"
#include "../host_cpus/xeon_e5_2690v3.def"
    // clang-format on
#undef HOST_CPU
#undef HOST_VALUE
    return v;
  }();
  return all;
}

double HostCpuPreset::get(std::string_view key) const {
  for (const auto& v : values)
    if (key == v.key) return v.value;
  fail("host CPU preset '{}' has no value '{}' (isa/host_cpus/README.md lists the keys)", name, key);
}

const HostCpuPreset& host_cpu_preset(std::string_view name) {
  std::string names;
  for (const auto& p : host_cpu_presets()) {
    if (name == p.name) return p;
    names += fmt::format("{}{}", names.empty() ? "" : "|", p.name);
  }
  fail("host.cpu = '{}' is not a host CPU preset (custom|{})", name, names);
}

HostCpuFigures host_cpu_figures(const HostCpuPreset& p) {
  const double per_cycle_ns = 1e3 / (p.get("clock_mhz") * p.get("efficiency"));
  const double mem = p.get("mem_gbps");
  return HostCpuFigures{mem, mem, per_cycle_ns / p.get("ops_per_cycle"), per_cycle_ns / p.get("macs_per_cycle")};
}

std::string host_cpu_summary(const Config& c) {
  if (c.host.cpu == "custom")
    return fmt::format("host.cpu custom: mem_gbps {}, flush_gbps {}, op_ns {}, mac_ns {} as configured",
                       c.host.mem_gbps, c.host.flush_gbps, c.host.op_ns, c.host.mac_ns);
  const HostCpuFigures f = host_cpu_figures(host_cpu_preset(c.host.cpu));
  const double preset[] = {f.mem_gbps, f.flush_gbps, f.op_ns, f.mac_ns};
  const double value[] = {c.host.mem_gbps, c.host.flush_gbps, c.host.op_ns, c.host.mac_ns};
  std::string from_preset, from_config;
  for (size_t i = 0; i < 4; ++i) {
    std::string& list = value[i] == preset[i] ? from_preset : from_config;
    list +=
        fmt::format("{}{} {:.4g}", list.empty() ? "" : ", ", std::string_view(kHostCpuKnobs[i]).substr(5), value[i]);
  }
  std::string out = fmt::format("host.cpu {}", c.host.cpu);
  if (!from_preset.empty()) out += fmt::format(": {} from the preset", from_preset);
  if (!from_config.empty()) out += fmt::format("{} {} set by the config", from_preset.empty() ? ":" : ";", from_config);
  return out;
}

}  // namespace vta
