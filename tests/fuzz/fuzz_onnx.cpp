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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const vta::Config c = vta::default_config();
  const std::string bytes = vta::fuzz::text(data, size);
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
