// ONNX (QDQ form) -> Graph. See onnx.h for the accepted subset; the integer
// operators (QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger) are in
// onnx_integer.cpp.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <variant>

#include "frontend/onnx_guard.h"
#include "frontend/onnx_integer.h"
#include "frontend/onnx_read.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/ort_ops.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/isa/error.h"
#include "vta/isa/read_file.h"

namespace vta::compiler {

namespace {

struct Act {  // a dequantized activation: node id, scale exponent, zero point (int8 domain: uint8 - 128)
  int node;
  int exp;
  int32_t zp = 0;
  float scale = 0;  // a scale that is not a power of two (0: it is 2^exp)
  float value() const { return scale != 0 ? scale : std::ldexp(1.0f, exp); }
};
struct Weight {
  std::vector<int16_t> data;  // int8 domain: a uint8 weight u as u - 128
  std::vector<int64_t> dims;
  std::vector<int> exps;      // one (per tensor) or one per output channel (per axis 0)
  std::vector<float> scales;  // the same as floats
  // Zero points in the int8 domain (uint8 z as z - 128), one or one per
  // output channel; empty: 0 (symmetric). ONNX Runtime's quantizer writes
  // them for asymmetric weights (QUInt8, or WeightSymmetric off).
  std::vector<int32_t> zps;
};
struct Bias {
  std::vector<int32_t> data;
  std::vector<int> exps;
  std::vector<float> scales;
};
struct Pending {  // a float result waiting for its QuantizeLinear
  Node node;
  std::vector<int> in_exps;
  // The exponent of the tie offset added before QuantizeLinear (the export's
  // half-up rounding, onnx_export.cpp); kNoOffset: none.
  int offset_exp = kNoOffset;
  bool reduce_sum = false;  // a GlobalAvgPool written as ReduceSum (+ Mul by mult * 2^-12)
  bool scaled = false;      // its Mul was seen
  // Conv / Gemm whose input or weight scales are not all powers of two:
  // ONNX Runtime's float requantization (requant_float.h) with these scales.
  bool float_rq = false;
  float x_scale = 0;
  std::vector<float> w_scales;
  // Add and the average pools: their inputs' scales, and whether one is not
  // a power of two (then ONNX Runtime's float form, ort_ops.h).
  std::vector<float> in_scales;
  bool ort_in = false;
  float alpha = 0, beta = 0;  // HardSigmoid's attributes (Op::Lookup)
  static constexpr int kNoOffset = -10000;
};

class Importer : public OnnxReader {
 public:
  Importer(const onnx::ModelProto& m, std::string source) : OnnxReader(std::move(source)), m_(m) {}

  Graph run() {
    const auto& gp = m_.graph();
    g_.name = gp.name().empty() ? src_ : gp.name();
    for (const auto& t : gp.initializer()) init_[t.name()] = &t;
    for (const auto& v : gp.input())
      if (!init_.count(v.name())) add_input(v);
    for (const auto& n : gp.node())
      for (const auto& in : n.input()) ++uses_[in];
    for (const auto& o : gp.output()) ++uses_[o.name()];
    for (int i : topo_order()) handle(gp.node(i));
    if (gp.output_size() != 1) fail("{}: the model must have exactly one output, it has {}", src_, gp.output_size());
    const std::string& y = gp.output(0).name();
    if (auto it = q_.find(y); it != q_.end()) {
      g_.output = it->second;
    } else if (auto a = acts_.find(y); a != acts_.end()) {
      g_.output = add_dequantize(y, a->second);
    } else {
      fail("{}: the output '{}' is neither an 8-bit tensor nor the DequantizeLinear of one this importer produced",
           src_, y);
    }
    return std::move(g_);
  }

 private:
  // Kahn's algorithm over tensor dependencies; names a cycle if there is one.
  std::vector<int> topo_order() const {
    const auto& gp = m_.graph();
    std::map<std::string, int> producer;
    for (int i = 0; i < gp.node_size(); ++i)
      for (const auto& o : gp.node(i).output()) {
        if (o.empty()) continue;  // an optional output left out
        if (init_.count(o) || inputs_.count(o))
          bad(gp.node(i), fmt::format("output '{}' is also a graph input or initializer", o));
        if (auto [it, fresh] = producer.emplace(o, i); !fresh)
          bad(gp.node(i), fmt::format("output '{}' is also the output of node '{}' (output names must be unique)", o,
                                      gp.node(it->second).name()));
      }
    std::vector<int> indeg(static_cast<size_t>(gp.node_size()), 0);
    std::vector<std::vector<int>> users(static_cast<size_t>(gp.node_size()));
    for (int i = 0; i < gp.node_size(); ++i) {
      for (const auto& in : gp.node(i).input()) {
        if (in.empty()) continue;
        auto p = producer.find(in);
        if (p != producer.end()) {
          ++indeg[static_cast<size_t>(i)];
          users[static_cast<size_t>(p->second)].push_back(i);
        } else if (!init_.count(in) && !inputs_.count(in)) {
          bad(gp.node(i),
              fmt::format("input '{}' is neither a graph input, an initializer nor the output of a node", in));
        }
      }
    }
    std::vector<int> order, ready;
    for (int i = 0; i < gp.node_size(); ++i)
      if (indeg[static_cast<size_t>(i)] == 0) ready.push_back(i);
    while (!ready.empty()) {
      std::sort(ready.begin(), ready.end(), std::greater<>());
      const int i = ready.back();
      ready.pop_back();
      order.push_back(i);
      for (int u : users[static_cast<size_t>(i)])
        if (--indeg[static_cast<size_t>(u)] == 0) ready.push_back(u);
    }
    if (static_cast<int>(order.size()) != gp.node_size()) {
      std::string names;
      for (int i = 0; i < gp.node_size(); ++i)
        if (indeg[static_cast<size_t>(i)] > 0) names += (names.empty() ? "" : ", ") + gp.node(i).name();
      fail("{}: the graph has a cycle through nodes {}", src_, names);
    }
    return order;
  }

  void add_input(const onnx::ValueInfoProto& v) {
    inputs_.insert(v.name());
    const auto& tt = v.type().tensor_type();
    std::vector<int64_t> d;
    for (const auto& dim : tt.shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() <= 0)
        fail("{}: input '{}' needs a static positive shape", src_, v.name());
      d.push_back(dim.dim_value());
    }
    if (const std::string e = dims_problem(d); !e.empty()) fail("{}: input '{}' {}", src_, v.name(), e);
    if (d.size() < 2 || d.size() > 4)
      fail("{}: input '{}' must be NCHW, N x rows x K or NC, it has {} dimensions", src_, v.name(), d.size());
    Node n;
    n.name = v.name();
    n.op = Op::Input;
    // A 3-D input (the rows of a batched MatMul) folds its batch into N.
    n.out = d.size() == 4   ? Shape{d[0], d[1], d[2], d[3]}
            : d.size() == 3 ? Shape{d[0] * d[1], d[2], 1, 1}
                            : Shape{d[0], d[1], 1, 1};
    if (tt.elem_type() == onnx::TensorProto::INT8 || tt.elem_type() == onnx::TensorProto::UINT8) {
      n.exp = 0;
      n.uint8 = tt.elem_type() == onnx::TensorProto::UINT8;  // held as value - 128
      q_[v.name()] = g_.add(n);
      if (d.size() == 3) batches_[v.name()] = d[0];
    } else if (tt.elem_type() == onnx::TensorProto::FLOAT) {
      float_input_ = v.name();
      n.real = true;
      float_input_node_ = n;
    } else {
      fail("{}: input '{}' must be int8, uint8 or float", src_, v.name());
    }
  }

