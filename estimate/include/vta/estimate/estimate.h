#pragma once
// The FPGA estimate of one design: resources per component, totals, an Fmax
// estimate, fit against a named device, and energy when activity is given.
//
// Contract: estimate() is a pure function of the config and the options, takes
// well under a millisecond (bench/bench_estimate.cpp) and throws vta::Error
// only for bad options (unknown device, unknown family, a family that
// contradicts the device). A design that does not fit is a result
// (fits = false with reasons), not an error. The per-unit costs it uses are
// listed in src/unit_costs.cpp with what each is calibrated on
// (estimate/README.md: what is calibrated and what is not).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/estimate/devices.h"
#include "vta/estimate/energy.h"
#include "vta/isa/config.h"

namespace vta::estimate {

struct EstimateOptions {
  /// A device from devices() (case-insensitive); empty: no budget, no fit check.
  std::string device;
  /// A family name (devices.h); empty: the device's family, or xc7 without a
  /// device. Naming a family other than the device's is an error.
  std::string family;
  /// UltraScale+ only: two int8 multiplies that share an operand packed into
  /// one DSP48E2 (Xilinx WP486), as the vendor flow does for int8 arrays.
  bool pack_int8 = true;
  /// UltraScale+ only: a buffer of at least uram_min_bytes is built from
  /// URAM288 blocks when the device has them and the buffer is at least
  /// 2048 words deep (a URAM is 4K x 72: shallower buffers stay in BRAM).
  bool use_uram = true;
  int64_t uram_min_bytes = 256 * 1024;
  /// A design fits when every resource is at most this fraction of the budget.
  double max_utilization = 1.0;
  /// When set, the estimate includes energy for this activity.
  std::optional<Activity> activity;
  TechTable tech = default_tech();
};

/// One row of the per-component table. `units` is what the component's cost
/// scales with (MACs, lanes, bits...), named by `unit`: the calibration fits
/// cost per unit against synthesis, so the row exposes it.
struct Component {
  std::string name;    // "mac_array", "alu", "buf_wgt", "dma_inp", ...
  std::string detail;  // human-readable shape: "1024 x 2048 bit, 1W1R, 57 x RAMB36 1Kx36"
  double units = 0;
  std::string unit;
  Resources res;
  /// LUTs used as distributed RAM (included in res.lut / res.alm).
  double lutram = 0;
};

/// Maximum clock frequency estimate.
struct Fmax {
  double mhz = 0;                    // point estimate
  double low_mhz = 0, high_mhz = 0;  // stated uncertainty band
  double gemm_path_ns = 0;           // longest GEMM stage of the RTL, fitted to the synthesized depth (xc7 -1 ns)
  double rest_path_ns = 0;           // the longest other path of the core (the floor), same basis
  int stages = 0;                    // stages of the RTL's GEMM datapath at this depth (registers + 1)
  double rtl_mhz = 0;                // xc7 only (else 0): the RTL by the delay table, 1000 / longest path, +-30 %
  bool calibrated = false;           // the family's constants come from a published VTA clock
  std::string basis;                 // one line: what the figure is calibrated on
};

struct Estimate {
  std::string config_name, config_hash;
  Family family = Family::xc7;
  std::optional<Device> device;
  std::vector<Component> components;
  Resources total;
  double lutram = 0;  // LUTs used as memory (part of total.lut / total.alm)
  /// Percent of the device budget per resource (only with a device).
  Resources utilization;
  Fmax fmax;
  double clock_mhz = 0;  // the config's clock.mhz
  bool clock_ok = true;  // clock_mhz <= fmax.mhz
  /// Fits the device (every resource within max_utilization); true without a device.
  bool fits = true;
  /// Why it does not fit, or why the clock is flagged: one line each.
  std::vector<std::string> problems;
  /// The modelling assumptions in effect (printed with every result).
  std::vector<std::string> assumptions;
  std::optional<Energy> energy;
};

/// Estimates `c` under `o` (see the contract above).
Estimate estimate(const Config& c, const EstimateOptions& o = {});

/// Flat named numbers for sweeps (objectives and constraints by name), in a
/// fixed order: lut, ff, dsp, bram36, uram, alm, m20k, lutram, fmax_mhz,
/// fmax_low_mhz, fmax_high_mhz, fmax_rtl_mhz, clock_ok, fits, util_<resource> percents (with
/// a device; 0 otherwise), max_util, energy_nj, energy_*_nj (with activity).
std::vector<std::pair<std::string, double>> columns(const Estimate& e);

/// Everything in the estimate, as JSON (components, totals, utilization,
/// fmax, fit, problems, assumptions, energy, and the columns).
nlohmann::ordered_json to_json(const Estimate& e);

/// The per-component table, utilization, Fmax and fit as terminal text.
std::string to_text(const Estimate& e);

}  // namespace vta::estimate
