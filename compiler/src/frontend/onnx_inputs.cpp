#include "vta/compiler/frontend/onnx_inputs.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "vta/isa/error.h"
#include "vta/isa/read_file.h"

namespace vta::compiler {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

onnx::TensorProto parse_pb(const std::string& path, const TensorExpect& expect) {
  onnx::TensorProto t;
  std::string over_limit;
  const uint64_t limit = tensor_read_limit(expect, true, over_limit);
  const std::string bytes = read_file(path, {}, limit, over_limit);
  if (bytes.empty() || !t.ParseFromString(bytes)) fail("{}: not a TensorProto (.pb) file", path);
  return t;
}

// The file as a TensorProto (a .npy file converted) named `name`.
onnx::TensorProto tensor_proto(const std::string& path, const std::string& name, const TensorExpect& expect) {
  onnx::TensorProto t;
  if (ends_with(path, ".pb")) {
    t = parse_pb(path, expect);
  } else {
    const NpyArray a = read_npy(path, expect);
    for (auto d : a.dims) t.add_dims(d);
    switch (a.type) {
      case NpyType::Int8:
        t.set_data_type(onnx::TensorProto::INT8);
        break;
      case NpyType::Uint8:
        t.set_data_type(onnx::TensorProto::UINT8);
        break;
      case NpyType::Int32:
        t.set_data_type(onnx::TensorProto::INT32);
        break;
      case NpyType::Int64:
        t.set_data_type(onnx::TensorProto::INT64);
        break;
      case NpyType::Float32:
        t.set_data_type(onnx::TensorProto::FLOAT);
        for (float f : npy_floats(a)) t.add_float_data(f);
        t.set_name(name);
        return t;
    }
    for (auto v : a.values)
      if (a.type == NpyType::Int64)
        t.add_int64_data(v);
      else
        t.add_int32_data(static_cast<int32_t>(v));
  }
  t.set_name(name);
  return t;
}

// The element count of graph input `name` when the model gives every dim
// (-1 otherwise): what a file for it may hold.
TensorExpect graph_input_expect(const onnx::ModelProto& m, const std::string& name) {
  TensorExpect e{name, -1};
  for (const auto& v : m.graph().input()) {
    if (v.name() != name || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    int64_t count = 1;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > (int64_t{1} << 31)) return e;
      count *= d.dim_value();
      if (count > (int64_t{1} << 31)) return e;
    }
    e.elements = count;
  }
  return e;
}

}  // namespace

std::vector<std::string> onnx_graph_inputs(const std::string& model) {
  onnx::ModelProto m;
  if (!m.ParseFromString(model)) return {};
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> out;
  for (const auto& v : m.graph().input())
    if (!inits.count(v.name())) out.push_back(v.name());
  return out;
}

NpyArray output_array(const Tensor& t, const Node& producer, const std::string& model) {
  NpyArray a;
  a.type = producer.real        ? NpyType::Float32
           : producer.int32_out ? NpyType::Int32
           : producer.uint8     ? NpyType::Uint8
                                : NpyType::Int8;
  a.values = output_values(t, producer);
  const Shape& s = producer.out;
  a.dims = {s.n, s.c, s.h, s.w};
  onnx::ModelProto m;
  if (m.ParseFromString(model) && m.graph().output_size() == 1) {
    std::vector<int64_t> d;
    int64_t count = 1;
    for (const auto& dim : m.graph().output(0).type().tensor_type().shape().dim()) {
      d.push_back(dim.has_dim_value() ? dim.dim_value() : 0);
      count *= d.back();
    }
    if (!d.empty() && count == static_cast<int64_t>(a.values.size())) a.dims = d;
  }
  return a;
}

std::string bind_operands(const std::string& model, const std::map<std::string, std::string>& files,
                          const std::string& source, std::string& activation) {
  onnx::ModelProto m;
  if (model.empty() || !m.ParseFromString(model))
    fail("{}: not a valid ONNX model (empty, truncated or corrupt protobuf)", source);
  const std::vector<std::string> inputs = onnx_graph_inputs(model);
  if (inputs.empty()) fail("{}: the model has no graph input", source);
  activation = inputs[0];
  for (const auto& [name, path] : files)
    if (std::find(inputs.begin(), inputs.end(), name) == inputs.end())
      fail("--input {}={}: the model {} has no graph input '{}'", name, path, source, name);
  for (const auto& [name, path] : files) {
    if (name == activation) continue;
    *m.mutable_graph()->add_initializer() = tensor_proto(path, name, graph_input_expect(m, name));
  }
  std::string out;
  m.SerializeToString(&out);
  return out;
}