  // A scale initializer: a power of two; returns its exponent.
  int scale_exp(const onnx::NodeProto& n, int k) const {
    const float v = float_scalar(n, k);
    int e = 0;
    const float m = std::frexp(v, &e);
    if (!(v > 0) || m != 0.5f)
      bad(n, fmt::format("scale {} is not a power of two; requantization here is a shift (multiplier + shift "
                         "requantization is not supported yet)",
                         v));
    return e - 1;
  }

  // A scale initializer: positive and finite; its exponent when it is a
  // power of two, else the nearest exponent and the value in `value`.
  int any_scale(const onnx::NodeProto& n, int k, float& value) const {
    const float v = float_scalar(n, k);
    check_scale(n, v);
    int e = 0;
    value = std::frexp(v, &e) == 0.5f ? 0.0f : v;
    return value == 0 ? e - 1 : static_cast<int>(std::lround(std::log2(v)));
  }
  void check_scale(const onnx::NodeProto& n, float v) const {
    if (!(v > 0) || !std::isfinite(v) || !std::isnormal(v))
      bad(n, fmt::format("scale {} must be positive, finite and normal", v));
  }

  // Per-axis power-of-two scales: their exponents.
  std::vector<int> scale_exps(const onnx::NodeProto& n, int k) const {
    std::vector<int> out;
    for (float v : float_values(n, k)) {
      int e = 0;
      if (!(v > 0) || std::frexp(v, &e) != 0.5f)
        bad(n, fmt::format("scale {} is not a power of two; requantization here is a shift (multiplier + shift "
                           "requantization is not supported yet)",
                           v));
      out.push_back(e - 1);
    }
    return out;
  }

  // The zero point of an activation (one value; int8 domain: a uint8 one
  // less 128); `uint8` says its type. An absent one is 0 of the type
  // `absent_uint8` says (QuantizeLinear's default is uint8).
  int32_t zero_point(const onnx::NodeProto& n, int k, bool& uint8, bool absent_uint8) const {
    if (n.input_size() <= k || n.input(k).empty()) {
      uint8 = absent_uint8;
      return uint8 ? -128 : 0;
    }
    const auto& t = initializer(n, k);
    if (t.data_type() != onnx::TensorProto::UINT8 && t.data_type() != onnx::TensorProto::INT8)
      bad(n, fmt::format("zero point '{}' must be int8 or uint8", t.name()));
    uint8 = t.data_type() == onnx::TensorProto::UINT8;
    const std::vector<int64_t> v = int_values(t, n);
    if (v.size() != 1) bad(n, fmt::format("zero point '{}' of an activation must be one value", t.name()));
    return static_cast<int32_t>(uint8 ? v[0] - 128 : v[0]);
  }

  // Bias zero points: absent, or all 0.
  void zero_point_is_zero(const onnx::NodeProto& n, int k) const {
    if (n.input_size() <= k || n.input(k).empty()) return;
    const std::vector<int64_t> v = int_values(initializer(n, k), n);
    for (size_t c = 0; c < v.size(); ++c)
      if (v[c] != 0)
        bad(n, fmt::format("zero point '{}' is {}{}: bias zero points must be 0", n.input(k), v[c],
                           v.size() > 1 ? fmt::format(" at channel {}", c) : ""));
  }

  // Weight zero points (int8 domain), one or one per channel, of the
  // weight's own type; per-channel ones must be equal (ONNX Runtime 1.17's
  // QLinearConv fails others: "zero point of per-channel filter must be same").
  std::vector<int32_t> weight_zero_points(const onnx::NodeProto& n, int k, bool uint8) const {
    if (n.input_size() <= k || n.input(k).empty()) return uint8 ? std::vector<int32_t>{-128} : std::vector<int32_t>{};
    const auto& t = initializer(n, k);
    if (t.data_type() != (uint8 ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8))
      bad(n, fmt::format("zero point '{}' must be {} like the weight", t.name(), uint8 ? "uint8" : "int8"));
    const std::vector<int64_t> v = int_values(t, n);
    std::vector<int32_t> out;
    for (size_t c = 0; c < v.size(); ++c) {
      if (v[c] != v[0])
        bad(n, fmt::format("zero point '{}' is {} at channel {} and {} at channel 0: per-channel weight zero points "
                           "must be equal (ONNX Runtime's QLinearConv takes one)",
                           n.input(k), v[c], c, v[0]));
      out.push_back(static_cast<int32_t>(uint8 ? v[c] - 128 : v[c]));
    }
    if (std::all_of(out.begin(), out.end(), [](int32_t z) { return z == 0; })) out.clear();
    return out;
  }

  // The weight zero point on a conv / dense node: subtracted into the int8
  // weights where every w - z fits (VTA runs the node as symmetric), else
  // kept as Node::w_zp (host: (x - x_zp)(w - w_zp) in int32).
  static void apply_weight_zero_point(Node& out, const Weight& w) {
    if (w.zps.empty()) return;
    const int32_t z = w.zps[0];
    const bool fits =
        std::all_of(out.weight.begin(), out.weight.end(), [&](int16_t v) { return v - z >= -128 && v - z <= 127; });
    if (!fits) {
      out.w_zp = z;
      return;
    }
    for (auto& v : out.weight.mut()) v = static_cast<int16_t>(v - z);
  }

  const Act& act(const onnx::NodeProto& n, int k) const {
    auto it = acts_.find(n.input(k));
    if (it == acts_.end()) bad(n, fmt::format("input '{}' must be a dequantized int8 activation", n.input(k)));
    return it->second;
  }

