#pragma once
// The last line of defence around an ONNX import: whatever the checks in
// onnx_read.h, shape_check.h and the importers missed must still end as one
// vta::Error naming the file (prefixed where a lower layer's message lacks
// it), never as protobuf's "CHECK failed" (its
// FatalException, after a "[libprotobuf FATAL ...]" line on stderr) or a bare
// std::bad_alloc. Tests: tests/test_onnx_crashes.cpp.
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/stubs/logging.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <new>
#include <set>
#include <string>

#include "vta/isa/error.h"

namespace vta::compiler {

/// The most nodes and initializers a model may hold: far beyond any network
/// the compiler targets (ResNet-50 in QDQ form has about 600 nodes), and
/// refused before any pass walks the graph.
inline constexpr int kMaxOnnxNodes = 100000;

inline void check_model_limits(const onnx::ModelProto& m, const std::string& source) {
  const auto& g = m.graph();
  if (g.node_size() > kMaxOnnxNodes)
    fail("{}: the graph has {} nodes, over the limit of {}", source, g.node_size(), kMaxOnnxNodes);
  if (g.initializer_size() > kMaxOnnxNodes)
    fail("{}: the graph has {} initializers, over the limit of {}", source, g.initializer_size(), kMaxOnnxNodes);
}

/// The default-domain opsets the importers read. Each operator they accept
/// is read with its semantics from its first version up to opset 21: the
/// later changes to those operators up to 21 add element types (refused by
/// the type checks of onnx_read.h) or attributes (QuantizeLinear's saturate,
/// block_size and output_dtype, AveragePool's dilations: refused by
/// only_attrs() and window()); Softmax's axis (13) is read by version. The
/// QDQ and integer importer starts at opset 10, where QuantizeLinear,
/// QLinearConv, ConvInteger and MatMulInteger appear; the float importer at
/// opset 1 (ONNX's own GlobalAveragePool test models declare opset 1).
inline constexpr int64_t kOnnxOpsetQdqMin = 10;
inline constexpr int64_t kOnnxOpsetFloatMin = 1;
inline constexpr int64_t kOnnxOpsetMax = 21;

/// What no importer may take on trust (tests/test_untrusted_inputs.cpp,
/// UntrustedOnnx): the default domain's opset outside [min_opset,
/// kOnnxOpsetMax] or missing; an attribute given twice on one node (the
/// readers would take the first and ignore the other); two initializers
/// of one name (one would silently replace the other). Each is refused
/// naming the file and the node or initializer.
inline void check_model_form(const onnx::ModelProto& m, const std::string& source, int64_t min_opset) {
  bool have_default = false;
  for (const auto& o : m.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx") continue;
    have_default = true;
    if (o.version() < min_opset || o.version() > kOnnxOpsetMax)
      fail("{}: opset {} of the default ONNX domain is not supported; this importer reads opsets {} to {}", source,
           o.version(), min_opset, kOnnxOpsetMax);
  }
  if (!have_default)
    fail(
        "{}: the model imports no opset of the default ONNX domain (opset_import); this importer reads opsets {} to {}",
        source, min_opset, kOnnxOpsetMax);
  const auto& g = m.graph();
  std::set<std::string> names;
  for (const auto& n : g.node()) {
    names.clear();
    for (const auto& a : n.attribute())
      if (!names.insert(a.name()).second)
        fail("{}: node '{}' ({}): attribute '{}' is given twice", source,
             n.name().empty() ? n.output_size() ? n.output(0) : "?" : n.name(), n.op_type(), a.name());
  }
  names.clear();
  for (const auto& t : g.initializer())
    if (!names.insert(t.name()).second) fail("{}: initializer '{}' is given twice", source, t.name());
}

template <class F>
auto guarded_import(const std::string& source, F&& f) {
  // protobuf logs a failed CHECK to stderr before throwing; the message
  // below says it once, on one line.
  google::protobuf::LogHandler* old = google::protobuf::SetLogHandler(nullptr);
  struct Restore {
    google::protobuf::LogHandler* h;
    ~Restore() { google::protobuf::SetLogHandler(h); }
  } restore{old};
  try {
    return f();
  } catch (const Error& e) {
    // Checks below the importer (Graph::add's shape and work limits, the
    // calibrator's) name the graph and node but not the file.
    const std::string m = e.what();
    if (m.find(source) != std::string::npos) throw;  // named already (an unnamed graph takes the file's name)
    fail("{}: {}", source, m);
  } catch (const google::protobuf::FatalException& e) {
    fail("{}: not a valid ONNX model (protobuf: {})", source, e.message());
  } catch (const std::bad_alloc&) {
    fail("{}: the model needs more memory than is available", source);
  }
}

}  // namespace vta::compiler
