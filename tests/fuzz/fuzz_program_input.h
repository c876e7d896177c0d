#pragma once
// The input of the binary-program targets (fuzz_program, fuzz_systemc): a
// conformance-vector folder's seven files (vta::ConformanceFiles::kNames, in
// that order) packed one after another, each behind its length as a 16-bit
// little-endian number; a length past the input's end takes what is left,
// and files past the end are empty. tests/fuzz/seed_corpus.sh packs the
// committed conformance vectors this way.
#include <algorithm>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "vta/model/backend.h"
#include "vta/model/image.h"

namespace vta::fuzz {

inline ConformanceFiles unpack_program(const uint8_t* data, size_t size) {
  ConformanceFiles f;
  size_t at = 0;
  for (auto& file : f.bytes) {
    if (at + 2 > size) break;
    const size_t n = std::min<size_t>(data[at] | (size_t{data[at + 1]} << 8), size - at - 2);
    at += 2;
    file.assign(data + at, data + at + n);
    at += n;
  }
  return f;
}

/// The per-input step budget of both targets: a huge loop count is refused
/// (an error naming the instruction), never a hang.
constexpr uint64_t kMaxSteps = uint64_t{1} << 20;

}  // namespace vta::fuzz