  // The default domain's opset (check_model_form() made sure there is one).
  int64_t opset() const {
    for (const auto& o : m_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
    return 0;
  }

  // An activation whose scale is a power of two (Add and the pools requantize by shifts).
  const Act& pow2_act(const onnx::NodeProto& n, int k) const {
    const Act& a = act(n, k);
    if (a.scale != 0)
      bad(n, fmt::format("input '{}' has the scale {}, not a power of two (supported for Conv, Gemm, Add and the "
                         "average pools, not after ReduceSum)",
                         n.input(k), a.scale));
    return a;
  }

  void handle(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") bad(n, fmt::format("domain '{}' is not supported", n.domain()));
    auto need = [&](int count) {
      if (n.input_size() < count || n.output_size() < 1) bad(n, fmt::format("needs {} inputs and an output", count));
    };
    IntegerImport integer{*this, g_, q_, batches_, views_, chains_, uses_};
    if (import_integer_requant(n, integer)) return;
    if (op == "QuantizeLinear") {
      need(2);
      only_attrs(n, {"axis"});
      float fs = 0;
      const int exp = any_scale(n, 1, fs);
      bool u8 = true;
      const int32_t zp = zero_point(n, 2, u8, true);
      if (n.input(0) == float_input_) {
        // A float graph input: one float Input node and one host Quantize
        // node (ONNX Runtime's QuantizeLinear, any scale and zero point),
        // however many QuantizeLinear nodes read it with the same parameters.
        const double scale = fs != 0 ? fs : std::ldexp(1.0, exp);
        if (float_input_id_ < 0) {
          const int in = g_.add(float_input_node_);
          Node qn;
          qn.name = n.name().empty() ? n.output(0) : n.name();
          qn.op = Op::Quantize;
          qn.inputs = {in};
          qn.out = float_input_node_.out;
          qn.exp = exp, qn.scale = scale, qn.zp = zp, qn.uint8 = u8;
          float_input_id_ = g_.add(std::move(qn));
        } else if (const Node& q = g_.at(float_input_id_); q.scale != scale || q.zp != zp || q.uint8 != u8) {
          bad(n, fmt::format("input '{}' is quantized again with another scale or zero point ({} and {}, first {} "
                             "and {})",
                             n.input(0), scale, zp + (u8 ? 128 : 0), q.scale, q.zp + (q.uint8 ? 128 : 0)));
        }
        q_[n.output(0)] = float_input_id_;
        return;
      }
      if (auto s = same_.find(n.input(0)); s != same_.end()) {
        // DQ -> MaxPool / Flatten / Reshape -> Q: ONNX Runtime drops the pair
        // and runs the op on the 8-bit tensor when the scales and zero points agree.
        const Act& a = s->second;
        const bool a_u8 = g_.at(a.node).uint8;
        if (fs != a.scale || exp != a.exp || zp != a.zp || u8 != a_u8)
          bad(n, fmt::format("'{}' is quantized with scale {} and zero point {} ({}), its input was dequantized with "
                             "scale {} and zero point {} ({}): supported where they are equal (the 8-bit op keeps "
                             "the values)",
                             n.input(0), fs != 0 ? fs : std::ldexp(1.0f, exp), zp + (u8 ? 128 : 0),
                             u8 ? "uint8" : "int8", a.value(), a.zp + (a_u8 ? 128 : 0), a_u8 ? "uint8" : "int8"));
        q_[n.output(0)] = a.node;
        return;
      }
      if (auto a = acts_.find(n.input(0)); a != acts_.end()) {
        // A change of 8-bit type at the same scale and zero point (int8 x as
        // uint8 x + 128 for ConvInteger, onnx_export.cpp): the same values.
        if (fs != 0 || a->second.scale != 0 || exp != a->second.exp || zp != a->second.zp || !u8 ||
            g_.at(a->second.node).uint8)
          bad(n, fmt::format("QuantizeLinear of the dequantized '{}' must turn int8 into uint8 at the same scale "
                             "and zero point + 128 (a uint8 view for ConvInteger / MatMulInteger)",
                             n.input(0)));
        views_[n.output(0)] = a->second.node;
        return;
      }
      auto it = pending_.find(n.input(0));
      if (it == pending_.end())
        bad(n, fmt::format("input '{}' is not the result of Conv, Gemm, Add or a pool", n.input(0)));
      // A copy: one float result may feed several QuantizeLinear nodes (legal
      // fan-out), each of which gets its own requantized node.
      Pending p = it->second;
      if (p.node.op == Op::Concat) {
        finish_concat(p.node, fs != 0 ? fs : std::ldexp(1.0f, exp), exp, zp, u8, n);
      } else if (fs != 0 || p.float_rq || p.ort_in) {
        finish_float(p, fs != 0 ? fs : std::ldexp(1.0f, exp), exp, zp, u8, n);
      } else {
        finish(p, exp, n);
        set_output_zero_point(p.node, zp, u8);
      }
      q_[n.output(0)] = g_.add(std::move(p.node));
      g_.nodes.back().name = n.output(0);
      return;
    }
    if (op == "DequantizeLinear") {
      need(2);
      only_attrs(n, {"axis"});
      if (auto q = q_.find(n.input(0)); q != q_.end()) {
        // An 8-bit graph input takes its scale and zero point from its DequantizeLinear.
        Node& src = g_.nodes[static_cast<size_t>(q->second)];
        if (src.int32_out)
          bad(n,
              fmt::format("input '{}' is int32 (DequantizeLinear of int32 activations is not supported)", n.input(0)));
        float fs = 0;
        const int exp = any_scale(n, 1, fs);
        bool u8 = src.uint8;
        const int32_t zp = zero_point(n, 2, u8, src.uint8);
        if (u8 != src.uint8) bad(n, fmt::format("zero point type differs from the type of '{}'", n.input(0)));
        if (src.op == Op::Input) src.exp = exp, src.zp = zp;
        acts_[n.output(0)] = Act{q->second, exp, zp, fs};
        return;
      }
      const auto& t = initializer(n, 0);
      const bool w_u8 = t.data_type() == onnx::TensorProto::UINT8;
      const bool is_weight = w_u8 || t.data_type() == onnx::TensorProto::INT8;
      std::vector<int32_t> wzps;
      if (is_weight)
        wzps = weight_zero_points(n, 2, w_u8);
      else
        zero_point_is_zero(n, 2);
      const std::vector<float> fscales = float_values(n, 1);
      for (float v : fscales) check_scale(n, v);
      bool pow2 = true;
      for (float v : fscales) {
        int e = 0;
        pow2 = pow2 && std::frexp(v, &e) == 0.5f;
      }
      const std::vector<int> exps = pow2 ? scale_exps(n, 1) : std::vector<int>(fscales.size(), 0);
      if (exps.size() > 1 && attr_i(n, "axis", 1) != 0)
        bad(n, "per-axis scales are supported along axis 0 (the output channels) only");
      const std::vector<int64_t> v = int_values(t, n);
      if (is_weight) {
        Weight w{{}, {t.dims().begin(), t.dims().end()}, exps, fscales, std::move(wzps)};
        for (int64_t x : v) w.data.push_back(static_cast<int16_t>(w_u8 ? x - 128 : x));
        weights_[n.output(0)] = std::move(w);
      } else {
        Bias b;
        for (auto x : v) b.data.push_back(static_cast<int32_t>(x));
        b.exps = exps;
        b.scales = fscales;
        biases_[n.output(0)] = std::move(b);
      }
      return;
    }
    if (op == "Conv" || op == "Gemm") {
      need(2);
      const bool conv = op == "Conv";
      const Act& x = act(n, 0);
      auto w = weights_.find(n.input(1));
      if (w == weights_.end()) bad(n, fmt::format("weight '{}' must be a dequantized int8 initializer", n.input(1)));
      Pending p;
      Node& out = p.node;
      out.name = n.name();
      out.op = conv ? Op::Conv2d : Op::Dense;
      out.inputs = {x.node};
      Shape is = g_.at(x.node).out;
      if (conv) {
        only_attrs(n, {"kernel_shape", "strides", "pads", "group", "dilations", "auto_pad"});
        const auto [k, s, pad] = window(n, is);
        out.kernel = k, out.stride = s, out.pad = pad, out.groups = attr_i(n, "group", 1);
        if (pad > 0 && x.zp != 0) {
          // ONNX pads the dequantized input with 0, the zero point: a host
          // Pad gives that; VTA's loads pad with 0 (the int8 value 0).
          Node pd;
          pd.name = n.name() + ".pad";
          pd.op = Op::Pad;
          pd.inputs = {x.node};
          pd.pad = pad;
          pd.x_zp = pd.zp = x.zp;
          pd.exp = x.exp;
          pd.uint8 = g_.at(x.node).uint8;
          pd.out = Shape{is.n, is.c, is.h + 2 * pad, is.w + 2 * pad};
          out.inputs = {g_.add(pd)};
        }
        // first, so that dims[1] * group below cannot overflow
        if (out.groups != 1 && out.groups != is.c) bad(n, "attribute group must be 1 or the channel count (depthwise)");
        if (w->second.dims.size() != 4 || w->second.dims[2] != k || w->second.dims[3] != k ||
            w->second.dims[1] * out.groups != is.c)
          bad(n, "weight dims must be [O, C/group, K, K] matching the input");
        out.out = Shape{is.n, w->second.dims[0], (is.h + 2 * pad - k) / s + 1, (is.w + 2 * pad - k) / s + 1};
        out.weight = w->second.data;
        if (out.inputs[0] != x.node) out.pad = 0;
      } else {
        only_attrs(n, {"transB", "transA", "alpha", "beta"});
        if (attr_i(n, "transA", 0) != 0) bad(n, "attribute transA must be 0");
        for (const auto& a : n.attribute())
          if ((a.name() == "alpha" || a.name() == "beta") && a.f() != 1.0f)
            bad(n, fmt::format("attribute {} must be 1", a.name()));
        const auto& d = w->second.dims;
        const int64_t inner = is.c * is.h * is.w;
        if (d.size() != 2) bad(n, "weight must be 2-D");
        const bool tb = attr_i(n, "transB", 0) != 0;
        const int64_t o = tb ? d[0] : d[1], i = tb ? d[1] : d[0];
        if (i != inner) bad(n, fmt::format("weight has {} inputs, the activation {}", i, inner));
        out.weight.resize(static_cast<size_t>(o * i));
        for (int64_t r = 0; r < o; ++r)
          for (int64_t c = 0; c < i; ++c)
            out.weight[static_cast<size_t>(r * i + c)] =
                w->second.data[static_cast<size_t>(tb ? r * i + c : c * o + r)];
        out.out = Shape{is.n, o, 1, 1};
      }
      const std::vector<int>& we = w->second.exps;
      const std::vector<float>& wsc = w->second.scales;
      if (wsc.size() != 1 && static_cast<int64_t>(wsc.size()) != out.out.c)
        bad(n, fmt::format("the weight has {} scales for {} output channels", wsc.size(), out.out.c));
      bool w_pow2 = true;
      for (float v : wsc) {
        int e = 0;
        w_pow2 = w_pow2 && std::frexp(v, &e) == 0.5f;
      }
      apply_weight_zero_point(out, w->second);
      if (x.scale != 0 || !w_pow2 || out.w_zp != 0) {
        // Scales that are not powers of two, or a weight zero point: ONNX
        // Runtime fuses DQ -> Conv / Gemm -> Q into QLinearConv /
        // QLinearMatMul, whose int32 bias has the scale x_scale * w_scale and
        // whose requantization is in float.
        p.float_rq = true;
        p.x_scale = x.scale != 0 ? x.scale : std::ldexp(1.0f, x.exp);
        p.w_scales = wsc;
        if (n.input_size() > 2 && !n.input(2).empty()) {
          auto b = biases_.find(n.input(2));
          if (b == biases_.end()) bad(n, fmt::format("bias '{}' must be a dequantized int32 initializer", n.input(2)));
          if (static_cast<int64_t>(b->second.data.size()) != out.out.c)
            bad(n, "bias length differs from the output channels");
          const auto& bs = b->second.scales;
          for (int64_t c = 0; c < out.out.c; ++c) {
            const float want = p.x_scale * wsc[wsc.size() == 1 ? 0 : static_cast<size_t>(c)];
            const float got = bs[bs.size() == 1 ? 0 : static_cast<size_t>(c)];
            if (std::abs(got - want) > want * 1e-6f)
              bad(n, fmt::format("bias scale {} of channel {} is not input scale x weight scale ({})", got, c, want));
          }
          out.bias = b->second.data;
        }
        if (out.w_zp != 0)
          out.x_zp = x.zp;  // (x - x_zp)(w - w_zp) on the host; a Pad node pads with x_zp
        else
          fold_input_zero_point(out, x.zp, n);
        p.in_exps = {x.exp};
        pending_[n.output(0)] = std::move(p);
        return;
      }
      // Per-channel weight scales: each channel's accumulator moves to the
      // scale of the finest one (Node::lshift).
      if (we.size() != 1 && static_cast<int64_t>(we.size()) != out.out.c)
        bad(n, fmt::format("the weight has {} scales for {} output channels", we.size(), out.out.c));
      auto wexp = [&](int64_t c) { return we.size() == 1 ? we[0] : we[static_cast<size_t>(c)]; };
      const int emin = *std::min_element(we.begin(), we.end());
      const int bias_exp = x.exp + emin;
      if (*std::max_element(we.begin(), we.end()) != emin)
        for (int64_t c = 0; c < out.out.c; ++c) out.lshift.push_back(static_cast<int8_t>(wexp(c) - emin));
      if (n.input_size() > 2 && !n.input(2).empty()) {
        auto b = biases_.find(n.input(2));
        if (b == biases_.end()) bad(n, fmt::format("bias '{}' must be a dequantized int32 initializer", n.input(2)));
        if (static_cast<int64_t>(b->second.data.size()) != out.out.c)
          bad(n, "bias length differs from the output channels");
        const auto& be = b->second.exps;
        for (int64_t c = 0; c < out.out.c; ++c)
          if ((be.size() == 1 ? be[0] : be.at(static_cast<size_t>(c))) != x.exp + wexp(c))
            bad(n, "bias scale must be input scale x weight scale (per output channel)");
        out.bias = b->second.data;
      }
      fold_input_zero_point(out, x.zp, n);
      p.in_exps = {bias_exp};
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Relu") {
      need(1);
      auto it = pending_.find(n.input(0));
      if (it == pending_.end() || it->second.node.op == Op::Lookup || it->second.node.op == Op::Mul ||
          it->second.node.op == Op::Softmax)
        bad(n, "Relu must follow Conv, Gemm or Add (before QuantizeLinear)");
      Pending p = it->second;
      p.node.relu = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Add" && pending_.count(n.input(0)) && n.input_size() == 2 && init_.count(n.input(1))) {
      // The half-up tie offset before QuantizeLinear; finish() checks its value.
      Pending p = pending_.at(n.input(0));
      if (p.offset_exp != Pending::kNoOffset) bad(n, "a second rounding offset");
      p.offset_exp = scale_exp(n, 1);
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "ReduceSum") {
      need(2);
      only_attrs(n, {"keepdims", "noop_with_empty_axes"});
      const Act& x = pow2_act(n, 0);
      std::vector<int64_t> axes = int_values(initializer(n, 1), n);
      for (auto& a : axes)
        if (a < 0) a += 4;
      if (axes != std::vector<int64_t>{2, 3} || attr_i(n, "keepdims", 1) != 1)
        bad(n, "only the sum over H and W with keepdims 1 (a global average pool) is supported");
      Pending p;
      p.node.name = n.name();
      p.node.op = Op::GlobalAvgPool;
      p.node.inputs = {x.node};
      p.node.x_zp = x.zp;
      const Shape is = g_.at(x.node).out;
      p.node.out = Shape{is.n, is.c, 1, 1};
      p.node.mult = 4096;
      p.in_exps = {x.exp};
      p.reduce_sum = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Mul" && acts_.count(n.input(0)) && n.input_size() == 2 && acts_.count(n.input(1))) {
      // DQ, DQ -> Mul -> Q: ONNX Runtime's QLinearMul (host), the smaller
      // operand N x C x 1 x 1 broadcast over H x W (squeeze-excitation)
      const Act& x = act(n, 0);
      const Act& y = act(n, 1);
      const bool swap = g_.at(x.node).out.size() < g_.at(y.node).out.size();
      const Act& a = swap ? y : x;
      const Act& b = swap ? x : y;
      const Shape sa = g_.at(a.node).out, sb = g_.at(b.node).out;
      if (!(sa == sb) && !(sb.n == sa.n && sb.c == sa.c && sb.h == 1 && sb.w == 1))
        bad(n, fmt::format("inputs are {}x{}x{}x{} and {}x{}x{}x{}: supported with the same shape or one N x C x 1 x 1 "
                           "(broadcast over H x W)",
                           sa.n, sa.c, sa.h, sa.w, sb.n, sb.c, sb.h, sb.w));
      Pending p;
      p.node.name = n.name();
      p.node.op = Op::Mul;
      p.node.inputs = {a.node, b.node};
      p.node.x_zp = a.zp, p.node.w_zp = b.zp;
      p.node.out = sa;
      p.in_exps = {a.exp, b.exp};
      p.in_scales = {a.value(), b.value()};
      p.ort_in = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish") {
      need(1);
      if (op == "HardSwish" && opset() < 14)
        bad(n, fmt::format("HardSwish is an operator of opset 14 and later; the model's opset is {}", opset()));
      if (op == "HardSigmoid")
        only_attrs(n, {"alpha", "beta"});
      else
        only_attrs(n, {});
      if (!acts_.count(n.input(0))) bad(n, fmt::format("input '{}' must be a DequantizeLinear output", n.input(0)));
      const Act& x = act(n, 0);
      Pending p;
      p.node.name = n.name().empty() ? n.output(0) : n.name();
      p.node.op = Op::Lookup;
      p.node.lookup.onnx_op = op;
      p.node.inputs = {x.node};
      p.node.x_zp = x.zp;
      p.node.out = g_.at(x.node).out;
      p.in_exps = {x.exp};
      p.in_scales = {x.value()};
      p.ort_in = true;
      if (op == "HardSigmoid") p.alpha = attr_f(n, "alpha", 0.2f), p.beta = attr_f(n, "beta", 0.5f);
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Softmax") {
      // DQ -> Softmax -> Q over the logits of Gemm or Flatten (2-D in ONNX):
      // ONNX Runtime's QLinearSoftmax (host)
      need(1);
      only_attrs(n, {"axis"});
      if (!acts_.count(n.input(0))) bad(n, fmt::format("input '{}' must be a DequantizeLinear output", n.input(0)));
      const Act& x = act(n, 0);
      const Node& src = g_.at(x.node);
      const int64_t axis = attr_i(n, "axis", opset() < 13 ? 1 : -1);
      if ((src.op != Op::Dense && src.op != Op::Flatten) || (axis != 1 && axis != -1))
        bad(n, fmt::format("supported over the last axis of a 2-D tensor (the output of Gemm or Flatten), not axis "
                           "{} of the output of {}",
                           axis, op_name(src.op)));
      // ONNX Runtime 1.17 fuses it for uint8 only; int8 runs its float
      // Softmax (MLAS's exp), whose roundings are not reproduced (115 of 2 560
      // codes differed from QLinearSoftmax's form, tests/test_onnx_ort_unary.cpp)
      if (!src.uint8)
        bad(n, fmt::format("input '{}' is int8: ONNX Runtime runs an int8 Softmax in float (MLAS's exp), which is "
                           "not reproduced bit for bit (quantize with uint8 activations)",
                           n.input(0)));
      Pending p;
      p.node.name = n.name();
      p.node.op = Op::Softmax;
      p.node.inputs = {x.node};
      p.node.x_zp = x.zp;
      p.node.out = src.out;
      p.in_exps = {x.exp};
      p.in_scales = {x.value()};
      p.ort_in = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Mul") {
      need(2);
      auto it = pending_.find(n.input(0));
      if (it == pending_.end() || !it->second.reduce_sum || it->second.scaled || it->second.node.relu ||
          it->second.offset_exp != Pending::kNoOffset)
        bad(n,
            "Mul is supported between two DequantizeLinear outputs (QLinearMul) or right after a ReduceSum over H "
            "and W (a global average pool)");
      const double m = std::ldexp(static_cast<double>(float_scalar(n, 1)), 12);
      if (!(m >= 1 && m <= 4096 && m == std::floor(m)))
        bad(n, fmt::format("the multiplier {} is not k * 2^-12 with k in 1..4096", float_scalar(n, 1)));
      Pending p = it->second;
      p.node.mult = static_cast<int32_t>(m);
      p.scaled = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Add") {
      need(2);
      const Act& a = act(n, 0);
      const Act& b = act(n, 1);
      if (!(g_.at(a.node).out == g_.at(b.node).out)) bad(n, "inputs must have the same shape (no broadcasting)");
      Pending p;
      p.node.name = n.name();
      p.node.op = Op::Add;
      p.node.inputs = {a.node, b.node};
      p.node.x_zp = a.zp, p.node.w_zp = b.zp;
      p.node.out = g_.at(a.node).out;
      p.in_exps = {a.exp, b.exp};
      p.in_scales = {a.value(), b.value()};
      p.ort_in = a.scale != 0 || b.scale != 0;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "AveragePool" || op == "GlobalAveragePool") {
      need(1);
      const Act& x = act(n, 0);
      const Shape is = g_.at(x.node).out;
      Pending p;
      p.node.name = n.name();
      p.node.inputs = {x.node};
      p.node.x_zp = x.zp;
      p.in_exps = {x.exp};
      p.in_scales = {x.value()};
      p.ort_in = x.scale != 0;
      if (op == "AveragePool") {
        only_attrs(n, {"kernel_shape", "strides", "pads", "auto_pad", "count_include_pad", "ceil_mode"});
        const auto [k, s, pad] = window(n, is);
        if (attr_i(n, "ceil_mode", 0) != 0) bad(n, "attribute ceil_mode must be 0");
        // ONNX Runtime's float form (any input scale): any unpadded window;
        // the shift form: non-overlapping windows of a power-of-two size.
        if (pad != 0 || (!p.ort_in && (s != k || !std::has_single_bit(static_cast<uint64_t>(k * k)))))
          bad(n,
              "only unpadded windows (non-overlapping, of a power-of-two size, where the scales are powers of "
              "two) are supported");
        p.node.op = Op::AvgPool;
        p.node.pool = k, p.node.pool_stride = s;
        p.node.out = Shape{is.n, is.c, (is.h - k) / s + 1, (is.w - k) / s + 1};
      } else {
        p.node.op = Op::GlobalAvgPool;
        p.node.out = Shape{is.n, is.c, 1, 1};
      }
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Concat") {
      need(2);
      only_attrs(n, {"axis"});
      const Shape s0 = g_.at(act(n, 0).node).out;
      const int64_t axis = attr_i(n, "axis", 0);
      if (axis != 1 && axis != -3)
        bad(n, fmt::format("attribute axis is {}: supported along the channels (1) only", axis));
      Pending p;
      p.node.name = n.name();
      p.node.op = Op::Concat;
      p.node.out = Shape{s0.n, 0, s0.h, s0.w};
      for (int k = 0; k < n.input_size(); ++k) {
        const Act& a = act(n, k);
        const Shape s = g_.at(a.node).out;
        if (s.n != s0.n || s.h != s0.h || s.w != s0.w)
          bad(n, fmt::format("input '{}' is {}x{}x{}x{}, the first {}x{}x{}x{}: the dims other than C must agree",
                             n.input(k), s.n, s.c, s.h, s.w, s0.n, s0.c, s0.h, s0.w));
        // ONNX Runtime's QLinearConcat is uint8 only: on x86-64 it turns an
        // int8 QDQ graph into uint8 around it, and convolutions next to it
        // then read uint8 and write int8, which it leaves unfused, in float.
        if (!g_.at(a.node).uint8)
          bad(n, fmt::format("input '{}' is int8: ONNX Runtime converts int8 around Concat to uint8 and runs the "
                             "convolutions next to it in float, which is not reproduced bit for bit (quantize with "
                             "uint8 activations)",
                             n.input(k)));
        p.node.inputs.push_back(a.node);
        p.node.in_scales.push_back(a.value());
        p.node.in_zps.push_back(a.zp);
        p.node.out.c += s.c;
      }
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "MaxPool" || op == "Flatten" || op == "Reshape" || op == "Pad" || op == "Resize") {
      need(op == "Reshape" || op == "Pad" ? 2 : 1);
      // On an 8-bit tensor, or on its DequantizeLinear (ONNX Runtime's
      // quantizer writes DQ -> op -> Q at one scale): the op on the 8-bit values.
      int src = -1;
      const Act* via = nullptr;
      if (auto it = q_.find(n.input(0)); it != q_.end()) {
        src = it->second;
      } else if (auto a = acts_.find(n.input(0)); a != acts_.end()) {
        src = a->second.node, via = &a->second;
      } else {
        bad(n, fmt::format("input '{}' must be an 8-bit tensor or its DequantizeLinear", n.input(0)));
      }
      const Node& in = g_.at(src);
      Node out;
      out.name = n.output(0);
      out.inputs = {src};
      out.exp = in.exp;
      out.zp = in.zp, out.uint8 = in.uint8;
      if (op == "Pad") {
        if (!via) bad(n, "Pad is supported on a DequantizeLinear output (it pads with the zero point)");
        out.op = Op::Pad;
        out.pad = symmetric_hw_pad(n);
        out.x_zp = out.zp = via->zp;
        out.out = Shape{in.out.n, in.out.c, in.out.h + 2 * out.pad, in.out.w + 2 * out.pad};
      } else if (op == "Resize") {
        out.op = Op::Upsample;
        out.pool = nearest_factor(n, in.out);
        out.out = Shape{in.out.n, in.out.c, in.out.h * out.pool, in.out.w * out.pool};
      } else if (op == "MaxPool") {
        only_attrs(n, {"kernel_shape", "strides", "pads", "auto_pad", "dilations", "ceil_mode", "storage_order"});
        const auto [k, s, pad] = window(n, in.out);
        out.op = Op::MaxPool;
        out.pool = k, out.pool_stride = s, out.pool_pad = pad;
        out.out = Shape{in.out.n, in.out.c, (in.out.h + 2 * pad - k) / s + 1, (in.out.w + 2 * pad - k) / s + 1};
      } else if (op == "Flatten") {
        only_attrs(n, {"axis"});
        if (attr_i(n, "axis", 1) != 1) bad(n, "attribute axis must be 1");
        out.op = Op::Flatten;
        out.out = Shape{in.out.n, in.out.c * in.out.h * in.out.w, 1, 1};
      } else {
        only_attrs(n, {"allowzero"});
        reshape_is_flatten(n, in.out);
        out.op = Op::Flatten;
        out.out = Shape{in.out.n, in.out.c * in.out.h * in.out.w, 1, 1};
      }
      const int id = g_.add(std::move(out));
      if (via)
        same_[n.output(0)] = Act{id, via->exp, via->zp, via->scale};
      else
        q_[n.output(0)] = id;
      return;
    }
    if (import_integer_op(n, integer)) return;
    bad(n,
        "operator is not supported (QuantizeLinear, DequantizeLinear, Conv, Gemm, Relu, Add, Mul, Sigmoid, "
        "HardSigmoid, HardSwish, Softmax, Resize, MaxPool, AveragePool, GlobalAveragePool, Flatten, Reshape, Concat, "
        "Pad, "
        "QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger)");
  }

  // Resize in nearest mode by one integer factor f in H and W (scales [1, 1,
  // f, f] or sizes [N, C, f H, f W]) where output pixel y reads input y / f:
  // half_pixel (or pytorch_half_pixel) coordinates rounded to the nearest,
  // or asymmetric ones rounded down. Returns f; anything else is refused.
  int64_t nearest_factor(const onnx::NodeProto& n, const Shape& in) const {
    only_attrs(n, {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                   "extrapolation_value"});
    std::string mode = "nearest", ct = "half_pixel", nm = "round_prefer_floor";
    for (const auto& a : n.attribute()) {
      if (a.name() == "mode") mode = a.s();
      if (a.name() == "coordinate_transformation_mode") ct = a.s();
      if (a.name() == "nearest_mode") nm = a.s();
    }
    if (mode != "nearest") bad(n, fmt::format("attribute mode is '{}': only 'nearest' is supported", mode));
    const bool half =
        (ct == "half_pixel" || ct == "pytorch_half_pixel") && (nm == "round_prefer_floor" || nm == "round_prefer_ceil");
    if (!half && !(ct == "asymmetric" && nm == "floor"))
      bad(n, fmt::format("coordinate_transformation_mode '{}' with nearest_mode '{}': supported are half_pixel (or "
                         "pytorch_half_pixel) rounded to the nearest, and asymmetric with floor",
                         ct, nm));
    std::vector<int64_t> f;
    const int k = opset() < 11 ? 1 : 2;  // opset 10: X, scales; 11 and later: X, roi, scales, sizes
    if (n.input_size() > k && !n.input(k).empty()) {
      for (float v : float_values(n, k))
        f.push_back(v == std::floor(v) && v >= 1 && v <= 16 ? static_cast<int64_t>(v) : -1);
    } else if (n.input_size() > 3 && !n.input(3).empty()) {
      const std::vector<int64_t> sz = int_values(initializer(n, 3), n);
      const std::vector<int64_t> dims{in.n, in.c, in.h, in.w};
      for (size_t i = 0; i < sz.size() && i < 4; ++i) f.push_back(sz[i] % dims[i] == 0 ? sz[i] / dims[i] : -1);
    }
    if (f.size() != 4 || f[0] != 1 || f[1] != 1 || f[2] != f[3] || f[2] < 1 || f[2] > 16)
      bad(n, "supported with scales [1, 1, f, f] (or the sizes they give), f a whole number from 1 to 16");
    return f[2];
  }

  // Pad in constant mode with the value 0 (the zero point once quantized)
  // and pads [0, 0, p, p, 0, 0, p, p]: p; anything else is refused, naming it.
  int64_t symmetric_hw_pad(const onnx::NodeProto& n) const {
    only_attrs(n, {"mode"});
    for (const auto& a : n.attribute())
      if (a.s() != "constant") bad(n, fmt::format("attribute mode is '{}': only 'constant' is supported", a.s()));
    if (n.input_size() > 3 && !n.input(3).empty()) bad(n, "the input axes is not supported (pads of all 4 dims)");
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const auto& cv = initializer(n, 2);
      if (cv.data_type() != onnx::TensorProto::FLOAT || float_values(n, 2) != std::vector<float>{0.0f})
        bad(n, fmt::format("constant_value '{}' must be float 0 (the zero point)", n.input(2)));
    }
    const std::vector<int64_t> p = int_values(initializer(n, 1), n);
    const int64_t v = p.size() == 8 ? p[2] : -1;
    if (p != std::vector<int64_t>{0, 0, v, v, 0, 0, v, v} || v < 0 || v > 15) {
      std::string s;
      for (int64_t d : p) s += (s.empty() ? "" : ", ") + std::to_string(d);
      bad(n, fmt::format("pads [{}]: supported as [0, 0, p, p, 0, 0, p, p] with p in 0..15 (H and W alike)", s));
    }
    return v;
  }

