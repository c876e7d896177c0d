#pragma once
// Which device runs a node (placement.cpp has the rules): the partition
// pass applies placement() to every node; fusion and the graph passes ask it
// of single nodes.
#include <string>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// The device node `n` of `g` runs on for config `c` (the partition pass
/// sets Node::device to it). Channel counts below the block size are padded,
/// not sent to the host.
Device placement(const Graph& g, const Node& n, const Config& c);
/// Why node `n` computes ONNX Runtime's float arithmetic on the host where
/// VTA cannot reproduce it bit for bit (ort_ops.h); empty for other nodes.
/// The per-layer report prints it.
std::string host_reason(const Node& n);
/// Why node `n` of `g` runs on the host for config `c`: the rule of
/// placement() that sent it there, naming the operand, value and limit
/// (host_reason(n) first where it applies); empty for a node on VTA, the
/// input and device copies. The report prints it for every host node and
/// `vta run --why-host` lists them.
std::string host_reason(const Graph& g, const Node& n, const Config& c);
/// Throws vta::Error when no network can be compiled for `c`: a rectangular
/// array (block_in != block_out) needs gemm.batch 1, since a batch x
/// act_block() position cannot be whole INP and whole OUT elements at once.
/// Element widths: the compiler chains a layer's OUT into the next layer's
/// INP, so dtype.out_bits must equal dtype.inp_bits. (Narrow accumulators
/// are a placement rule, not a refusal: placement() keeps on VTA the nodes
/// whose sums fit dtype.acc_bits, acc_peak().)
void check_compilable(const Config& c);
/// Throws vta::Error when graph `g` was quantized for other widths than
/// config `c`'s: its activations (the input node's bits) must be
/// dtype.inp_bits wide and its weights (Graph::wgt_bits) at most dtype.wgt_bits.
void check_widths(const Graph& g, const Config& c);

}  // namespace vta::compiler
