// libFuzzer target: the ONNX importer (QDQ, integer and float paths) and the
// whole compiler behind it, for the default design. Byte-level mutation of a
// protobuf mostly breaks the parse, so the mutation is structure-aware
// (onnx_mutator.h: one change to the parsed ModelProto, byte mutation one
// time in eight); the seed corpus holds zoo exports and the crash
// reproductions.
#include "fuzz_common.h"
#include "onnx_mutator.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/isa/config.h"

namespace {

// Whether a graph input declares between 2^16 and 2^28 elements (the limit
// of one tensor, shape_check.h). Such a model is legitimate and slow: the
// float path calibrates on a seeded input of that size, and the code
// generator writes instructions for every row of it, 0.1 to 4 s each under
// the sanitizers. On 2026-11-27, 68 such inputs (1.3 % of the campaign's
// working corpus) took 72 % of the time to replay it (tests/fuzz/README.md
// "Speed"); at 2^27 elements one input outlasted the 10 s timeout. The
// fuzzer skips them, counted and printed; every seed is
// smaller, the limit checks above 2^28 still run, intermediate tensors may
// still grow past 2^16, and tests/test_onnx_op_errors.cpp covers the sizes.
constexpr double kSlowInputElements = double(1 << 16);

bool input_too_slow_to_fuzz(const std::string& bytes) {
  onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return false;
  for (const auto& v : m.graph().input()) {
    double count = 1;
    for (const auto& d : v.type().tensor_type().shape().dim()) count *= static_cast<double>(d.dim_value());
    if (count > kSlowInputElements && count <= double(int64_t{1} << 28)) return true;
  }
  return false;
}

// Inputs run and skipped, printed at every power of two from 1024 inputs on
// and when the fuzzer exits normally (an interrupted run ends in _Exit, so
// its last power of two is the record).
uint64_t g_inputs = 0, g_skipped = 0;

void print_skipped() {
  std::fprintf(stderr, "fuzz_onnx: %llu of %llu inputs skipped (a graph input of 2^16..2^28 elements)\n",
               static_cast<unsigned long long>(g_skipped), static_cast<unsigned long long>(g_inputs));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const vta::Config c = vta::default_config();
  static const bool registered = std::atexit(print_skipped) == 0;
  (void)registered;
  ++g_inputs;
  if ((g_inputs & (g_inputs - 1)) == 0 && g_inputs >= 1024) print_skipped();
  const std::string bytes = vta::fuzz::text(data, size);
  if (input_too_slow_to_fuzz(bytes)) {
    ++g_skipped;
    return 0;
  }
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
