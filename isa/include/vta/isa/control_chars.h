#pragma once
// The one test for the characters that end a line, a comment or a field in
// what vta writes (a job script, a generated source, a YAML comment): the C0
// controls and DEL. Names from shared files are refused, or these characters
// replaced, before they reach such a place (tests/README.md, checklist).
#include <algorithm>
#include <string_view>

namespace vta {

inline bool is_control_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

inline bool has_control_char(std::string_view s) { return std::any_of(s.begin(), s.end(), is_control_char); }

}  // namespace vta
