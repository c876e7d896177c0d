// The "pin_host_ops" pass (pin_host_ops.h), the user's device annotation: `--host-ops OP[,OP...]` pins
// every node of the named op kinds to the host, so that a report shows what
// a CPU fallback costs. Op kinds, not node names: a kind names the same
// layers in every network and on every config, where node names change with
// the compiler's own nodes (.im2col, .bands, .to_vta). Only kinds VTA can
// run are accepted (the rest are on the host already).
#include "vta/compiler/passes/pin_host_ops.h"
#include "vta/compiler/passes/pipeline.h"
#include "vta/isa/error.h"

namespace vta::compiler {

const std::vector<Op>& vta_op_kinds() {
  static const std::vector<Op> kinds = {Op::Conv2d, Op::Dense, Op::Add, Op::MaxPool, Op::AvgPool};
  return kinds;
}

Graph pin_host_ops(const Graph& g, const std::vector<std::string>& ops) {
  Graph out = g;
  std::string valid;
  for (Op k : vta_op_kinds()) valid += (valid.empty() ? "" : ", ") + std::string(op_name(k));
  for (const std::string& name : ops) {
    bool known = false;
    for (Op k : vta_op_kinds()) {
      if (name != op_name(k)) continue;
      known = true;
      for (auto& n : out.nodes) n.pin_host = n.pin_host || n.op == k;
    }
    if (!known) fail("--host-ops {}: not an op kind VTA runs (the kinds: {})", name.empty() ? "''" : name, valid);
  }
  return out;
}

CompiledNetwork pin_host_ops_pass(CompiledNetwork net, const Config&, const CompileOptions& o) {
  net.graph = pin_host_ops(net.graph, o.host_ops);
  return net;
}

std::string pin_host_ops_dump(const CompiledNetwork& net) { return net.graph.dump(); }

}  // namespace vta::compiler