  // A Reshape whose shape initializer gives [N, C*H*W] (0 copies a dim, -1
  // is the rest): a flatten; anything else is refused, naming the shape.
  void reshape_is_flatten(const onnx::NodeProto& n, const Shape& is) const {
    const std::vector<int64_t> want = int_values(initializer(n, 1), n);
    const bool allowzero = attr_i(n, "allowzero", 0) != 0;
    const int64_t in_dims[4] = {is.n, is.c, is.h, is.w};
    const int64_t rest = is.c * is.h * is.w;
    bool ok = want.size() == 2;
    for (size_t i = 0; ok && i < 2; ++i) {
      const int64_t d = want[i] == 0 && !allowzero ? in_dims[i] : want[i];
      ok = d == (i == 0 ? is.n : rest) || (d == -1 && want[1 - i] != -1);
    }
    if (!ok) {
      std::string s;
      for (int64_t d : want) s += (s.empty() ? "" : ", ") + std::to_string(d);
      bad(n, fmt::format("shape [{}] of a {}x{}x{}x{} input: supported as a flatten to [{}, {}] only", s, is.n, is.c,
                         is.h, is.w, is.n, rest));
    }
  }

  // The float graph output: ONNX Runtime's DequantizeLinear of `a` on the host.
  int add_dequantize(const std::string& name, const Act& a) {
    Node d;
    d.name = name;
    d.op = Op::Dequantize;
    d.inputs = {a.node};
    d.out = g_.at(a.node).out;
    d.real = true;
    d.scale = a.value();
    d.x_zp = a.zp;
    d.exp = a.exp;
    if (g_.at(a.node).int32_out) fail("{}: the output '{}' dequantizes an int32 tensor (not supported)", src_, name);
    return g_.add(std::move(d));
  }

