#pragma once
// Reading ONNX nodes: initializers, integer values, attributes and windows,
// with errors that name the file, the node, its op and what is wrong. The
// QDQ importer (onnx_import.cpp) and its integer operators
// (onnx_integer.cpp) share it.
#include <onnx/onnx_pb.h>

#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ir/shape_check.h"
#include "vta/isa/error.h"

namespace vta::compiler {

class OnnxReader {
 public:
  explicit OnnxReader(std::string source) : src_(std::move(source)) {}

  [[noreturn]] void bad(const onnx::NodeProto& n, const std::string& what) const {
    fail("{}: node '{}' ({}): {}", src_, n.name().empty() ? n.output_size() ? n.output(0) : "?" : n.name(), n.op_type(),
         what);
  }

  const onnx::TensorProto& initializer(const onnx::NodeProto& n, int k) const {
    if (n.input_size() <= k || n.input(k).empty()) bad(n, fmt::format("input {} is missing", k));
    auto it = init_.find(n.input(k));
    if (it == init_.end()) bad(n, fmt::format("input '{}' must be an initializer", n.input(k)));
    return *it->second;
  }

  // A float scalar initializer (a scale).
  float float_scalar(const onnx::NodeProto& n, int k) const {
    const auto& t = initializer(n, k);
    if (t.data_type() != onnx::TensorProto::FLOAT) bad(n, fmt::format("scale '{}' must be float", t.name()));
    float v = 0;
    if (t.float_data_size() == 1)
      v = t.float_data(0);
    else if (t.raw_data().size() == 4)
      std::memcpy(&v, t.raw_data().data(), 4);
    else
      bad(n, fmt::format("scale '{}' must be one value (per-tensor quantization)", t.name()));
    if (!std::isfinite(v)) bad(n, fmt::format("scale '{}' is {} (it must be finite)", t.name(), v));
    return v;
  }

  // The values of a float initializer (a per-tensor or per-axis scale).
  std::vector<float> float_values(const onnx::NodeProto& n, int k) const {
    const auto& t = initializer(n, k);
    if (t.data_type() != onnx::TensorProto::FLOAT) bad(n, fmt::format("scale '{}' must be float", t.name()));
    std::vector<float> v(t.float_data().begin(), t.float_data().end());
    if (v.empty() && !t.raw_data().empty()) {
      if (t.raw_data().size() % 4 != 0) bad(n, fmt::format("scale '{}' has a truncated raw_data", t.name()));
      v.resize(t.raw_data().size() / 4);
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
    }
    if (v.empty()) bad(n, fmt::format("scale '{}' has no values", t.name()));
    for (float x : v)
      if (!std::isfinite(x)) bad(n, fmt::format("scale '{}' is {} (it must be finite)", t.name(), x));
    return v;
  }

  // An 8-bit value held in int32_data: within its type.
  int64_t in_range(const onnx::TensorProto& t, const onnx::NodeProto& n, int v, int lo, int hi,
                   const char* type) const {
    if (v < lo || v > hi)
      bad(n, fmt::format("initializer '{}' holds {}, outside {} ({}..{})", t.name(), v, type, lo, hi));
    return v;
  }

  std::vector<int64_t> int_values(const onnx::TensorProto& t, const onnx::NodeProto& n) const {
    const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    if (const std::string e = dims_problem(dims); !e.empty()) bad(n, fmt::format("initializer '{}' {}", t.name(), e));
    std::vector<int64_t> out;
    const std::string& raw = t.raw_data();
    switch (t.data_type()) {
      case onnx::TensorProto::INT8:
        if (!raw.empty())
          for (char ch : raw) out.push_back(static_cast<int8_t>(ch));
        else
          for (int v : t.int32_data()) out.push_back(in_range(t, n, v, -128, 127, "int8"));
        break;
      case onnx::TensorProto::UINT8:
        if (!raw.empty())
          for (char ch : raw) out.push_back(static_cast<uint8_t>(ch));
        else
          for (int v : t.int32_data()) out.push_back(in_range(t, n, v, 0, 255, "uint8"));
        break;
      case onnx::TensorProto::INT32:
        if (!raw.empty()) {
          if (raw.size() % 4) bad(n, fmt::format("initializer '{}' has a truncated raw_data", t.name()));
          for (size_t i = 0; i < raw.size(); i += 4) {
            int32_t v;
            std::memcpy(&v, raw.data() + i, 4);
            out.push_back(v);
          }
        } else {
          for (int v : t.int32_data()) out.push_back(v);
        }
        break;
      case onnx::TensorProto::INT64:
        if (!raw.empty()) {
          if (raw.size() % 8) bad(n, fmt::format("initializer '{}' has a truncated raw_data", t.name()));
          for (size_t i = 0; i < raw.size(); i += 8) {
            int64_t v;
            std::memcpy(&v, raw.data() + i, 8);
            out.push_back(v);
          }
        } else {
          for (int64_t v : t.int64_data()) out.push_back(v);
        }
        break;
      default:
        bad(n, fmt::format("initializer '{}' has element type {}; expected INT8, INT32 or INT64 (or UINT8)", t.name(),
                           t.data_type()));
    }
    int64_t count = 1;
    for (auto d : dims) count *= d;  // dims_problem above: no overflow
    if (static_cast<int64_t>(out.size()) != count)
      bad(n, fmt::format("initializer '{}' holds {} values for dims of {} elements", t.name(), out.size(), count));
    return out;
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
  void only_attrs(const onnx::NodeProto& n, std::initializer_list<const char*> known) const {
    for (const auto& a : n.attribute()) {
      bool ok = false;
      for (const char* k : known) ok |= a.name() == k;
      if (!ok) bad(n, fmt::format("attribute '{}' is not supported", a.name()));
    }
  }
  // kernel_shape (square), strides (equal), pads (all equal), checked
  // against the input `in` (shape_check.h): returns k, s, p.
  std::array<int64_t, 3> window(const onnx::NodeProto& n, const Shape& in) const {
    auto k = attr_ints(n, "kernel_shape"), s = attr_ints(n, "strides"), p = attr_ints(n, "pads");
    if (k.size() != 2 || k[0] != k[1]) bad(n, "attribute kernel_shape must be two equal values");
    if (!s.empty() && (s.size() != 2 || s[0] != s[1])) bad(n, "attribute strides must be two equal values");
    if (!p.empty() && (p.size() != 4 || p[0] != p[1] || p[0] != p[2] || p[0] != p[3]))
      bad(n, "attribute pads must be four equal values");
    for (auto d : attr_ints(n, "dilations"))
      if (d != 1) bad(n, "attribute dilations must be 1");
    for (const auto& a : n.attribute())
      if (a.name() == "auto_pad" && a.s() != "NOTSET")
        bad(n, "attribute auto_pad is not supported (use explicit pads)");
    const std::array<int64_t, 3> w{k[0], s.empty() ? 1 : s[0], p.empty() ? 0 : p[0]};
    check_window(n, w[0], w[1], w[2], in);
    return w;
  }
  void check_window(const onnx::NodeProto& n, int64_t k, int64_t s, int64_t p, const Shape& in) const {
    if (const std::string e = window_problem(k, s, p, in.h, in.w); !e.empty()) bad(n, e);
  }

 protected:
  std::string src_;
  std::map<std::string, const onnx::TensorProto*> init_;
};

}  // namespace vta::compiler
