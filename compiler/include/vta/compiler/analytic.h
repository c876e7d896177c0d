#pragma once
// The analytical estimate of a network on a design: per layer, the cycles and
// DRAM bytes the compiled program would take, from the tile search's cost
// model (docs/timing.md rules with loads overlapping GEMMs) and closed forms
// of the ALU-only layers, without generating a single instruction. It is the
// first, cheapest stage of a sweep; the sweep report states its error against
// the SystemC model per layer. Tested in tests/test_analytic.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

struct LayerEstimate {
  int node = -1;
  std::string name, op;
  Device device = Device::Host;
  int64_t macs = 0;
  double cycles = 0;  // VTA layers; 0 on the host
  // DRAM traffic of the layer's program (VTA layers): reads by memory, writes of OUT.
  double bytes_inp = 0, bytes_wgt = 0, bytes_acc = 0, bytes_uop = 0, bytes_out = 0;
  // The split of `cycles` the estimate assumes (each an estimate of busy cycles).
  double load = 0, gemm = 0, alu = 0, store = 0;
  double host_us = 0;  // host layers and device copies: the host model (host_cost.h)
  double bytes() const { return bytes_inp + bytes_wgt + bytes_acc + bytes_uop + bytes_out; }
};

struct NetworkEstimate {
  std::vector<LayerEstimate> layers;  // in node order, the input excluded
  double cycles = 0;                  // sum over the VTA layers
  double host_us = 0;                 // the host model over the host layers and device copies
  double bytes = 0;
  int64_t macs = 0;      // every layer
  int64_t vta_macs = 0;  // the VTA layers
};

/// Partitions `g` for `c` and estimates every layer. Throws vta::Error when a
/// layer cannot be compiled for `c` (the same errors as compile()).
NetworkEstimate estimate_network(const Graph& g, const Config& c);
/// The estimated cycles of max or average pool `n` over input `in` as its
/// own pass (emit_pool()).
double pool_pass_cycles(const Node& n, const Shape& in, const Config& c);

}  // namespace vta::compiler
