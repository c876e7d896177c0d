#pragma once
// The deterministic host model: the time the host's share of one inference
// takes, from the graph and the config's `host` knobs alone (no clock is
// read), so that reports can show it beside the measured `host ms` and sweeps
// can rank designs on device and host work together, reproducibly.
//
//   device copy (Op::DeviceCopy) of B bytes (the value's DRAM buffer):
//     pcie:        host.setup_us + B / host.bandwidth_gbps
//     shared_dram: B / host.flush_gbps (cache flush or invalidate of those bytes only)
//   any other host layer:
//     (bytes read + bytes written) / host.mem_gbps      (int8 1 byte, int32 4, weights included)
//     + element operations x host.op_ns                 (output elements; pools: x window;
//                                                        global pool: input elements)
//     + multiply-accumulates x host.mac_ns              (conv / dense run on the host)
// The network input node costs nothing (the host has it). Tested in
// tests/test_placement.cpp (HostCost.*).
#include <cstdint>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// Bytes a device copy of `n`'s value moves: its DRAM buffer (blocked int8,
/// or plain int32 for an int32 value).
uint64_t value_bytes(const Node& n, const Config& c);
/// Microseconds of one copy of `bytes` over the config's host link.
double link_copy_us(const Config& c, uint64_t bytes);
/// The host model's microseconds for host node `id` of `g` (0 for VTA nodes
/// and the input).
double host_model_us(const Graph& g, int id, const Config& c);

}  // namespace vta::compiler
