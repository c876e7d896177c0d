// The analytical estimate (analytic.h): the graph passes of the pipeline
// (run_graph_passes()), then per layer the formulas of layer_cost.h. A
// residual Add or max pool fused into its conv (fused_add(), fused_pool())
// counts in the conv's row.
#include "vta/compiler/analytic.h"

#include "vta/compiler/compile.h"
#include "vta/compiler/schedule/fusion.h"
#include "vta/compiler/schedule/host_cost.h"
#include "vta/compiler/schedule/placement.h"

namespace vta::compiler {

NetworkEstimate estimate_network(const Graph& input, const Config& c, const CompileOptions& o) {
  check_compilable(c);
  // As compile() places it: the graph passes of the one pipeline.
  return estimate_passed(run_graph_passes(input, c, o), c);
}

NetworkEstimate estimate_passed(const Graph& g, const Config& c) {
  check_compilable(c);
  NetworkEstimate net;
  net.layers.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::Input) continue;
    LayerEstimate e;
    e.node = static_cast<int>(i);
    e.name = n.name;
    e.op = op_name(n.op);
    e.device = n.device;
    e.host_us = host_model_us(g, static_cast<int>(i), c);
    net.host_us += e.host_us;
    const Shape in = g.at(n.inputs[0]).out;
    e.macs = n.macs(in);
    if (e.device == Device::Vta) {
      if (n.op == Op::Conv2d || n.op == Op::Dense) {
        const int fused = fused_epilogue(g, static_cast<int>(i), c);
        estimate_conv(e, n, in, c, fused >= 0 ? &g.at(fused) : nullptr);
      } else if (n.op == Op::Add) {
        if (fused_into(g, static_cast<int>(i), c) < 0) estimate_add(e, n, c);  // else in its conv's row
      } else if (pool_fused_into(g, static_cast<int>(i), c) < 0) {             // else in its conv's row
        estimate_pool(e, n, in, c);
      }
      net.cycles += e.cycles;
      net.bytes += e.bytes();
      net.vta_macs += e.macs;
    }
    net.macs += e.macs;
    net.layers.push_back(std::move(e));
  }
  return net;
}

}  // namespace vta::compiler
