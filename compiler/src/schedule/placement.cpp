// Placement: which device runs a node (placement.h), the rules of the
// partition pass.
//
// Half-to-even requantization (imported ONNX graphs, Node::round_even) runs
// on VTA in conv / dense epilogues when it is one shift of at most 15; Add
// and the pools that round half to even, and the Pad nodes that give a
// zero point as padding, run on the host.
//
// On VTA: Conv2d with groups 1 (channel counts below the block size, like the
// RGB stem, are zero-padded to the block) or depthwise (diagonal weight
// blocks: correct, at 1/block of the MAC array's throughput), Dense, and, when the config has
// ACC_8BIT loads, Add, average pooling, and max pooling whose padding cannot
// win (no padding, or an input that is never negative: a ReLU output), since
// VTA zero-fills padding. On the host: global average pooling (its divisor
// is not a power of two), flatten, reshape, softmax, other grouped convolutions,
// and asymmetric nodes (zero points, requantization multipliers, int32
// outputs, batched weights: Node::asymmetric()), except the multiplier form
// lowered to VTA ALU steps (requant.h), which runs on VTA when the config
// has ALU MUL. Nodes the user pinned to the host (Node::pin_host, `vta run
// --host-ops`) stay there.
//
// Device annotation as the TVM heterogeneous-execution RFC describes it,
// without its post-DFS-order flaw: each node's device is a function of the
// node itself and, recursively, of the producers it reads (a max pool looks
// through device copies to the node that made its input), never of the
// order in which a traversal meets the nodes, so the shortcut branch of a
// residual block is labelled as its main branch is (test:
// Placement.ResNet50FirstBlockOnVta in tests/test_placement.cpp). Where
// adjacent nodes then sit on different devices, insert_copies() (copies.cpp)
// puts an explicit Op::DeviceCopy node.
// Rectangular arrays (block_in != block_out): a position is several INP or
// OUT elements (act_block()), so padding counts in those elements (at most
// 15), and depthwise convolutions run on the host.
#include "vta/compiler/schedule/placement.h"

#include <fmt/format.h>

#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

// The node that made the value `id` holds: through device copies, recursively.
const Node& producer(const Graph& g, int id) {
  const Node& n = g.at(id);
  return n.op == Op::DeviceCopy ? producer(g, n.inputs.at(0)) : n;
}

}  // namespace

Device placement(const Graph& g, const Node& n, const Config& c) {
  if (n.pin_host) return Device::Host;
  // Zero points, multipliers, int32 outputs: the host's 64-bit requantization;
  // the VTA multiplier form needs ALU MUL when it multiplies.
  if (n.asymmetric() || ((n.vta_rq.m > 1 || (n.frq.on && n.frq.m > 1) || !n.frqs.empty()) && !c.isa.alu_mul))
    return Device::Host;
  // Half to even: exact on VTA for one shift of at most 15, with the scratch
  // tile of a conv / dense epilogue (requant_steps()); otherwise the host.
  if (!vta_requant_exact(n) || (needs_scratch(n) && n.op != Op::Conv2d && n.op != Op::Dense)) return Device::Host;
  switch (n.op) {
    case Op::Conv2d: {
      const int64_t in_c = g.at(n.inputs[0]).out.c;
      const bool square = c.gemm.block_in == c.gemm.block_out;
      const bool dense_or_depthwise = n.groups == 1 || (square && n.groups == in_c && n.out.c == in_c);
      return dense_or_depthwise && n.pad * inp_per_pos(c) <= 15 ? Device::Vta : Device::Host;
    }
    case Op::Dense:
      return Device::Vta;
    case Op::Add:
    case Op::AvgPool:
      return c.isa.acc_8bit ? Device::Vta : Device::Host;
    case Op::MaxPool: {
      const Node& src = producer(g, n.inputs[0]);
      // (a ReLU output is at least its zero point, which must be >= 0 for VTA's zero padding never to win)
      const bool nonneg = src.relu && src.zp >= 0 && (src.op == Op::Conv2d || src.op == Op::Dense || src.op == Op::Add);
      return c.isa.acc_8bit && n.pool_pad * out_per_pos(c) <= 15 && (n.pool_pad == 0 || nonneg) ? Device::Vta
                                                                                                : Device::Host;
    }
    default:
      return Device::Host;
  }
}

std::string host_reason(const Node& n) {
  if (n.op == Op::Add && n.ort.a != 0)
    return "ONNX Runtime's QLinearAdd: the nearest even integer of two float32 fused multiply-adds (ort_ops.h), "
           "not an integer line the VTA ALU computes exactly";
  if (n.op == Op::AvgPool && n.ort.a != 0)
    return "ONNX Runtime's QLinearAveragePool: a float32 sum of float32 products (ort_ops.h), not an integer line "
           "the VTA ALU computes exactly";
  if (n.op == Op::GlobalAvgPool && n.fmult != 0)
    return "ONNX Runtime's QLinearGlobalAveragePool: global average pooling runs on the host";
  if ((n.op == Op::Conv2d || n.op == Op::Dense) && !n.fmults.empty() && n.frqs.empty() && !n.int32_out) {
    for (int64_t c = 0; c < n.out.c; ++c) {
      const float m = n.fmults[static_cast<size_t>(c)];
      if (!lower_float_requant(m, n.zp, n.relu, acc_bound(n, c), true) &&
          !lower_float_requant_pair(m, n.zp, n.relu, acc_bound(n, c)))
        return fmt::format(
            "ONNX Runtime's per-channel requantization: output channel {} (multiplier {}, accumulators up to {}) has "
            "no exact VTA form (one line needs more than 8 fixes or 16 intercept steps, and two lines of slope M/2 "
            "do not fit three 32-bit words, requant_float.h)",
            c, m, acc_bound(n, c));
    }
    return "ONNX Runtime's per-channel requantization: the channels' forms did not prove exact together "
           "(lower_float_requant_rows())";
  }
  return "";
}

void check_compilable(const Config& c) {
  if (c.gemm.block_in != c.gemm.block_out && c.gemm.batch != 1)
    fail(
        "config {}: gemm.block_in {} != gemm.block_out {} needs gemm.batch 1 (it is {}): a layer's OUT elements "
        "({} rows of {} channels) cannot be loaded back as the next layer's INP elements ({} rows of {}), since a "
        "LOAD reads whole elements",
        c.name, c.gemm.block_in, c.gemm.block_out, c.gemm.batch, c.gemm.batch, c.gemm.block_out, c.gemm.batch,
        c.gemm.block_in);
}

}  // namespace vta::compiler