NpyArray read_tensor_file(const std::string& path, const TensorExpect& expect) {
  if (ends_with(path, ".npy")) return read_npy(path, expect);
  if (!ends_with(path, ".pb")) fail("{}: a tensor file must be .npy or .pb (TensorProto)", path);
  const onnx::TensorProto t = parse_pb(path, expect);
  NpyArray a;
  a.dims.assign(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (auto d : a.dims) {
    if (d < 0 || d > (int64_t{1} << 31)) fail("{}: bad dimension {}", path, d);
    count *= d;
    if (count > (int64_t{1} << 31)) fail("{}: tensor too large", path);
  }
  const std::string& raw = t.raw_data();
  size_t width = 0;
  switch (t.data_type()) {
    case onnx::TensorProto::INT8:
      a.type = NpyType::Int8, width = 1;
      break;
    case onnx::TensorProto::UINT8:
      a.type = NpyType::Uint8, width = 1;
      break;
    case onnx::TensorProto::INT32:
      a.type = NpyType::Int32, width = 4;
      break;
    case onnx::TensorProto::INT64:
      a.type = NpyType::Int64, width = 8;
      break;
    case onnx::TensorProto::FLOAT:
      a.type = NpyType::Float32, width = 4;
      break;
    default:
      fail("{}: element type {} is not supported (int8, uint8, int32, int64, float)", path, t.data_type());
  }
  if (!raw.empty()) {
    if (raw.size() != static_cast<size_t>(count) * width)
      fail("{}: raw_data holds {} bytes, the dims need {}", path, raw.size(), static_cast<size_t>(count) * width);
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      const char* p = raw.data() + i * width;
      if (width == 1)
        a.values.push_back(a.type == NpyType::Int8 ? int64_t{static_cast<int8_t>(*p)}
                                                   : int64_t{static_cast<uint8_t>(*p)});
      else if (width == 4 && a.type == NpyType::Float32) {
        uint32_t bits;  // NpyArray holds a float's bits
        std::memcpy(&bits, p, 4);
        a.values.push_back(bits);
      } else if (width == 4) {
        int32_t v;
        std::memcpy(&v, p, 4);
        a.values.push_back(v);
      } else {
        int64_t v;
        std::memcpy(&v, p, 8);
        a.values.push_back(v);
      }
    }
  } else if (a.type == NpyType::Int64) {
    a.values.assign(t.int64_data().begin(), t.int64_data().end());
  } else if (a.type == NpyType::Float32) {
    a.values = float_bits({t.float_data().begin(), t.float_data().end()});
  } else {
    a.values.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (a.values.size() != static_cast<size_t>(count))
    fail("{}: holds {} values, the dims need {}", path, a.values.size(), count);
  return a;
}

Tensor input_tensor(const NpyArray& a, const Node& in, const std::string& path) {
  if (static_cast<int64_t>(a.values.size()) != in.out.size())
    fail("{}: {} elements, the model's input '{}' needs {}", path, a.values.size(), in.name, in.out.size());
  if (in.real != (a.type == NpyType::Float32))
    fail("{}: the model's input '{}' is {}, the file holds {}", path, in.name, in.real ? "float32" : "8-bit",
         a.type == NpyType::Float32 ? "float32" : "integers");
  if (in.real) {
    Tensor t{in.out, {}, {}, npy_floats(a)};
    for (size_t i = 0; i < t.real.size(); ++i)
      if (std::isnan(t.real[i])) fail("{}: element {} is NaN (input '{}')", path, i, in.name);
    return t;
  }
  const int64_t lo = in.uint8 ? 0 : -128, hi = in.uint8 ? 255 : 127;
  Tensor t{in.out, std::vector<int16_t>(a.values.size())};
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i] < lo || a.values[i] > hi)
      fail("{}: element {} is {}, outside the {} range of input '{}'", path, i, a.values[i],
           in.uint8 ? "uint8" : "int8", in.name);
    t.data[i] = static_cast<int16_t>(in.uint8 ? a.values[i] - 128 : a.values[i]);
  }
  return t;
}

std::vector<int64_t> output_values(const Tensor& t, const Node& producer) {
  if (producer.real) return float_bits(t.real);
  if (!t.wide.empty()) return {t.wide.begin(), t.wide.end()};
  std::vector<int64_t> v;
  for (int16_t x : t.data) v.push_back(producer.uint8 ? int64_t{x} + 128 : int64_t{x});
  return v;
}

Mismatch compare_values(const std::vector<int64_t>& got, const std::vector<int64_t>& want, const std::string& path) {
  if (got.size() != want.size())
    fail("{}: {} elements expected, the model's output has {}", path, want.size(), got.size());
  Mismatch m;
  m.elements = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t d = std::abs(got[i] - want[i]);
    if (d == 0) continue;
    if (m.differing++ == 0) m.first = i;
    m.largest = std::max(m.largest, d);
  }
  return m;
}

}  // namespace vta::compiler
