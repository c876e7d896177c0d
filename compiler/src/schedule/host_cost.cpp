// The host model (host_cost.h).
#include "vta/compiler/schedule/host_cost.h"

#include "vta/compiler/schedule/blocked_layout.h"

namespace vta::compiler {

namespace {

// Bytes of a value as the host reads or writes it (NCHW).
double tensor_bytes(const Node& n) { return static_cast<double>(n.out.size()) * (n.int32_out || n.real ? 4.0 : 1.0); }

}  // namespace

uint64_t value_bytes(const Node& n, const Config& c) {
  return n.int32_out || n.real ? static_cast<uint64_t>(n.out.size()) * 4
                               : static_cast<uint64_t>(blocked(n.out, c).bytes());
}

double link_copy_us(const Config& c, uint64_t bytes) {
  if (bytes == 0) return 0;
  // GB/s is 1e3 bytes per microsecond.
  if (c.host.link == "pcie") return c.host.setup_us + static_cast<double>(bytes) / (c.host.bandwidth_gbps * 1e3);
  return static_cast<double>(bytes) / (c.host.flush_gbps * 1e3);
}

double host_model_us(const Graph& g, int id, const Config& c) {
  const Node& n = g.at(id);
  if (n.device != Device::Host || n.op == Op::Input) return 0;
  if (n.op == Op::DeviceCopy) return link_copy_us(c, value_bytes(n, c));
  double bytes = tensor_bytes(n) + static_cast<double>(n.weight.size() + 4 * n.bias.size());
  for (int k : n.inputs) bytes += tensor_bytes(g.at(k));
  const Shape in = g.at(n.inputs.at(0)).out;
  double elems = static_cast<double>(n.out.size());
  if (n.op == Op::MaxPool || n.op == Op::AvgPool) elems *= static_cast<double>(n.pool * n.pool);
  if (n.op == Op::GlobalAvgPool) elems = static_cast<double>(in.size());
  const double macs = static_cast<double>(n.macs(in));
  return bytes / (c.host.mem_gbps * 1e3) + (elems * c.host.op_ns + macs * c.host.mac_ns) / 1e3;
}

}  // namespace vta::compiler
