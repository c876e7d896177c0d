// Graph -> ONNX (QDQ form, opset 13). The file means, in ONNX's semantics,
// exactly what the integer reference computes (tests/test_onnx_oracle.cpp
// checks it against ONNX Runtime):
// - every requantized result z * 2^u (z the integer accumulator, sum or
//   shifted sum, u = exp - shift) is a float that holds z exactly (|z| <
//   2^22); the project rounds z >> shift half up, QuantizeLinear rounds half
//   to even, so an Add of 2^(u-2) (a quarter of z's unit) comes before it:
//   ties move up, nothing else crosses a rounding boundary (also for shift 0);
// - the global average pool is ReduceSum, Mul by mult * 2^-12 (exact), as the
//   host computes (sum * mult + 2^(shift-1)) >> shift, not 1/(H*W);
// - Gemm gets a rank-2 input (a 2-D graph input, or a Flatten before it);
// - a Conv2d / Dense whose accumulator can reach 2^22 (export_limits()) is
//   written in integer arithmetic instead (integer_requant() in onnx.h):
//   ConvInteger / MatMulInteger on uint8 views of the int8 tensors (ONNX
//   Runtime 1.17 runs ConvInteger on uint8 x uint8 only), then int32 Add,
//   Clip, Div, Sub, exact for every input.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/isa/error.h"
#include "vta/isa/write_file.h"

namespace vta::compiler {

namespace {

class Writer {
 public:
  explicit Writer(onnx::GraphProto* g) : g_(g) {}