  void finish(Pending& p, int exp, const onnx::NodeProto& q) {
    Node& n = p.node;
    n.exp = exp;
    switch (n.op) {
      case Op::Conv2d:
      case Op::Dense:
        n.shift = exp - p.in_exps[0];
        break;
      case Op::Add: {
        const int base = std::min(p.in_exps[0], p.in_exps[1]);
        n.shift_a = p.in_exps[0] - base, n.shift_b = p.in_exps[1] - base;
        n.shift = exp - base;
        break;
      }
      case Op::AvgPool:
        n.shift = std::countr_zero(static_cast<uint64_t>(n.pool * n.pool)) + exp - p.in_exps[0];
        break;
      case Op::GlobalAvgPool: {
        const Shape is = g_.at(n.inputs[0]).out;
        if (!p.reduce_sum) n.mult = static_cast<int32_t>(std::lround(4096.0 / static_cast<double>(is.h * is.w)));
        n.shift = 12 + exp - p.in_exps[0];
        break;
      }
      default:
        break;
    }
    if (n.shift < 0 || n.shift > 30)
      bad(q, fmt::format("output scale 2^{} gives a requantization shift of {} (0..30 supported)", exp, n.shift));
    // The offset makes QuantizeLinear round half up, as the shift does, only
    // when it is a quarter of the result's integer unit 2^(exp - shift).
    if (p.offset_exp != Pending::kNoOffset && p.offset_exp != exp - n.shift - 2)
      bad(q, fmt::format("the rounding offset 2^{} before it is not 2^{} (a quarter of the unit of its input)",
                         p.offset_exp, exp - n.shift - 2));
    // Without the export's tie offset QuantizeLinear rounds half to even.
    n.round_even = p.offset_exp == Pending::kNoOffset && n.shift > 0;
    if (!n.lshift.empty()) {  // the per-channel left shifts must not overflow the 32-bit accumulator
      const int64_t per_out = static_cast<int64_t>(n.weight.size()) / n.out.c;
      Node one = n;
      one.out.c = 1;
      for (int64_t c = 0; c < n.out.c; ++c) {
        one.bias = n.bias.empty() ? std::vector<int32_t>{} : std::vector<int32_t>{n.bias[static_cast<size_t>(c)]};
        one.weight.assign(n.weight.begin() + c * per_out, n.weight.begin() + (c + 1) * per_out);
        if ((acc_bound(one) << n.lshift[static_cast<size_t>(c)]) >= (int64_t{1} << 31) - (int64_t{1} << 15))
          bad(q, fmt::format("the per-channel scales of '{}' span 2^{}: its channel {} overflows 32 bits", n.name,
                             n.lshift[static_cast<size_t>(c)], c));
      }
    }
  }

