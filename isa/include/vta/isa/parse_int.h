#pragma once
// Integers as every text format of the project writes them (.vasm fields and
// directives, docs/asm.md): decimal or 0x hex with an optional sign; 010 is
// ten, never octal.
#include <cstdint>
#include <string_view>

namespace vta {

/// Parses all of `s` into `v`; false when it is not such an integer or its
/// magnitude exceeds `max_magnitude`.
bool parse_int(std::string_view s, int64_t& v, uint64_t max_magnitude = INT64_MAX);

}  // namespace vta
