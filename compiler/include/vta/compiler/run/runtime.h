#pragma once
// Runs a compiled network on any Backend: VTA segments as device runs, host
// nodes with the reference operators on tensors read from and written back
// to device DRAM, device copies as the bytes and synchronisations they stand
// for, and collects per-layer stats from the segments' regions.
#include <string>
#include <vector>

#include "vta/compiler/ir/network.h"
#include "vta/model/backend.h"

namespace vta::compiler {

struct LayerResult {
  int node = -1;
  Stats stats;                 // the layer's region stats (VTA) or empty (host)
  double host_seconds = 0;     // host nodes: wall time of the reference op
  uint64_t copy_in_bytes = 0;  // Op::DeviceCopy: the bytes it moves host -> device or device -> host
};

struct NetworkResult {
  Tensor output;
  std::vector<LayerResult> layers;  // in node order, the input node excluded
  uint64_t segments_run = 0;        // device runs: the VTA layers between two host nodes, queued as one run
  // Host-device synchronisations of a batch-queue runtime: the host waits for
  // the device at a copy to the host (or the end) after a queued run, never
  // between runs it only queues.
  uint64_t syncs = 0;
  double wall_seconds = 0;
};

/// Runs `net` on a fresh backend (no DRAM allocated yet: the network's
/// buffers go at the addresses the compiler planned). Throws vta::Error.
NetworkResult run_network(const CompiledNetwork& net, Backend& backend, const Tensor& input);

}  // namespace vta::compiler
