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

#include <new>
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
