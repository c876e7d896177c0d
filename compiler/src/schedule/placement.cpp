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
// --host-ops`) stay there. With accumulators narrower than 32 bits
// (dtype.acc_bits 16) a node VTA computes in ACC stays on VTA only when its
// sums cannot wrap (acc_peak(), docs/design.md "Data types").
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

#include <algorithm>

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

// Narrow accumulators (dtype.acc_bits < 32): a node VTA computes in ACC
// runs there only when every value it can hold fits (acc_peak()).
bool fits_acc(const Node& n, const Config& c) {
  if (c.dtype.acc_bits >= 32) return true;
  if (n.op != Op::Conv2d && n.op != Op::Dense && n.op != Op::Add && n.op != Op::AvgPool && n.op != Op::MaxPool)
    return true;
  const auto peak = acc_peak(n);
  return peak && *peak <= elem_max(static_cast<int>(c.dtype.acc_bits));
}

// The bits a two's complement value of magnitude up to v needs.
int bits_for(int64_t v) {
  int b = 1;
  while ((int64_t{1} << (b - 1)) - 1 < v) ++b;
  return b;
}

}  // namespace

Device placement(const Graph& g, const Node& n, const Config& c) {
  if (n.pin_host) return Device::Host;
  // Zero points, multipliers, int32 outputs: the host's 64-bit requantization;
  // the VTA multiplier form needs ALU MUL when it multiplies.
  // A max pool's zero point is its input's, carried along: the max of the
  // held 8-bit values is the same whatever it is.
  const bool asym = n.asymmetric() && !(n.op == Op::MaxPool && n.x_zp == 0 && n.w_zp == 0 && n.mult == 1);
  if (asym || ((n.vta_rq.m > 1 || (n.frq.on && n.frq.m > 1) || !n.frqs.empty()) && !c.isa.alu_mul)) return Device::Host;
  // Half to even: exact on VTA for one shift of at most 15, with the scratch
  // tile of a conv / dense epilogue (requant_steps()); otherwise the host.
  if (!vta_requant_exact(n) || (needs_scratch(n) && n.op != Op::Conv2d && n.op != Op::Dense)) return Device::Host;
  if (!fits_acc(n, c)) return Device::Host;
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
  if (n.op == Op::AvgPool && n.ort.a != 0 && !n.uint8)
    return "ONNX Runtime's int8 average pool: AveragePool in float32 then QuantizeLinear (it fuses uint8 pools "
           "only, ort_ops.h), not an integer line the VTA ALU computes exactly";
  if (n.op == Op::AvgPool && n.ort.a != 0)
    return "ONNX Runtime's QLinearAveragePool: a float32 sum of float32 products (ort_ops.h), not an integer line "
           "the VTA ALU computes exactly";
  if (n.op == Op::GlobalAvgPool && n.fmult != 0)
    return "ONNX Runtime's QLinearGlobalAveragePool: global average pooling runs on the host";
  if ((n.op == Op::Conv2d || n.op == Op::Dense) && n.fmult != 0 && n.fmults.empty() && !n.frq.on && !n.int32_out &&
      n.x_zp == 0 && n.w_zp == 0 && n.weight_sets == 1)
    return fmt::format(
        "ONNX Runtime's float requantization: multiplier {} over accumulators up to {} has no exact per-tensor VTA "
        "form (a clamped range of more than 2^19 accumulators or more than 8 fixes, requant_float.h)",
        n.fmult, acc_bound(n));
  if ((n.op == Op::Conv2d || n.op == Op::Dense) && !n.fmults.empty() && n.frqs.empty() && !n.int32_out && n.w_zp == 0) {
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

namespace {

// Why a node whose op VTA runs stays on the host (the checks of placement()).
std::string vta_op_reason(const Graph& g, const Node& n, const Config& c) {
  if (n.w_zp != 0 && !n.weight.empty()) {
    // (ONNX Runtime's asymmetric weights: the importer subtracts the zero point where every w - z fits int8.)
    const auto [lo, hi] = std::minmax_element(n.weight.begin(), n.weight.end());
    if (*lo - n.w_zp < -128 || *hi - n.w_zp > 127)
      return fmt::format(
          "weight zero point: w - zero point spans [{}, {}], outside int8 (VTA multiplies int8 weights; the host "
          "computes (x - x_zp)(w - w_zp) in int32)",
          *lo - n.w_zp, *hi - n.w_zp);
  }
  if (n.x_zp != 0 && (n.op == Op::Conv2d || n.op == Op::Dense) && n.vta_rq.m == 0 && !n.frq.on && n.frqs.empty())
    return fmt::format("input zero point {}: the 64-bit multiplier form (VTA takes no input zero point here)", n.x_zp);
  if (n.w_zp != 0) return fmt::format("weight zero point {}: the 64-bit multiplier form", n.w_zp);
  if (n.int32_out) return "its output is the int32 accumulator (not requantized: no VTA store of int32)";
  if (n.weight_sets != 1) return fmt::format("a batched MatMul of {} weight sets", n.weight_sets);
  if (n.asymmetric() && n.op != Op::MaxPool)
    return fmt::format("zero points (in {}, out {}) or multiplier {} in the 64-bit form, which VTA's ALU does not run",
                       n.x_zp, n.zp, n.fmult != 0 ? n.fmult : static_cast<float>(n.mult));
  if ((n.vta_rq.m > 1 || (n.frq.on && n.frq.m > 1) || !n.frqs.empty()) && !c.isa.alu_mul)
    return fmt::format("its requantization multiplies and config {} has no ALU MUL (isa.alu_mul)", c.name);
  if (!vta_requant_exact(n))
    return fmt::format("half-to-even shift of {}: VTA's ALU sequence is exact for shifts of at most 15", n.shift);
  if (needs_scratch(n) && n.op != Op::Conv2d && n.op != Op::Dense)
    return fmt::format("{} rounds half to even, which needs the scratch tile of a conv / dense epilogue",
                       op_name(n.op));
  if (!fits_acc(n, c)) {
    const auto peak = acc_peak(n);
    if (!peak)
      return fmt::format(
          "config {} has dtype.acc_bits {}: this requantization form's ALU steps are written for 32-bit "
          "accumulators (only the plain rounding shift runs on narrower ones)",
          c.name, c.dtype.acc_bits);
    return fmt::format(
        "config {} has dtype.acc_bits {}: its accumulators reach +-{} for {}-bit inputs (weights, bias and rounding "
        "included), which needs {} bits",
        c.name, c.dtype.acc_bits, *peak, n.bits, bits_for(*peak));
  }
  switch (n.op) {
    case Op::Conv2d: {
      const int64_t in_c = g.at(n.inputs[0]).out.c;
      if (n.groups != 1 && n.groups != in_c)
        return fmt::format("group {} of {} channels: VTA runs 1 or depthwise", n.groups, in_c);
      if (n.groups != 1 && c.gemm.block_in != c.gemm.block_out)
        return "depthwise on a rectangular array (block_in != block_out)";
      return fmt::format("padding {} over {} INP elements a position: at most 15", n.pad, inp_per_pos(c));
    }
    case Op::Add:
    case Op::AvgPool:
      return fmt::format("config {} has no ACC_8BIT loads (isa.acc_8bit)", c.name);
    case Op::MaxPool:
      if (!c.isa.acc_8bit) return fmt::format("config {} has no ACC_8BIT loads (isa.acc_8bit)", c.name);
      if (n.pool_pad * out_per_pos(c) > 15)
        return fmt::format("padding {} over {} OUT elements a position: at most 15", n.pool_pad, out_per_pos(c));
      return fmt::format(
          "padding {} on an input that may be negative (not a ReLU output with a zero point >= 0): VTA's loads pad "
          "with 0, ONNX with the lowest value",
          n.pool_pad);
    default:
      return "";
  }
}

}  // namespace

std::string host_reason(const Graph& g, const Node& n, const Config& c) {
  if (n.device != Device::Host || n.op == Op::Input || n.op == Op::DeviceCopy) return "";
  if (n.pin_host) return "pinned to the host by --host-ops";
  if (std::string r = host_reason(n); !r.empty()) return r;
  const float scale = static_cast<float>(n.scale);  // a float32 scale, printed as such
  switch (n.op) {
    case Op::Quantize:
      return fmt::format(
          "QuantizeLinear of the float input '{}': float32 x / {} rounded half to even, + zero point {}, saturated "
          "to {} (ONNX Runtime's MLAS); VTA has no float datapath",
          g.at(n.inputs.at(0)).name, scale, n.zp + (n.uint8 ? 128 : 0), n.uint8 ? "uint8" : "int8");
    case Op::Dequantize:
      return fmt::format(
          "DequantizeLinear to the float output: float32 (x - zero point {}) * scale {}; VTA has no float datapath "
          "and stores 8 bits",
          n.x_zp + (g.at(n.inputs.at(0)).uint8 ? 128 : 0), scale);
    case Op::GlobalAvgPool:
      return fmt::format("global average pooling over {}x{}: its divisor is not a power of two (host op)",
                         g.at(n.inputs.at(0)).out.h, g.at(n.inputs.at(0)).out.w);
    case Op::Flatten:
    case Op::Reshape:
      return "a copy into NCHW order (VTA's tensors are blocked by channel; the host reorders)";
    case Op::Softmax:
      if (n.ort.a != 0)
        return "QLinearSoftmax: a float table of exponentials of the codes, their float sum and quotient (ONNX "
               "Runtime's); VTA has no float datapath or division";
      return "softmax: exponentials in float (host op)";
    case Op::Concat:
      return "concat along channels: a copy of each input, requantized to the output's scale where it differs "
             "(ONNX Runtime's QuantizeLinear of its DequantizeLinear, float32); host op";
    case Op::Pad:
      return fmt::format("pads with the input zero point {} ({}): VTA's loads pad with 0", n.x_zp + (n.uint8 ? 128 : 0),
                         n.uint8 ? "uint8" : "int8");
    case Op::Im2col:
    case Op::Bands:
      return fmt::format("{}: a host reordering made by the compiler", op_name(n.op));
    case Op::Upsample:
      return fmt::format(
          "nearest Resize by {}: a copy of each value {}x{} times on the 8-bit codes (ONNX Runtime "
          "drops the Q/DQ pair at one scale); host op",
          n.pool, n.pool, n.pool);
    case Op::Lookup:
      return fmt::format(
          "{} between DequantizeLinear and QuantizeLinear: a table of the 256 input codes, computed as ONNX Runtime "
          "does (float32{}, then QuantizeLinear); VTA's ALU has no table lookup or float datapath",
          n.lookup.onnx_op, n.lookup.onnx_op == "Sigmoid" ? ", MLAS's rational logistic" : "");
    case Op::Mul:
      return fmt::format(
          "QLinearMul{}: ONNX Runtime rounds fl(fl(da db) fl(sa sb / sc)) + zc in float32 (scales {}, {} -> {}); "
          "VTA's ALU multiplies integers and has no exact form of this rounding; host op",
          g.at(n.inputs.at(1)).out == n.out ? "" : " broadcast over H x W (squeeze-excitation)", n.ort.a, n.ort.b,
          n.ort.out);
    default:
      return vta_op_reason(g, n, c);
  }
}

void check_compilable(const Config& c) {
  if (c.gemm.block_in != c.gemm.block_out && c.gemm.batch != 1)
    fail(
        "config {}: gemm.block_in {} != gemm.block_out {} needs gemm.batch 1 (it is {}): a layer's OUT elements "
        "({} rows of {} channels) cannot be loaded back as the next layer's INP elements ({} rows of {}), since a "
        "LOAD reads whole elements",
        c.name, c.gemm.block_in, c.gemm.block_out, c.gemm.batch, c.gemm.batch, c.gemm.block_out, c.gemm.batch,
        c.gemm.block_in);
  if (c.dtype.out_bits != c.dtype.inp_bits)
    fail(
        "config {}: dtype.out_bits {} != dtype.inp_bits {}: the compiler stores a layer's output as OUT elements and "
        "loads them back as the next layer's INP elements, so both widths must be equal",
        c.name, c.dtype.out_bits, c.dtype.inp_bits);
}

void check_widths(const Graph& g, const Config& c) {
  const int a = g.nodes.empty() ? 8 : g.nodes.front().bits;
  if (a != c.dtype.inp_bits)
    fail(
        "network {} has {}-bit activations and config {} has dtype.inp_bits {}: build or import it at the config's "
        "width (the zoo quantizes to dtype.inp_bits; ONNX models import as int8 only)",
        g.name, a, c.name, c.dtype.inp_bits);
  if (g.wgt_bits > c.dtype.wgt_bits)
    fail("network {} has {}-bit weights and config {} has dtype.wgt_bits {}: they do not fit the WGT elements", g.name,
         g.wgt_bits, c.name, c.dtype.wgt_bits);
}

}  // namespace vta::compiler
