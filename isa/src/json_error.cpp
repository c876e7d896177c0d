#include "vta/isa/json_error.h"

#include <algorithm>
#include <cmath>
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
    if (comma != std::string_view::npos && colon != std::string_view::npos && comma < colon) {
      const auto line = m.substr(0, comma), col = m.substr(comma + 9, colon - comma - 9), why = m.substr(colon + 2);
      if (source.empty()) fail("line {}, column {}: not valid JSON ({})", line, col, why);
      fail("{}:{}:{}: not valid JSON ({})", source, line, col, why);
    }
  }
  if (source.empty()) fail("not valid JSON ({})", m);
  fail("{}: not valid JSON ({})", source, m);
}

nlohmann::json parse_json(const std::string& text, const std::string& source) {
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
    if (source.empty()) fail("a NUL byte on line {}; not a JSON text file", line);
    fail("{}:{}: a NUL byte; not a JSON text file", source, line);
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e3001
    fail_json(source, e);
  }
}

namespace {

const nlohmann::json* member(const nlohmann::json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(std::string(key));
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

int64_t json_int(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi, std::string_view where) {
  const nlohmann::json* v = member(j, key);
  // Compared as written: 2^64 - 1 must not wrap to -1, 1e300 is no integer.
  const bool ok =
      v != nullptr && v->is_number_integer() &&
      (v->is_number_unsigned() ? hi >= 0 && v->get<uint64_t>() >= static_cast<uint64_t>(std::max<int64_t>(lo, 0)) &&
                                     v->get<uint64_t>() <= static_cast<uint64_t>(hi)
                               : v->get<int64_t>() >= lo && v->get<int64_t>() <= hi);
  if (!ok) fail("{}{}{} must be an integer from {} to {}", where, where.empty() ? "" : ": ", key, lo, hi);
  return v->is_number_unsigned() ? static_cast<int64_t>(v->get<uint64_t>()) : v->get<int64_t>();
}

double json_number(const nlohmann::json& j, std::string_view key, std::string_view where) {
  const nlohmann::json* v = member(j, key);
  if (v == nullptr || !v->is_number() || !std::isfinite(v->get<double>()))
    fail("{}{}{} must be a number", where, where.empty() ? "" : ": ", key);
  return v->get<double>();
}

std::string json_string(const nlohmann::json& j, std::string_view key, std::string_view where) {
  const nlohmann::json* v = member(j, key);
  if (v == nullptr || !v->is_string()) fail("{}{}{} must be a string", where, where.empty() ? "" : ": ", key);
  return v->get<std::string>();
}

}  // namespace vta
