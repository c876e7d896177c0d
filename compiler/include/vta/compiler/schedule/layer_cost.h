#pragma once
// The cost of one layer on a design without generating its code
// (layer_cost.cpp): cycles, their split and DRAM bytes, from the tile
// search's cost model for conv/dense and closed forms of the ALU-only
// layers' instruction sequences (docs/timing.md). The analytic estimate
// (analytic.h) sums them over a network; fusion weighs a fused max pool
// against the pool's own pass with pool_pass_cycles().
#include <cstdint>
#include <string>

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

/// Conv/dense node `n` over input `in`; `fused`: the residual Add or max
/// pool fused into its epilogue (fused_epilogue()), or null.
void estimate_conv(LayerEstimate& e, const Node& n, const Shape& in, const Config& c, const Node* fused);
/// Add node `n` as its own pass (emit_add()).
void estimate_add(LayerEstimate& e, const Node& n, const Config& c);
/// Max or average pool `n` over input `in` as its own pass (emit_pool()).
void estimate_pool(LayerEstimate& e, const Node& n, const Shape& in, const Config& c);
/// The estimated cycles of max or average pool `n` over input `in` as its
/// own pass (estimate_pool()).
double pool_pass_cycles(const Node& n, const Shape& in, const Config& c);

}  // namespace vta::compiler