  // A named constant initializer, created the first time it is asked for:
  // `fill` sets its values (and dims); the name is returned either way.
  template <typename Fill>
  std::string shared(const std::string& name, onnx::TensorProto::DataType type, Fill fill) {
    if (shared_.insert(name).second) {
      auto* t = g_->add_initializer();
      t->set_name(name);
      t->set_data_type(type);
      fill(*t);
    }
    return name;
  }
  std::string scale(int exp) {
    return shared(fmt::format("scale_2^{}", exp), onnx::TensorProto::FLOAT,
                  [&](onnx::TensorProto& t) { t.add_float_data(std::ldexp(1.0f, exp)); });
  }
  std::string zero(bool int32) {
    return shared(int32 ? "zp_int32" : "zp_int8", int32 ? onnx::TensorProto::INT32 : onnx::TensorProto::INT8,
                  [](onnx::TensorProto& t) { t.add_int32_data(0); });
  }
  std::string zero_u8() {
    return shared("zp_uint8_128", onnx::TensorProto::UINT8, [](onnx::TensorProto& t) { t.add_int32_data(128); });
  }
  // An int32 scalar initializer, shared by value.
  std::string int32_scalar(int64_t v) {
    return shared(fmt::format("int32_{}", v), onnx::TensorProto::INT32,
                  [&](onnx::TensorProto& t) { t.add_int32_data(static_cast<int32_t>(v)); });
  }
  std::string axes_hw() {
    return shared("axes_hw", onnx::TensorProto::INT64, [](onnx::TensorProto& t) {
      t.add_dims(2);
      t.add_int64_data(2);
      t.add_int64_data(3);
    });
  }
  // A tensor initializer of raw little-endian values (int8, uint8, int32).
  template <typename T>
  void raw(const std::string& name, onnx::TensorProto::DataType type, const std::vector<T>& v,
           const std::vector<int64_t>& dims) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (auto d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
  }
  void init_int8(const std::string& name, const std::vector<int8_t>& v, const std::vector<int64_t>& dims) {
    raw(name, onnx::TensorProto::INT8, v, dims);
  }
  void init_uint8(const std::string& name, const std::vector<uint8_t>& v, const std::vector<int64_t>& dims) {
    raw(name, onnx::TensorProto::UINT8, v, dims);
  }
  void init_int32(const std::string& name, const std::vector<int32_t>& v, std::vector<int64_t> dims = {}) {
    if (dims.empty()) dims = {static_cast<int64_t>(v.size())};
    raw(name, onnx::TensorProto::INT32, v, dims);
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> in,
                        std::vector<std::string> out) {
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void int1(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  // DequantizeLinear of an int8 activation; returns the float tensor's name.
  std::string dq(const std::string& q, int exp) {
    const std::string f = q + "_dq";
    if (dqs_.insert(f).second) node("DequantizeLinear", f, {q, scale(exp), zero(false)}, {f});
    return f;
  }
  // Relu (optional), the half-up tie offset and QuantizeLinear of the float
  // result `f` of node `n` (f = z * 2^(n.exp - n.shift)) into its int8 tensor.
  void quantize(const std::string& f, const Node& n) {
    std::string x = f;
    if (n.relu) {
      node("Relu", n.name + "_relu", {f}, {f + "_relu"});
      x = f + "_relu";
    }
    node("Add", n.name + "_round", {x, scale(n.exp - n.shift - 2)}, {n.name + "_rounded"});
    node("QuantizeLinear", n.name + "_q", {n.name + "_rounded", scale(n.exp), zero(false)}, {n.name});
  }
  // The uint8 view x + 128 of an int8 activation (QuantizeLinear of its
  // DequantizeLinear at the same scale, zero point 128: exact, no saturation).
  std::string u8_view(const std::string& q, int exp) {
    const std::string u = q + "_u8";
    if (dqs_.insert(u).second) node("QuantizeLinear", u, {dq(q, exp), scale(exp), zero_u8()}, {u});
    return u;
  }
  // A float scalar initializer.
  std::string constant(const std::string& name, float v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
    return name;
  }

 private:
  onnx::GraphProto* g_;
  std::set<std::string> shared_, dqs_;
};

}  // namespace

namespace {

// The graph with every activation exponent moved by one constant, so that all
// its float values (q * 2^exp with |q| <= 128, accumulators z * 2^(exp -
// shift) with |z| < 2^22, and the tie offsets) are normal float32 numbers.
// Weights keep 2^-7; requantization depends only on exponent differences, so
// the integer semantics do not change. Unmoved when already in range.
Graph in_float_range(const Graph& g) {
  int lo = 0, hi = 0;
  for (const auto& n : g.nodes) {
    lo = std::min({lo, n.exp - n.shift - 2, n.exp});
    hi = std::max({hi, n.exp + 8, n.exp - n.shift + 23});
  }
  if (lo >= -120 && hi <= 120) return g;
  const int k = (lo + hi) / 2;
  if (lo - k < -120 || hi - k > 120)
    fail("export of {}: its scales span 2^{} to 2^{}, more than float32 holds", g.name, lo, hi);
  Graph out = g;
  for (auto& n : out.nodes) n.exp -= k;
  return out;
}

// A Conv2d / Dense in the integer form (integer_requant() in onnx.h) on the
// uint8 view `xu` of its input; wdims: its weight's dims in the float form.
void write_integer(Writer& w, const Node& n, const std::string& xu, const std::vector<int64_t>& wdims) {
  const bool conv = n.op == Op::Conv2d;
  const auto rq = integer_requant(n.shift, n.relu);
  if (!rq) fail("export of node '{}': no integer form for shift {}", n.name, n.shift);
  const int64_t outs = n.out.c, per_out = static_cast<int64_t>(n.weight.size()) / outs;
  std::vector<uint8_t> wu(n.weight.size());
  for (int64_t o = 0; o < outs; ++o)  // Conv: [O, C/g, K, K] as it is; MatMulInteger: B is [K, N]
    for (int64_t i = 0; i < per_out; ++i)
      wu[static_cast<size_t>(conv ? o * per_out + i : i * outs + o)] =
          static_cast<uint8_t>(n.weight[static_cast<size_t>(o * per_out + i)] + 128);
  w.init_uint8(n.name + "_Wu8", wu, conv ? wdims : std::vector<int64_t>{per_out, outs});
  std::vector<int32_t> b(static_cast<size_t>(outs));
  for (int64_t o = 0; o < outs; ++o)
    b[static_cast<size_t>(o)] =
        static_cast<int32_t>((n.bias.empty() ? 0 : n.bias[static_cast<size_t>(o)]) + rq->offset);
  w.init_int32(n.name + "_Boff", b, conv ? std::vector<int64_t>{outs, 1, 1} : std::vector<int64_t>{outs});
  auto* op = w.node(conv ? "ConvInteger" : "MatMulInteger", n.name + "_int",
                    {xu, n.name + "_Wu8", w.zero_u8(), w.zero_u8()}, {n.name + "_acc"});
  if (conv) {
    Writer::ints(op, "kernel_shape", {n.kernel, n.kernel});
    Writer::ints(op, "strides", {n.stride, n.stride});
    Writer::ints(op, "pads", {n.pad, n.pad, n.pad, n.pad});
    Writer::int1(op, "group", n.groups);
  }
  w.node("Add", n.name + "_bias", {n.name + "_acc", n.name + "_Boff"}, {n.name + "_t"});
  w.node("Clip", n.name + "_clip", {n.name + "_t", w.int32_scalar(0), w.int32_scalar(rq->hi)}, {n.name + "_tc"});
  w.node("Div", n.name + "_shift", {n.name + "_tc", w.int32_scalar(rq->div)}, {n.name + "_floor"});
  w.node("Sub", n.name + "_k", {n.name + "_floor", w.int32_scalar(rq->k)}, {n.name + "_i32"});
  w.node("DequantizeLinear", n.name + "_dq32", {n.name + "_i32", w.scale(n.exp), w.zero(true)}, {n.name + "_f"});
  w.node("QuantizeLinear", n.name + "_q", {n.name + "_f", w.scale(n.exp), w.zero(false)}, {n.name});
}

}  // namespace

std::string export_onnx_bytes(const Graph& graph, bool integer_form) {
  // The export writes int8 tensors with the 8-bit zoo's scales (weights 2^-7).
  const bool narrow = std::all_of(graph.nodes.begin(), graph.nodes.end(), [](const Node& n) { return n.bits == 8; });
  if (graph.wgt_bits != 8 || !narrow)
    fail(
        "ONNX export of {}: its weights are {}-bit and its activations {}-bit; the export writes int8 tensors only "
        "(set dtype.inp_bits, dtype.out_bits and dtype.wgt_bits to 8)",
        graph.name, graph.wgt_bits, graph.nodes.empty() ? 8 : graph.nodes.front().bits);
  const Graph g = in_float_range(graph);
  std::set<std::string> integer;  // Conv2d / Dense in the integer form
  if (integer_form)
    for (const auto& l : export_limits(g))
      if (l.integer) integer.insert(l.node);
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("vta-lab");
  m.set_doc_string("vta-lab zoo network " + g.name);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.name);
  Writer w(gp);
  auto value_info = [](onnx::ValueInfoProto* v, const std::string& name, const Shape& s, bool flat) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::INT8);
    std::vector<int64_t> dims = flat ? std::vector<int64_t>{s.n, s.c} : std::vector<int64_t>{s.n, s.c, s.h, s.w};
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  // Tensors of rank 2 in the file: Gemm takes only those.
  std::set<std::string> rank2;
  auto only_dense_uses = [&](size_t id) {
    bool any = false;
    for (const auto& m : g.nodes)
      for (int k : m.inputs)
        if (static_cast<size_t>(k) == id) {
          if (m.op != Op::Dense) return false;
          any = true;
        }
    return any;
  };
  for (size_t id = 0; id < g.nodes.size(); ++id) {
    const Node& n = g.nodes[id];
    auto in = [&](size_t k) { return g.at(n.inputs.at(k)).name; };
    auto in_exp = [&](size_t k) { return g.at(n.inputs.at(k)).exp; };
    if (n.asymmetric() || n.uint8 || n.round_even || !n.lshift.empty())
      fail(
          "export of {}: node '{}' has zero points, a requantization multiplier, an int32 output, per-channel "
          "scales or half-to-even rounding (only the symmetric power-of-two form, rounding half up, is exported)",
          g.name, n.name);
    switch (n.op) {
      case Op::Input: {
        const bool flat = n.out.h == 1 && n.out.w == 1 && only_dense_uses(id);
        if (flat) rank2.insert(n.name);
        value_info(gp->add_input(), n.name, n.out, flat);
        break;
      }
      case Op::Conv2d:
      case Op::Dense: {
        const bool conv = n.op == Op::Conv2d;
        const Shape is = g.at(n.inputs[0]).out;
        const int64_t cin = conv ? is.c / n.groups : is.c * is.h * is.w;
        std::vector<int64_t> wdims =
            conv ? std::vector<int64_t>{n.out.c, cin, n.kernel, n.kernel} : std::vector<int64_t>{n.out.c, cin};
        std::string x = in(0);
        if (!conv && !rank2.count(x)) {
          auto* fl = w.node("Flatten", n.name + "_flatten", {x}, {x + "_flat"});
          Writer::int1(fl, "axis", 1);
          x += "_flat";
        }
        if (!conv) rank2.insert(n.name);
        if (integer.count(n.name)) {
          write_integer(w, n, w.u8_view(x, in_exp(0)), wdims);
          break;
        }
        w.init_int8(n.name + "_W", std::vector<int8_t>(n.weight.begin(), n.weight.end()), wdims);
        w.init_int32(n.name + "_B", n.bias);
        const std::string wf = n.name + "_W_dq", bf = n.name + "_B_dq";
        w.node("DequantizeLinear", wf, {n.name + "_W", w.scale(-7), w.zero(false)}, {wf});
        w.node("DequantizeLinear", bf, {n.name + "_B", w.scale(in_exp(0) - 7), w.zero(true)}, {bf});
        auto* op = w.node(conv ? "Conv" : "Gemm", n.name, {w.dq(x, in_exp(0)), wf, bf}, {n.name + "_f"});
        if (conv) {
          Writer::ints(op, "kernel_shape", {n.kernel, n.kernel});
          Writer::ints(op, "strides", {n.stride, n.stride});
          Writer::ints(op, "pads", {n.pad, n.pad, n.pad, n.pad});
          Writer::int1(op, "group", n.groups);
        } else {
          Writer::int1(op, "transB", 1);
        }
        w.quantize(n.name + "_f", n);
        break;
      }
      case Op::Add: {
        w.node("Add", n.name, {w.dq(in(0), in_exp(0)), w.dq(in(1), in_exp(1))}, {n.name + "_f"});
        w.quantize(n.name + "_f", n);
        break;
      }
      case Op::MaxPool: {
        auto* op = w.node("MaxPool", n.name, {in(0)}, {n.name});
        Writer::ints(op, "kernel_shape", {n.pool, n.pool});
        Writer::ints(op, "strides", {n.pool_stride, n.pool_stride});
        Writer::ints(op, "pads", {n.pool_pad, n.pool_pad, n.pool_pad, n.pool_pad});
        break;
      }
      case Op::AvgPool: {
        auto* op = w.node("AveragePool", n.name, {w.dq(in(0), in_exp(0))}, {n.name + "_f"});
        Writer::ints(op, "kernel_shape", {n.pool, n.pool});
        Writer::ints(op, "strides", {n.pool_stride, n.pool_stride});
        w.quantize(n.name + "_f", n);
        break;
      }
      case Op::GlobalAvgPool: {
        auto* sum = w.node("ReduceSum", n.name, {w.dq(in(0), in_exp(0)), w.axes_hw()}, {n.name + "_sum"});
        Writer::int1(sum, "keepdims", 1);
        const std::string m = w.constant(n.name + "_mult", std::ldexp(static_cast<float>(n.mult), -12));
        w.node("Mul", n.name + "_scale", {n.name + "_sum", m}, {n.name + "_f"});
        w.quantize(n.name + "_f", n);
        break;
      }
      case Op::Flatten: {
        auto* op = w.node("Flatten", n.name, {in(0)}, {n.name});
        Writer::int1(op, "axis", 1);
        rank2.insert(n.name);
        break;
      }
      case Op::Reshape:
        fail("export of {}: Reshape is not exported (use Flatten)", g.name);
      case Op::Im2col:
        fail("export of {}: Im2col is internal to the compiler (pack_stem)", g.name);
      case Op::Pad:
        fail("export of {}: node '{}' pads with a zero point (only the symmetric form is exported)", g.name, n.name);
      case Op::Bands:
        fail("export of {}: Bands is internal to the compiler (band_rows)", g.name);
      case Op::Concat:
        fail("export of {}: Concat is not exported (imported models only)", g.name);
      case Op::DeviceCopy:
        fail("export of {}: DeviceCopy is internal to the compiler (insert_copies)", g.name);
      case Op::Softmax:
        fail("export of {}: Softmax is not exported (the zoo ends at the logits)", g.name);
      case Op::Lookup:
      case Op::Mul:
      case Op::Upsample:
        fail("export of {}: node '{}' is ONNX Runtime's quantized {} (imported models only)", g.name, n.name,
             op_name(n.op));
      case Op::Quantize:
      case Op::Dequantize:
        fail("export of {}: node '{}' converts a float graph input or output (imported models only)", g.name, n.name);
    }
  }
  const Node& out = g.at(g.output);
  value_info(gp->add_output(), out.name, out.out, rank2.count(out.name) > 0);
  std::string bytes;
  if (!m.SerializeToString(&bytes)) fail("export of {}: protobuf serialisation failed", g.name);
  return bytes;
}

namespace {

// The least and greatest value of node id's int8 output: [0, 127] after a
// ReLU (through max pools and flattens, which keep the range), else [-128, 127].
std::pair<int64_t, int64_t> value_range(const Graph& g, int id) {
  const Node& p = g.at(id);
  if ((p.op == Op::MaxPool || p.op == Op::Flatten) && !p.inputs.empty()) return value_range(g, p.inputs[0]);
  return {p.relu && p.zp >= 0 ? 0 : -128, 127};
}

// max |acc| of a Conv2d / Dense over inputs in [lo, hi]: per output channel
// the positive weights at one end and the negative ones at the other, bias included.
int64_t conv_bound(const Node& n, int64_t lo, int64_t hi) {
  const int64_t outs = n.out.c, per_out = outs > 0 ? static_cast<int64_t>(n.weight.size()) / (outs * n.weight_sets) : 0;
  int64_t bound = 0;
  for (int64_t set = 0; set < n.weight_sets; ++set)
    for (int64_t o = 0; o < outs; ++o) {
      const int64_t b = n.bias.empty() ? 0 : n.bias[static_cast<size_t>(o)];
      int64_t top = b, bottom = b;
      for (int64_t i = 0; i < per_out; ++i) {
        const int64_t w = n.weight[static_cast<size_t>((set * outs + o) * per_out + i)];
        top += std::max(w * lo, w * hi), bottom += std::min(w * lo, w * hi);
      }
      bound = std::max({bound, std::abs(top), std::abs(bottom)});
    }
  return bound;
}

}  // namespace

std::vector<ExportLimit> export_limits(const Graph& g) {
  std::vector<ExportLimit> out;
  for (const auto& n : g.nodes) {
    int64_t bound = 0;
    const Shape is = n.inputs.empty() ? n.out : g.at(n.inputs[0]).out;
    switch (n.op) {
      case Op::Conv2d:
      case Op::Dense: {
        const auto [lo, hi] = value_range(g, n.inputs.at(0));
        bound = conv_bound(n, lo, hi);
        break;
      }
      case Op::Add:
        bound = (int64_t{128} << n.shift_a) + (int64_t{128} << n.shift_b);
        break;
      case Op::AvgPool:
        bound = 128 * n.pool * n.pool;
        break;
      case Op::GlobalAvgPool:
        bound = 128 * is.h * is.w * n.mult;
        break;
      default:
        break;
    }
    if (bound >= (int64_t{1} << 22))
      out.push_back({n.name, bound, (n.op == Op::Conv2d || n.op == Op::Dense) && integer_requant_fits(n)});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bound > b.bound; });
  return out;
}

std::optional<IntegerRequant> integer_requant(int shift, bool relu) {
  if (shift < 0 || shift > 30) return std::nullopt;
  IntegerRequant r;
  r.div = int64_t{1} << shift;
  r.k = relu ? 0 : 128;
  r.offset = (shift > 0 ? r.div / 2 : 0) + r.k * r.div;
  r.hi = (128 + r.k) * r.div - 1;
  if (r.hi > INT32_MAX) return std::nullopt;
  return r;
}

bool integer_requant_fits(const Node& n) {
  if ((n.op != Op::Conv2d && n.op != Op::Dense) || n.asymmetric() || n.uint8 || n.round_even || !n.lshift.empty())
    return false;
  const auto r = integer_requant(n.shift, n.relu);
  return r && acc_bound(n) + r->offset <= INT32_MAX;
}

void export_onnx(const Graph& g, const std::string& path) { write_file(path, export_onnx_bytes(g)); }

}  // namespace vta::compiler
