// Float ONNX models, quantized post-training through the Calibrator.
// MatMul is a Gemm (an Add of an initializer right after it is its bias);
// Reshape (host) relabels the NCHW data; Softmax must be the final op.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "frontend/onnx_guard.h"
#include "vta/compiler/frontend/calibrate.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ir/shape_check.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

// The power-of-two exponent whose int8 range covers max |v|.
int pow2_exp(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  if (m == 0) return 0;
  return static_cast<int>(std::ceil(std::log2(m / 127.0f)));
}

std::vector<int16_t> quantize8(const std::vector<float>& v, int exp) {
  std::vector<int16_t> q(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    q[i] = static_cast<int16_t>(std::clamp(std::lround(std::ldexp(v[i], -exp)), -127L, 127L));
  return q;
}

struct FloatTensor {
  std::vector<float> data;
  std::vector<int64_t> dims;
};

class FloatImporter {
 public:
  FloatImporter(const onnx::ModelProto& m, std::string source)
      : m_(m), src_(std::move(source)), cal_(m.graph().name()) {}

  QuantizedModel run(const std::vector<float>& calibration) {
    const auto& gp = m_.graph();
    for (const auto& t : gp.initializer()) init_[t.name()] = &t;
    const onnx::ValueInfoProto* in = nullptr;
    for (const auto& v : gp.input())
      if (!init_.count(v.name())) {
        if (in) fail("{}: a float model must have one input, it has more ('{}', '{}')", src_, in->name(), v.name());
        in = &v;
      }
    if (!in) fail("{}: the model has no input", src_);
    std::vector<int64_t> d;
    for (const auto& dim : in->type().tensor_type().shape().dim()) d.push_back(dim.dim_value());
    if ((d.size() != 4 && d.size() != 2) || std::any_of(d.begin(), d.end(), [](int64_t x) { return x <= 0; }))
      fail("{}: input '{}' must be NCHW or NC with a static shape", src_, in->name());
    if (const std::string e = dims_problem(d); !e.empty()) fail("{}: input '{}' {}", src_, in->name(), e);
    unique_outputs(in->name());
    const Shape s = d.size() == 4 ? Shape{d[0], d[1], d[2], d[3]} : Shape{d[0], d[1], 1, 1};
    std::vector<float> seeded;
    if (calibration.empty()) {  // no calibration data given: a seeded input in [-1, 1]
      std::mt19937 rng(1);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      seeded.resize(static_cast<size_t>(s.size()));
      for (auto& v : seeded) v = u(rng);
    }
    const std::vector<float>& calib = calibration.empty() ? seeded : calibration;
    if (calib.size() != static_cast<size_t>(s.size()))
      fail("{}: the calibration input has {} values, the model input {}", src_, calib.size(), s.size());
    const int exp = pow2_exp(calib);
    Tensor q{s, quantize8(calib, exp)};
    QuantizedModel out;
    out.input = q;
    tensors_[in->name()] = cal_.input(s, exp, std::move(q));
    for (const auto& n : gp.node()) handle(n);
    if (gp.output_size() != 1) fail("{}: the model must have exactly one output", src_);
    out.graph = cal_.take(materialize(gp.output(0).name(), nullptr));
    return out;
  }

 private:
  struct Pending {  // Conv/Gemm/Add whose Relu or BatchNormalization may still follow
    std::string op;
    const onnx::NodeProto* node = nullptr;
    std::vector<int> inputs;
    FloatTensor w;
    std::vector<float> b;
    bool relu = false;
  };

  [[noreturn]] void bad(const onnx::NodeProto& n, const std::string& what) const {
    fail("{}: node '{}' ({}): {}", src_, n.name().empty() ? (n.output_size() ? n.output(0) : "?") : n.name(),
         n.op_type(), what);
  }

  // Every node output is a new name: not a graph input, an initializer or
  // another node's output (a duplicated node list would otherwise fold a
  // BatchNormalization or a bias twice).
  void unique_outputs(const std::string& input) const {
    std::map<std::string, const onnx::NodeProto*> producer;
    for (const auto& n : m_.graph().node())
      for (const auto& o : n.output()) {
        if (o.empty()) continue;
        if (o == input || init_.count(o)) bad(n, fmt::format("output '{}' is also a graph input or initializer", o));
        if (auto [it, fresh] = producer.emplace(o, &n); !fresh)
          bad(n, fmt::format("output '{}' is also the output of node '{}' (output names must be unique)", o,
                             it->second->name()));
      }
  }

  FloatTensor floats(const onnx::NodeProto& n, int k) const {
    if (n.input_size() <= k || n.input(k).empty()) bad(n, fmt::format("input {} is missing", k));
    auto it = init_.find(n.input(k));
    if (it == init_.end()) bad(n, fmt::format("input '{}' must be a float initializer", n.input(k)));
    const auto& t = *it->second;
    if (t.data_type() != onnx::TensorProto::FLOAT) bad(n, fmt::format("initializer '{}' must be FLOAT", t.name()));
    FloatTensor f;
    f.dims.assign(t.dims().begin(), t.dims().end());
    if (const std::string e = dims_problem(f.dims); !e.empty()) bad(n, fmt::format("initializer '{}' {}", t.name(), e));
    if (t.raw_data().size() % 4) bad(n, fmt::format("initializer '{}' has a truncated raw_data", t.name()));
    if (!t.raw_data().empty()) {
      f.data.resize(t.raw_data().size() / 4);
      std::memcpy(f.data.data(), t.raw_data().data(), f.data.size() * 4);
    } else {
      f.data.assign(t.float_data().begin(), t.float_data().end());
    }
    int64_t count = 1;
    for (auto x : f.dims) count *= x;  // dims_problem above: no overflow
    if (static_cast<int64_t>(f.data.size()) != count) bad(n, fmt::format("initializer '{}' is truncated", t.name()));
    for (size_t i = 0; i < f.data.size(); ++i)
      if (!std::isfinite(f.data[i]))
        bad(n, fmt::format("initializer '{}' holds {} at index {} (values must be finite)", t.name(), f.data[i], i));
    return f;
  }

  int64_t attr_i(const onnx::NodeProto& n, const std::string& name, int64_t def) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.i();
    return def;
  }
  float attr_f(const onnx::NodeProto& n, const std::string& name, float def) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.f();
    return def;
  }
  std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return {a.ints().begin(), a.ints().end()};
    return {};
  }
  // kernel_shape, strides and pads, checked against the input `in` (shape_check.h).
  std::array<int64_t, 3> window(const onnx::NodeProto& n, const Shape& in) const {
    auto k = attr_ints(n, "kernel_shape"), s = attr_ints(n, "strides"), p = attr_ints(n, "pads");
    for (const auto& a : n.attribute())
      if ((a.name() == "auto_pad" && a.s() != "NOTSET") || (a.name() == "ceil_mode" && a.i() != 0) ||
          (a.name() == "count_include_pad" && a.i() != 0))
        bad(n, fmt::format("attribute {} is not supported", a.name()));
    for (auto dd : attr_ints(n, "dilations"))
      if (dd != 1) bad(n, "attribute dilations must be 1");
    if (k.size() != 2 || k[0] != k[1]) bad(n, "attribute kernel_shape must be two equal values");
    if (!s.empty() && (s.size() != 2 || s[0] != s[1])) bad(n, "attribute strides must be two equal values");
    if (!p.empty() && (p.size() != 4 || p[0] != p[1] || p[0] != p[2] || p[0] != p[3]))
      bad(n, "attribute pads must be four equal values (symmetric padding)");
    const std::array<int64_t, 3> w{k[0], s.empty() ? 1 : s[0], p.empty() ? 0 : p[0]};
    if (const std::string e = window_problem(w[0], w[1], w[2], in.h, in.w); !e.empty()) bad(n, e);
    return w;
  }

  void only_attrs(const onnx::NodeProto& n, std::initializer_list<const char*> known) const {
    for (const auto& a : n.attribute())
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return a.name() == k; }))
        bad(n, fmt::format("attribute '{}' is not supported", a.name()));
  }

  // Reshape's target (an INT64 initializer; 0 copies a dimension, -1 is
  // inferred) as NCHW (4 dims) or N x C (2 dims).
  Shape reshaped(const onnx::NodeProto& n, const Shape& is) const {
    if (n.input_size() != 2) bad(n, "needs inputs data and shape");
    auto it = init_.find(n.input(1));
    if (it == init_.end()) bad(n, fmt::format("shape '{}' must be an initializer", n.input(1)));
    const auto& t = *it->second;
    if (t.data_type() != onnx::TensorProto::INT64) bad(n, fmt::format("shape '{}' must be INT64", t.name()));
    std::vector<int64_t> d(t.int64_data().begin(), t.int64_data().end());
    if (!t.raw_data().empty()) {
      d.resize(t.raw_data().size() / 8);
      std::memcpy(d.data(), t.raw_data().data(), d.size() * 8);
    }
    if (d.size() != 2 && d.size() != 4)
      bad(n, fmt::format("shape has {} dimensions; only 2 (N x C) or 4 (NCHW) are supported", d.size()));
    const int64_t from[4] = {is.n, is.c, is.h, is.w};
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < d.size(); ++i) {
      if (d[i] == 0) d[i] = from[i];
      if (d[i] > kMaxTensorElements) bad(n, fmt::format("shape dimension {} is {}, more than the input has", i, d[i]));
      if (d[i] == -1) {
        if (infer >= 0) bad(n, "shape has more than one -1");
        infer = static_cast<int64_t>(i);
      } else if (d[i] < 1) {
        bad(n, fmt::format("shape dimension {} is {}", i, d[i]));
      } else {
        known *= d[i];
      }
    }
    if (infer >= 0) d[static_cast<size_t>(infer)] = is.size() / known;
    const Shape s = d.size() == 4 ? Shape{d[0], d[1], d[2], d[3]} : Shape{d[0], d[1], 1, 1};
    if (s.size() != is.size()) bad(n, fmt::format("shape gives {} elements, the input has {}", s.size(), is.size()));
    return s;
  }

  // The node id of tensor `name`, quantizing a pending Conv/Gemm/Add first.
  int materialize(const std::string& name, const onnx::NodeProto* user) {
    if (auto t = tensors_.find(name); t != tensors_.end()) {
      if (user && cal_.node(t->second).op == Op::Softmax)
        bad(*user, fmt::format("input '{}' is a Softmax output; Softmax is supported only as the final op", name));
      return t->second;
    }
    auto p = pending_.find(name);
    if (p == pending_.end()) {
      if (user) bad(*user, fmt::format("input '{}' is not produced by a supported node", name));
      fail("{}: the output '{}' is not produced by a supported node", src_, name);
    }
    Pending& pd = p->second;
    int id = -1;
    if (pd.op == "Add") {
      id = cal_.add(pd.inputs[0], pd.inputs[1], pd.relu, pd.node->name());
    } else {
      const int x = pd.inputs[0];
      const int wexp = pow2_exp(pd.w.data);
      const int bexp = cal_.node(x).exp + wexp;
      std::vector<int32_t> bias(static_cast<size_t>(pd.w.dims[0]), 0);
      for (size_t i = 0; i < pd.b.size(); ++i)
        bias[i] = static_cast<int32_t>(
            std::clamp<long>(std::lround(std::ldexp(pd.b[i], -bexp)), INT32_MIN / 2, INT32_MAX / 2));
      if (pd.op == "Conv") {
        const auto [k, s, pad] = window(*pd.node, cal_.node(x).out);
        id = cal_.conv(x, quantize8(pd.w.data, wexp), std::move(bias), wexp, pd.w.dims[0], k, s, pad, pd.relu,
                       attr_i(*pd.node, "group", 1), pd.node->name());
      } else {
        id = cal_.dense(x, quantize8(pd.w.data, wexp), std::move(bias), wexp, pd.w.dims[0], pd.relu, pd.node->name());
      }
    }
    tensors_[name] = id;
    pending_.erase(p);
    return id;
  }

  // The inputs each supported operator needs (the optional ones left out).
  static int min_inputs(const std::string& op) {
    static const std::map<std::string, int> need = {{"MatMul", 2},
                                                    {"Reshape", 2},
                                                    {"Add", 2},
                                                    {"Conv", 2},
                                                    {"Gemm", 2},
                                                    {"BatchNormalization", 5},
                                                    {"Relu", 1},
                                                    {"Clip", 1},
                                                    {"MaxPool", 1},
                                                    {"AveragePool", 1},
                                                    {"GlobalAveragePool", 1},
                                                    {"Flatten", 1},
                                                    {"Softmax", 1}};
    auto it = need.find(op);
    return it == need.end() ? 0 : it->second;
  }

  void handle(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (n.output_size() < 1) bad(n, "has no output");
    if (n.input_size() < min_inputs(op))
      bad(n, fmt::format("needs {} input(s), it has {}", min_inputs(op), n.input_size()));
    auto in = [&](int k) {
      if (n.input_size() <= k) bad(n, fmt::format("input {} is missing", k));
      return materialize(n.input(k), &n);
    };
    if (op == "MatMul") {  // a Gemm with B [K, N] and no bias
      if (n.input_size() != 2) bad(n, "needs inputs A and B");
      Pending p;
      p.op = "Gemm";
      p.node = &n;
      p.inputs = {in(0)};
      p.w = floats(n, 1);
      const Shape is = cal_.node(p.inputs[0]).out;
      if (is.h != 1 || is.w != 1)
        bad(n, "input A must be 2-D (rows x K); MatMul over the last axis of a 4-D tensor is not supported");
      if (p.w.dims.size() != 2) bad(n, "input B must be a 2-D initializer [K, N]");
      if (p.w.dims[0] != is.c) bad(n, fmt::format("B has {} rows, A {} columns", p.w.dims[0], is.c));
      FloatTensor t{std::vector<float>(p.w.data.size()), {p.w.dims[1], p.w.dims[0]}};  // stored [N, K]
      for (int64_t i = 0; i < p.w.dims[0]; ++i)
        for (int64_t o = 0; o < p.w.dims[1]; ++o)
          t.data[static_cast<size_t>(o * p.w.dims[0] + i)] = p.w.data[static_cast<size_t>(i * p.w.dims[1] + o)];
      p.w = std::move(t);
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Reshape") {
      only_attrs(n, {"allowzero"});
      if (attr_i(n, "allowzero", 0) != 0) bad(n, "attribute allowzero must be 0");
      const int x = in(0);
      tensors_[n.output(0)] = cal_.reshape(x, reshaped(n, cal_.node(x).out), n.name());
      return;
    }
    if (op == "Softmax") {
      only_attrs(n, {"axis"});
      const int x = in(0);
      const Shape is = cal_.node(x).out;
      const int64_t axis = attr_i(n, "axis", m_.opset_import_size() && m_.opset_import(0).version() >= 13 ? -1 : 1);
      if (is.h != 1 || is.w != 1 || (axis != 1 && axis != -1))
        bad(n, "only a Softmax over the channels of N x C is supported (attribute axis 1 or -1)");
      tensors_[n.output(0)] = cal_.softmax(x, n.name());
      return;
    }
    if (op == "Add" && (init_.count(n.input(0)) || init_.count(n.input(1)))) {  // the bias of a MatMul / Gemm
      const int k = init_.count(n.input(1)) ? 1 : 0;
      auto it = pending_.find(n.input(1 - k));
      if (it == pending_.end() || it->second.op != "Gemm" || !it->second.b.empty() || it->second.relu)
        bad(n, "an Add of an initializer must follow a MatMul or Gemm without bias (it is folded into it)");
      Pending p = it->second;
      p.b = floats(n, k).data;
      if (static_cast<int64_t>(p.b.size()) != p.w.dims[0]) bad(n, "the added bias differs from the outputs");
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Conv" || op == "Gemm") {
      Pending p;
      p.op = op;
      p.node = &n;
      p.inputs = {in(0)};
      p.w = floats(n, 1);
      if (n.input_size() > 2 && !n.input(2).empty()) p.b = floats(n, 2).data;
      const Shape is = cal_.node(p.inputs[0]).out;
      if (op == "Conv") {
        const auto [k, s, pad] = window(n, is);
        (void)s, (void)pad;
        const int64_t g = attr_i(n, "group", 1);
        if (g != 1 && g != is.c) bad(n, "attribute group must be 1 or depthwise");  // before dims[1] * g
        if (p.w.dims.size() != 4 || p.w.dims[2] != k || p.w.dims[3] != k || p.w.dims[1] * g != is.c)
          bad(n, "weight dims must be [O, C/group, K, K] matching the input");
        if (g != 1 && !(g == is.c && p.w.dims[0] == is.c)) bad(n, "attribute group must be 1 or depthwise");
      } else {
        if (attr_i(n, "transA", 0) != 0 || attr_f(n, "alpha", 1) != 1 || attr_f(n, "beta", 1) != 1)
          bad(n, "only transA 0, alpha 1 and beta 1 are supported");
        if (p.w.dims.size() != 2) bad(n, "weight must be 2-D");
        if (attr_i(n, "transB", 0) == 0) {  // store as [O, I]
          FloatTensor t{std::vector<float>(p.w.data.size()), {p.w.dims[1], p.w.dims[0]}};
          for (int64_t i = 0; i < p.w.dims[0]; ++i)
            for (int64_t o = 0; o < p.w.dims[1]; ++o)
              t.data[static_cast<size_t>(o * p.w.dims[0] + i)] = p.w.data[static_cast<size_t>(i * p.w.dims[1] + o)];
          p.w = std::move(t);
        }
        if (p.w.dims[1] != is.c * is.h * is.w) bad(n, "weight inputs differ from the activation size");
      }
      if (!p.b.empty() && static_cast<int64_t>(p.b.size()) != p.w.dims[0])
        bad(n, "bias length differs from the outputs");
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "BatchNormalization") {
      auto it = pending_.find(n.input(0));
      if (it == pending_.end() || it->second.op != "Conv" || it->second.relu)
        bad(n, "BatchNormalization must directly follow a Conv (it is folded into it)");
      Pending p = it->second;
      const auto gamma = floats(n, 1).data, beta = floats(n, 2).data, mean = floats(n, 3).data, var = floats(n, 4).data;
      const float eps = attr_f(n, "epsilon", 1e-5f);
      const int64_t oc = p.w.dims[0], per = static_cast<int64_t>(p.w.data.size()) / oc;
      const char* names[] = {"scale", "B", "mean", "var"};
      for (int k = 0; k < 4; ++k) {
        const size_t size = std::array{gamma.size(), beta.size(), mean.size(), var.size()}[static_cast<size_t>(k)];
        if (static_cast<int64_t>(size) != oc)
          bad(n, fmt::format("input {} ('{}') has {} values for the Conv's {} output channels", names[k],
                             n.input(k + 1), size, oc));
      }
      if (!(eps >= 0) || !std::isfinite(eps))
        bad(n, fmt::format("attribute epsilon is {} (it must be 0 or more)", eps));
      for (size_t o = 0; o < var.size(); ++o)
        if (!(var[o] + eps > 0))
          bad(n, fmt::format("var of channel {} is {} (a variance plus epsilon must be positive)", o, var[o]));
      if (p.b.empty()) p.b.assign(static_cast<size_t>(oc), 0.0f);
      for (int64_t o = 0; o < oc; ++o) {
        const float f = gamma[static_cast<size_t>(o)] / std::sqrt(var[static_cast<size_t>(o)] + eps);
        for (int64_t i = 0; i < per; ++i) p.w.data[static_cast<size_t>(o * per + i)] *= f;
        p.b[static_cast<size_t>(o)] =
            (p.b[static_cast<size_t>(o)] - mean[static_cast<size_t>(o)]) * f + beta[static_cast<size_t>(o)];
      }
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Relu" || op == "Clip") {
      if (op == "Clip") {
        // Clip(min 0, no max) is a ReLU; other clips do not fit int8 requantization here.
        const bool zero_min =
            n.input_size() > 1 && !n.input(1).empty() && floats(n, 1).data == std::vector<float>{0.0f};
        if (!zero_min || (n.input_size() > 2 && !n.input(2).empty()))
          bad(n, "only Clip(min=0) without max is supported");
      }
      auto it = pending_.find(n.input(0));
      if (it == pending_.end()) bad(n, "must follow Conv, Gemm or Add");
      Pending p = it->second;
      p.relu = true;
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "Add") {
      Pending p;
      p.op = op;
      p.node = &n;
      p.inputs = {in(0), in(1)};
      if (!(cal_.node(p.inputs[0]).out == cal_.node(p.inputs[1]).out)) bad(n, "inputs must have the same shape");
      pending_[n.output(0)] = std::move(p);
      return;
    }
    if (op == "MaxPool" || op == "AveragePool") {
      const int x = in(0);
      const auto [k, s, pad] = window(n, cal_.node(x).out);
      if (op == "MaxPool") {
        tensors_[n.output(0)] = cal_.max_pool(x, k, s, pad, n.name());
        return;
      }
      if (s != k || pad != 0) bad(n, "only non-overlapping, unpadded windows are supported");
      if ((k & (k - 1)) != 0) bad(n, "the window area must be a power of two");
      tensors_[n.output(0)] = cal_.avg_pool(x, k, n.name());
      return;
    }
    if (op == "GlobalAveragePool") {
      tensors_[n.output(0)] = cal_.global_avg_pool(in(0), n.name());
      return;
    }
    if (op == "Flatten") {
      if (attr_i(n, "axis", 1) != 1) bad(n, "attribute axis must be 1");
      tensors_[n.output(0)] = cal_.flatten(in(0), n.name());
      return;
    }
    bad(n,
        "operator is not supported in float models (Conv, Gemm, MatMul, BatchNormalization, Relu, Clip, Add, MaxPool, "
        "AveragePool, GlobalAveragePool, Flatten, Reshape, Softmax)");
  }

  const onnx::ModelProto& m_;
  std::string src_;
  Calibrator cal_;
  std::map<std::string, const onnx::TensorProto*> init_;
  std::map<std::string, int> tensors_;
  std::map<std::string, Pending> pending_;
};

}  // namespace

bool onnx_is_float_model(const std::string& bytes) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return false;
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  for (const auto& v : m.graph().input()) {
    if (inits.count(v.name()) || v.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) continue;
    for (const auto& n : m.graph().node())
      if (n.op_type() == "QuantizeLinear" && n.input_size() > 0 && n.input(0) == v.name()) return false;
    return true;
  }
  return false;
}

QuantizedModel import_onnx_float(const std::string& bytes, const std::string& source,
                                 const std::vector<float>& calibration) {
  onnx::ModelProto m;
  if (bytes.empty() || !m.ParseFromString(bytes))
    fail("{}: not a valid ONNX model (empty, truncated or corrupt protobuf)", source);
  check_model_limits(m, source);
  check_model_form(m, source, kOnnxOpsetFloatMin);
  return guarded_import(source, [&] { return FloatImporter(m, source).run(calibration); });
}

}  // namespace vta::compiler
