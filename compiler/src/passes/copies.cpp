// The "copies" pass (copies.h): an explicit Op::DeviceCopy node wherever a
// value crosses between the host and VTA, as the TVM heterogeneous-execution
// RFC inserts device_copy. One copy per value and direction, shared by every
// consumer on the other device. A copy to VTA goes right after the host node
// that makes the value; a copy to the host right before its first host
// consumer (or at the end, for a graph output computed on VTA); so both sit
// next to a host node and never split a run of VTA nodes (one device run,
// segments.cpp). A copy holds its input's value (same shape, scale, banding)
// and, in the compiled network, the same DRAM buffer (passes/layout.cpp): what
// it costs is the host link's (host_cost.h), not a second tensor.
#include "vta/compiler/passes/copies.h"
#include "vta/compiler/passes/pipeline.h"

#include <fmt/format.h>

namespace vta::compiler {

namespace {

Node copy_node(const Node& from, int src, Device to) {
  Node cp = from;
  cp.name = from.name + (to == Device::Vta ? ".to_vta" : ".to_host");
  cp.op = Op::DeviceCopy;
  cp.inputs = {src};
  cp.device = Device::Host;  // the host runs it: the link's DMA or the cache maintenance
  cp.pin_host = false;
  cp.weight.clear();
  cp.bias.clear();
  cp.lshift.clear();
  cp.frqs.clear();
  return cp;
}

}  // namespace

Graph insert_copies(const Graph& g, const Config&) {
  const size_t count = g.nodes.size();
  std::vector<bool> vta_reader(count, false);
  for (const auto& n : g.nodes)
    for (int k : n.inputs)
      if (n.device == Device::Vta && g.at(k).device == Device::Host) vta_reader[static_cast<size_t>(k)] = true;
  Graph out;
  out.name = g.name;
  std::vector<int> id(count, -1), to_vta(count, -1), to_host(count, -1);
  for (size_t i = 0; i < count; ++i) {
    Node n = g.nodes[i];
    for (int& k : n.inputs) {
      const auto src = static_cast<size_t>(k);
      if (g.nodes[src].device == n.device) {
        k = id[src];
      } else if (n.device == Device::Vta) {
        k = to_vta[src];  // made right after its source
      } else {
        if (to_host[src] < 0) to_host[src] = out.add(copy_node(out.at(id[src]), id[src], Device::Host));
        k = to_host[src];
      }
    }
    id[i] = out.add(std::move(n));
    if (vta_reader[i]) to_vta[i] = out.add(copy_node(out.at(id[i]), id[i], Device::Vta));
  }
  const auto o = static_cast<size_t>(g.output);
  out.output = g.nodes[o].device == Device::Vta ? out.add(copy_node(out.at(id[o]), id[o], Device::Host)) : id[o];
  return out;
}

CompiledNetwork copies_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  net.graph = insert_copies(net.graph, c);
  return net;
}

std::string copies_dump(const CompiledNetwork& net) { return net.graph.dump(); }

}  // namespace vta::compiler