  // QuantizeLinear with a float requantization: Conv / Gemm only. ONNX
  // Runtime's multiplier per channel: fl(fl(x_scale * w_scale) / y_scale).
  void finish_float(Pending& p, float y_scale, int exp, int32_t zp, bool u8, const onnx::NodeProto& q) {
    Node& n = p.node;
    if (p.offset_exp != Pending::kNoOffset) bad(q, "a rounding offset before a float requantization");
    if (n.op == Op::Lookup || n.op == Op::Mul || n.op == Op::Softmax) {
      finish_ort(p, y_scale, exp, zp, u8, q);
      return;
    }
    if (n.op == Op::Add || n.op == Op::AvgPool || n.op == Op::GlobalAvgPool) {
      if (p.reduce_sum) bad(q, fmt::format("the scale {} is not a power of two (after ReduceSum)", y_scale));
      finish_ort(p, y_scale, exp, zp, u8, q);
      return;
    }
    if (n.op != Op::Conv2d && n.op != Op::Dense)
      bad(q, fmt::format("the scale {} is not a power of two (supported after Conv, Gemm, Add and the average "
                         "pools only)",
                         y_scale));
    if (!p.float_rq)  // power-of-two input and weight scales
      bad(q, fmt::format("the scale {} is not a power of two while the input and weight scales of '{}' are "
                         "(supported when they are not)",
                         y_scale, n.name));
    n.exp = exp;
    n.scale = y_scale;
    n.zp = zp;
    n.uint8 = u8;
    n.round_even = true;
    for (float w : p.w_scales) {
      const float m = static_cast<float>(static_cast<double>(p.x_scale) * static_cast<double>(w)) / y_scale;
      if (!(m > 0) || !std::isfinite(m)) bad(q, fmt::format("the requantization multiplier of '{}' is {}", n.name, m));
      n.fmults.push_back(m);
    }
    n.fmult = n.fmults[0];
    if (std::all_of(n.fmults.begin(), n.fmults.end(), [&](float m) { return m == n.fmult; })) n.fmults.clear();
    if (n.w_zp != 0) return;  // w - w_zp leaves int8: the host (placement.cpp names the range)
    if (n.fmults.empty()) {
      if (const auto f = lower_float_requant(n.fmult, n.zp, n.relu, acc_bound(n))) n.frq = *f;
    } else {
      lower_float_requant_rows(n);
    }
  }

