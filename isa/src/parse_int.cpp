#include "vta/isa/parse_int.h"

#include <charconv>

namespace vta {

bool parse_int(std::string_view s, int64_t& v, uint64_t max_magnitude) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  if (s.empty()) return false;
  uint64_t u = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (ec != std::errc() || p != s.data() + s.size() || u > max_magnitude || u > static_cast<uint64_t>(INT64_MAX))
    return false;
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

}  // namespace vta
