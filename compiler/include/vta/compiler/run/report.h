#pragma once
// The per-layer report: where the cycles go, layer by layer, against the
// roofline bound of the design, as a terminal table, CSV or JSON.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vta/compiler/run/runtime.h"

namespace vta::compiler {

struct ReportRow {
  std::string layer, op, device, in_shape, out_shape, tile;
  int64_t macs = 0;
  bool timed = false;  // cycles come from a cycle model
  uint64_t cycles = 0, load = 0, gemm = 0, alu = 0, store = 0, stall = 0;
  uint64_t bytes_inp = 0, bytes_wgt = 0, bytes_acc = 0, bytes_uop = 0, bytes_out = 0, copy_bytes = 0;
  uint64_t roofline = 0;  // max(compute-bound, memory-bound) cycles
  double util = 0;        // MACs / (cycles x MACs per cycle), percent
  double time_us = 0, gops = 0, host_ms = 0;
  // The host model's time (host_cost.h) of a host layer or device copy:
  // deterministic, beside the measured host_ms.
  double host_model_ms = 0;
  std::string copy;         // device copies: "host->vta" or "vta->host"
  std::string host_reason;  // why the node stays on the host (host_reason(g, n, c)); empty: on VTA, input, copies
  double energy_uj = -1;    // < 0: not estimated (a consumer fills it: sweeps/layer_energy.h)
  // The tile search's cost model (Tile::est_cycles) for a VTA conv/dense, and
  // its error against the measured cycles, 100 (est - cycles) / cycles; < 0 /
  // NaN: no estimate or no measured cycles.
  double est_cycles = -1, est_err_pct = std::numeric_limits<double>::quiet_NaN();
  // Cycles lost to the DRAM behind the port, by cause (memory_split.h):
  // bandwidth and latency, row misses, refresh. INT64_MIN: not split (no
  // DRAM preset, or no cycle model).
  static constexpr int64_t kNotSplit = std::numeric_limits<int64_t>::min();
  int64_t mem_bw = kNotSplit, mem_row = kNotSplit, mem_refresh = kNotSplit;
  bool mem_split() const { return mem_bw != kNotSplit; }
};

/// The cost model's error over the layers that have one (est_err_pct).
struct CostModelError {
  int layers = 0;
  double median_abs_pct = 0, worst_abs_pct = 0;
  std::string worst_layer;
};

/// The host model against the measured host time of the host layers (device
/// copies and the input excluded: this process measures no copy), as the ratio
/// model / measured per layer. The measurement is this machine's, whatever
/// CPU the config's host.cpu names.
struct HostModelRatio {
  int layers = 0;
  double median = 0;  // median of model / measured
  double worst = 0;   // the ratio farthest from 1 (by |log|)
  std::string worst_layer;
};

struct Report {
  std::string network, config_name, config_hash, backend, tool;
  double compile_seconds = 0, run_seconds = 0;
  bool check_passed = false;
  // What was checked, as reports print it: "pass", "FAIL", or why it was
  // skipped (timing-only runs compute no tensors). Empty: from check_passed.
  std::string check_text;
  std::string energy_basis;  // the technology table behind energy_uj, when filled
  std::vector<ReportRow> rows;
  ReportRow total;  // sums; util is over the VTA layers
  // The GEMM utilisation no schedule of these tiles beats, over the timed VTA
  // layers: their MACs over the sum of each layer's bound, max(roofline, GEMM
  // + ALU cycles) on the serial compute module, max(roofline, GEMM, ALU) with
  // alu.concurrent (the two pipes overlap; docs/scheduling.md, "Concurrent
  // ALU"). The GEMM and ALU cycles are the run's own (its tiles' resets,
  // bias and operand GEMMs, epilogues), percent.
  double util_bound = 0;
  bool concurrent_alu = false;  // the design's alu.concurrent: which bound util_bound is
  // Per inference: device runs (VTA layers between two host nodes, queued as
  // one run) and host-device synchronisations (NetworkResult::syncs).
  uint64_t device_runs = 0, syncs = 0;
  /// Device time at the clock plus the host model's time, in milliseconds.
  double inference_ms() const { return total.time_us / 1e3 + total.host_model_ms; }
  CostModelError cost_model;  // over the timed VTA conv/dense layers
  // What the memory split compared (add_memory_split); empty: not split.
  std::string memory_basis;
  HostModelRatio host_ratio;  // over the host layers with a measured time
  std::string host_cpu;       // where the host model's knobs came from (host_cpu_summary)
};

Report make_report(const CompiledNetwork& net, const NetworkResult& res, const Config& c, const std::string& backend);
std::string report_table(const Report& r);
std::string report_csv(const Report& r);
nlohmann::ordered_json report_json(const Report& r);

}  // namespace vta::compiler
