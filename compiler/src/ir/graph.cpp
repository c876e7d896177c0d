#include "vta/compiler/ir/graph.h"

#include <fmt/format.h>

#include <algorithm>

#include "vta/compiler/ir/shape_check.h"
#include "vta/isa/error.h"

namespace vta::compiler {

const char* op_name(Op op) {
  switch (op) {
    case Op::Input:
      return "input";
    case Op::Conv2d:
      return "conv2d";
    case Op::Dense:
      return "dense";
    case Op::Add:
      return "add";
    case Op::MaxPool:
      return "max_pool";
    case Op::AvgPool:
      return "avg_pool";
    case Op::GlobalAvgPool:
      return "global_avg_pool";
    case Op::Flatten:
      return "flatten";
    case Op::Softmax:
      return "softmax";
    case Op::Reshape:
      return "reshape";
    case Op::Im2col:
      return "im2col";
    case Op::Pad:
      return "pad";
    case Op::Concat:
      return "concat";
    case Op::DeviceCopy:
      return "device_copy";
    case Op::Bands:
      return "bands";
    case Op::Quantize:
      return "quantize";
    case Op::Dequantize:
      return "dequantize";
    case Op::Lookup:
      return "lookup";
    case Op::Mul:
      return "mul";
    case Op::Upsample:
      return "upsample";
  }
  return "?";
}

const char* device_name(Device d) { return d == Device::Vta ? "vta" : "host"; }

Device copy_target(const Graph& g, const Node& copy) {
  return g.at(copy.inputs.at(0)).device == Device::Vta ? Device::Host : Device::Vta;
}

int64_t Node::macs(const Shape& in) const {
  // A banded conv's positions past the image are not the network's work.
  const int64_t positions = band.h > 0 && op != Op::Bands ? band.h * band.w : out.n * out.h * out.w;
  if (op == Op::Conv2d) return positions * out.c * (in.c / groups) * kernel * kernel;
  if (op == Op::Dense) return out.n * out.c * in.c * in.h * in.w;
  return 0;
}

int Graph::add(Node n) {
  for (int i : n.inputs)
    if (i < 0 || i >= static_cast<int>(nodes.size()))
      fail("graph {}: node '{}' uses input {} that does not exist yet", name, n.name, i);
  check_output_shape(name, n);
  nodes.push_back(std::move(n));
  return static_cast<int>(nodes.size()) - 1;
}

std::string Graph::dump() const {
  std::string out = fmt::format("graph {} ({} nodes, output {})\n", name, nodes.size(), output);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    std::string ins;
    for (int k : n.inputs) ins += fmt::format("{}{}", ins.empty() ? "" : ", ", nodes[static_cast<size_t>(k)].name);
    out += fmt::format("  %{} {} = {} [{}] {}x{}x{}x{} exp {}", i, n.name, op_name(n.op), device_name(n.device),
                       n.out.n, n.out.c, n.out.h, n.out.w, n.exp);
    if (n.op == Op::Conv2d)
      out += fmt::format(" k{} s{} p{} g{} shift {}{}", n.kernel, n.stride, n.pad, n.groups, n.shift,
                         n.relu ? " relu" : "");
    if (n.op == Op::Dense || n.op == Op::Add) out += fmt::format(" shift {}{}", n.shift, n.relu ? " relu" : "");
    if (n.op == Op::Bands)
      out += fmt::format(" k{} s{} p{} of {}x{} in {} band columns", n.kernel, n.stride, n.pad, n.band_src.h,
                         n.band_src.w, n.band_src.cols);
    if (n.op == Op::DeviceCopy)
      out += fmt::format(" {} -> {}", device_name(nodes[static_cast<size_t>(n.inputs.at(0))].device),
                         device_name(copy_target(*this, n)));
    if (n.pin_host) out += " pinned-host";
    if (n.band.h > 0) out += fmt::format(" banded {}x{} in {} band columns", n.band.h, n.band.w, n.band.cols);
    if (n.asymmetric())
      out += fmt::format(" zp x{} w{} out{} mult {}{}{}", n.x_zp, n.w_zp, n.zp, n.mult, n.int32_out ? " int32" : "",
                         n.weight_sets != 1 ? fmt::format(" sets {}", n.weight_sets) : "");
    if (n.vta_rq.m != 0)
      out += fmt::format(" vta-requant pre {} mul {} shift {} zp {}", n.vta_rq.pre, n.vta_rq.m, n.vta_rq.s, n.zp);
    out += fmt::format(" <- {}\n", ins);
  }
  return out;
}

double node_steps(const Node& n) {
  const double outputs = static_cast<double>(n.out.n) * static_cast<double>(n.out.c) * static_cast<double>(n.out.h) *
                         static_cast<double>(n.out.w);
  double reads = 1;  // inputs read per output element
  if ((n.op == Op::Conv2d || n.op == Op::Dense) && n.out.c > 0 && !n.weight.empty())
    reads = static_cast<double>(n.weight.size()) / static_cast<double>(n.out.c * std::max<int64_t>(1, n.weight_sets));
  else if (n.op == Op::MaxPool || n.op == Op::AvgPool)
    reads = static_cast<double>(n.pool) * static_cast<double>(n.pool);
  return outputs * std::max(1.0, reads);
}

void check_output_shape(const std::string& graph, const Node& n) {
  const std::string e = dims_problem({n.out.n, n.out.c, n.out.h, n.out.w});
  if (!e.empty())
    fail("graph {}: node '{}' ({}): output {}x{}x{}x{} {}", graph, n.name, op_name(n.op), n.out.n, n.out.c, n.out.h,
         n.out.w, e);
  if (const double steps = node_steps(n); steps > static_cast<double>(kMaxNodeSteps))
    fail(
        "graph {}: node '{}' ({}): computing its {}x{}x{}x{} output takes {:.3g} steps, more than the limit of 2^38 "
        "per node{}",
        graph, n.name, op_name(n.op), n.out.n, n.out.c, n.out.h, n.out.w, steps,
        n.op == Op::MaxPool || n.op == Op::AvgPool ? fmt::format(" (a {}x{} window)", n.pool, n.pool) : "");
}

}  // namespace vta::compiler
