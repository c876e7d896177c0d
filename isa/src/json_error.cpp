#include "vta/isa/json_error.h"

#include <string_view>

#include "vta/isa/error.h"

namespace vta {

void fail_json(const std::string& source, const nlohmann::json::exception& e) {
  // what() is "[json.exception.parse_error.101] parse error at line L,
  // column C: REASON" (or another kind's tag and reason, such as a number
  // too large for a double): keep the place and the reason, not the tag.
  std::string_view m = e.what();
  if (const auto tag = m.find("] "); m.starts_with("[json.exception.") && tag != std::string_view::npos)
    m.remove_prefix(tag + 2);
  constexpr std::string_view kAt = "parse error at line ";
  if (m.starts_with(kAt)) {
    m.remove_prefix(kAt.size());
    const auto comma = m.find(", column "), colon = m.find(": ");
    if (comma != std::string_view::npos && colon != std::string_view::npos && comma < colon)
      fail("{}:{}:{}: not valid JSON ({})", source, m.substr(0, comma), m.substr(comma + 9, colon - comma - 9),
           m.substr(colon + 2));
  }
  fail("{}: not valid JSON ({})", source, m);
}

}  // namespace vta