  // Concat: the output's scale and zero point; one 8-bit type throughout
  // (ONNX Runtime's QLinearConcat takes one).
  void finish_concat(Node& n, float y_scale, int exp, int32_t zp, bool u8, const onnx::NodeProto& q) const {
    n.exp = exp;
    n.scale = y_scale;
    n.zp = zp;
    n.uint8 = u8;
    for (int in : n.inputs)
      if (g_.at(in).uint8 != u8)
        bad(q, fmt::format("'{}' reads {} and writes {} (supported with one 8-bit type)", n.name,
                           g_.at(in).uint8 ? "uint8" : "int8", u8 ? "uint8" : "int8"));
  }

  // Add and the average pools with a scale that is not a power of two:
  // ONNX Runtime's QLinearAdd / QLinearAveragePool (Node::ort) and
  // QLinearGlobalAveragePool (its multiplier in Node::fmult), host only.
  void finish_ort(Pending& p, float y_scale, int exp, int32_t zp, bool u8, const onnx::NodeProto& q) {
    Node& n = p.node;
    n.exp = exp;
    n.scale = y_scale;
    n.zp = zp;
    n.uint8 = u8;
    n.round_even = true;
    for (int in : n.inputs)  // QLinearAdd and the QLinear pools take one 8-bit type throughout
      if (g_.at(in).uint8 != u8)
        bad(q, fmt::format("'{}' reads {} and writes {} (supported with one 8-bit type)", n.name,
                           g_.at(in).uint8 ? "uint8" : "int8", u8 ? "uint8" : "int8"));
    if (n.op == Op::GlobalAvgPool) {
      const Shape is = g_.at(n.inputs[0]).out;
      n.mult = 1;
      n.fmult = global_avg_pool_scale_ort(p.in_scales[0], y_scale, is.h * is.w);
      return;
    }
    if (n.op == Op::Lookup) {
      UnaryOrt f{UnaryOrt::Fn::Sigmoid, p.alpha, p.beta, n.x_zp, zp, p.in_scales[0], y_scale, u8};
      if (n.lookup.onnx_op == "HardSigmoid") f.fn = UnaryOrt::Fn::HardSigmoid;
      if (n.lookup.onnx_op == "HardSwish") f.fn = UnaryOrt::Fn::HardSwish;
      const auto t = unary_table_ort(f);
      n.lookup.table.assign(t.begin(), t.end());
      return;
    }
    n.ort.a = p.in_scales[0];
    n.ort.b = n.op == Op::Add || n.op == Op::Mul ? p.in_scales[1] : 0;
    n.ort.out = y_scale;
  }

