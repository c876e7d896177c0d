#pragma once
// Host CPU presets (knob host.cpu): one CPU core's figures, each with its
// source, from isa/host_cpus/*.def (README there). The loader derives the
// host model's knobs (host.mem_gbps, host.flush_gbps, host.op_ns,
// host.mac_ns) from the named preset where the config does not set them
// itself; `custom` (the default) names no preset and leaves the knobs as
// given. Tested in tests/test_config.cpp (HostCpu.*).
#include <string>
#include <string_view>
#include <vector>

namespace vta {

struct Config;

struct HostCpuValue {
  const char* key;
  double value;
  const char* source;
};

/// A preset as data: its values with their sources.
struct HostCpuPreset {
  const char* name;
  const char* doc;
  std::vector<HostCpuValue> values;
  /// The value of `key`; an Error naming the preset and the key when absent.
  double get(std::string_view key) const;
};

/// Every preset, in a fixed order.
const std::vector<HostCpuPreset>& host_cpu_presets();
/// The preset of that name; an Error listing the choices when there is none.
const HostCpuPreset& host_cpu_preset(std::string_view name);

/// The host model's knobs as a preset gives them (README's equations).
struct HostCpuFigures {
  double mem_gbps, flush_gbps, op_ns, mac_ns;
};
HostCpuFigures host_cpu_figures(const HostCpuPreset& p);

/// The host knobs a preset supplies, in the order of HostCpuFigures.
inline constexpr const char* kHostCpuKnobs[] = {"host.mem_gbps", "host.flush_gbps", "host.op_ns", "host.mac_ns"};

/// Where each of the host model's knobs of `c` comes from, as one line:
/// "host.cpu custom" or "host.cpu cortex-a9-650: mem_gbps 1.575, ... from
/// the preset; mac_ns 0.1 set by the config". A knob whose value equals the
/// preset's counts as the preset's.
std::string host_cpu_summary(const Config& c);

}  // namespace vta
