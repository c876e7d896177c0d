#pragma once
// Small ONNX models written in C++ for the importer's tests: graph inputs
// and outputs, initializers of any element type, and nodes with attributes.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vta::test {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13) {
    m_.set_ir_version(7);
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g_ = m_.mutable_graph();
    g_->set_name("test");
  }
  void input(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    value(g_->add_input(), name, elem, dims);
  }
  void output(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    value(g_->add_output(), name, elem, dims);
  }
  /// An 8-bit (INT8 / UINT8) or INT32 initializer; dims {} is a scalar.
  void ints(const std::string& name, int elem, const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
    auto* t = init(name, elem, dims);
    std::string raw;
    for (int64_t x : v) {
      if (elem == onnx::TensorProto::INT32) {
        const auto y = static_cast<int32_t>(x);
        raw.append(reinterpret_cast<const char*>(&y), 4);
      } else {
        raw.push_back(static_cast<char>(x));
      }
    }
    t->set_raw_data(raw);
  }
  void floats(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = init(name, onnx::TensorProto::FLOAT, dims);
    for (float x : v) t->add_float_data(x);
  }
  void scalar(const std::string& name, float v) { floats(name, {}, {v}); }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    auto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(g_->node_size()));
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return n;
  }
  static void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void attr_f(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  std::string bytes() const {
    std::string s;
    m_.SerializeToString(&s);
    return s;
  }
  onnx::ModelProto& model() { return m_; }

 private:
  static void value(onnx::ValueInfoProto* v, const std::string& name, int elem, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  onnx::TensorProto* init(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (auto d : dims) t->add_dims(d);
    return t;
  }
  onnx::ModelProto m_;
  onnx::GraphProto* g_;
};

}  // namespace vta::test