  // QuantizeLinear's zero point on the node it finishes. A Conv2d / Dense
  // with one takes the VTA form with m = 1 (the shift, then ADD zp).
  static void set_output_zero_point(Node& n, int32_t zp, bool u8) {
    n.zp = zp;
    n.uint8 = u8;
    if (zp != 0 && (n.op == Op::Conv2d || n.op == Op::Dense)) n.vta_rq = VtaRequant{0, 1, n.shift};
  }

  // sum (x - zx) w + b = sum x w + (b - zx sum w): the input zero point
  // folded into the bias (padding already holds zx: a Pad node).
  void fold_input_zero_point(Node& out, int32_t zx, const onnx::NodeProto& n) const {
    if (zx == 0) return;
    const int64_t per_out = static_cast<int64_t>(out.weight.size()) / out.out.c;
    if (out.bias.empty()) out.bias.assign(static_cast<size_t>(out.out.c), 0);
    for (int64_t o = 0; o < out.out.c; ++o) {
      int64_t sum = 0;
      for (int64_t i = 0; i < per_out; ++i) sum += out.weight[static_cast<size_t>(o * per_out + i)];
      const int64_t b = out.bias[static_cast<size_t>(o)] - int64_t{zx} * sum;
      if (b < INT32_MIN || b > INT32_MAX) bad(n, "the bias with the input zero point folded in overflows int32");
      out.bias[static_cast<size_t>(o)] = static_cast<int32_t>(b);
    }
  }

  const onnx::ModelProto& m_;
  Graph g_;
  std::set<std::string> inputs_;
  std::map<std::string, int> q_;            // int8, uint8 (held as int8) and int32 tensor -> node
  std::map<std::string, int64_t> batches_;  // 3-D tensors -> their batch (folded into N)
  std::map<std::string, Act> acts_;
  std::map<std::string, Weight> weights_;
  std::map<std::string, Bias> biases_;
  std::map<std::string, Pending> pending_;
  std::map<std::string, Act> same_;   // DQ -> MaxPool / Flatten / Reshape: the node, waiting for its QuantizeLinear
  std::map<std::string, int> views_;  // uint8 views of int8 tensors (IntegerImport::views)
  std::map<std::string, Int32Chain> chains_;
  std::map<std::string, int> uses_;  // tensor -> readers (+1 for a graph output)
  std::string float_input_;
  Node float_input_node_;
  int float_input_id_ = -1;  // its Input node, once a QuantizeLinear made it
};

}  // namespace

Graph import_onnx_bytes(const std::string& bytes, const std::string& source) {
  onnx::ModelProto m;
  if (bytes.empty() || !m.ParseFromString(bytes))
    fail("{}: not a valid ONNX model (empty, truncated or corrupt protobuf)", source);
  if (!m.has_graph()) fail("{}: the model has no graph", source);
  check_model_limits(m, source);
  check_model_form(m, source, kOnnxOpsetQdqMin);
  return guarded_import(source, [&] { return Importer(m, source).run(); });
}

Graph import_onnx(const std::string& path) { return import_onnx_bytes(read_file(path, {}, kModelReadLimit), path); }

}  // namespace vta::compiler
