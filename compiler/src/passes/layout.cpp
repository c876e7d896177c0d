// The "layout" pass: every node's output gets one DRAM buffer in the blocked
// layout of blocked_layout.cpp (int32 outputs, host only, stay plain NCHW int32); a
// device copy shares its input's buffer (the simulated DRAM is the device's
// and the host's at once; the copy's cost is the host model's).
#include "schedule/planner.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/compiler/schedule/blocked_layout.h"

namespace vta::compiler {

CompiledNetwork layout_pass(CompiledNetwork net, const Config& c, const CompileOptions&) {
  Planner plan(net, c);
  const Graph& g = net.graph;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::DeviceCopy) {  // the same bytes, now the other device's (copies.cpp)
      net.activation[static_cast<int>(i)] = net.activation.at(n.inputs.at(0));
      continue;
    }
    const int64_t bytes = n.int32_out || n.real ? n.out.size() * 4 : blocked(n.out, c).bytes();
    Buffer b{n.name, isa::MemId::INP, static_cast<uint64_t>(bytes), 0, {}, static_cast<int>(i)};
    net.activation[static_cast<int>(i)] = plan.add(std::move(b));
  }
  return net;
}

std::string layout_dump(const CompiledNetwork& net) {
  std::string s;
  for (const Buffer& b : net.buffers)
    s += fmt::format("{} {} bytes at 0x{:x}{}\n", b.name, b.bytes, b.addr,
                     b.node >= 0 && net.graph.at(b.node).int32_out ? " (int32 NCHW)"
                     : b.node >= 0 && net.graph.at(b.node).real    ? " (float32 NCHW)"
                                                                   : "");
  return s;
}

}  // namespace vta::compiler
