// libFuzzer target: the ONNX importer (QDQ, integer and float paths) and the
// whole compiler behind it, for the default design. Byte-level mutation of a
// protobuf mostly breaks the parse, so the mutation is structure-aware
// (onnx_mutator.h: one change to the parsed ModelProto, byte mutation one
// time in eight); the seed corpus holds zoo exports and the crash
// reproductions.
#include "fuzz_common.h"
#include "onnx_mutator.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/onnx.h"
#include "vta/isa/config.h"

namespace {

// Whether a graph input declares between 2^20 and 2^28 elements (the limit
// of one tensor, shape_check.h). Such a model is legitimate and slow: the
// float path calibrates on a seeded input of that size, seconds in a release
// build and minutes under the sanitizers, past the 10 s timeout (a 2^27
// element input was one). The fuzzer skips them; their limit checks (above
// 2^28) still run, and tests/test_onnx_op_errors.cpp covers the sizes.
bool input_too_slow_to_fuzz(const std::string& bytes) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return false;
  for (const auto& v : m.graph().input()) {
    double count = 1;
    for (const auto& d : v.type().tensor_type().shape().dim()) count *= static_cast<double>(d.dim_value());
    if (count > double(1 << 20) && count <= double(int64_t{1} << 28)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const vta::Config c = vta::default_config();
  const std::string bytes = vta::fuzz::text(data, size);
  if (input_too_slow_to_fuzz(bytes)) return 0;
  vta::fuzz::expect_clean([&] {
    if (vta::compiler::onnx_is_float_model(bytes)) {
      const auto q = vta::compiler::import_onnx_float(bytes, "fuzz.onnx", {});
      (void)vta::compiler::compile(q.graph, c);
    } else {
      (void)vta::compiler::compile(vta::compiler::import_onnx_bytes(bytes, "fuzz.onnx"), c);
    }
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return vta::fuzz::mutate_onnx(data, size, max_size, seed);
}
