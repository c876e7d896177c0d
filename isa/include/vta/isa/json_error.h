#pragma once
// Reading JSON that a file holds (an upstream vta_config.json, an estimate's
// activity or technology table, a tuning cache, a Slurm job list) so that
// every problem is one vta::Error naming the file and the key:
// "SOURCE:LINE:COL: not valid JSON (REASON)" without nlohmann's
// "[json.exception.parse_error.101]" tag (ConfigErrors.UpstreamJsonInvalid),
// and members read through json_int / json_number / json_string, which
// check the type and the range first: never nlohmann's type_error, never an
// undefined double-to-integer cast (`{"tasks": 1e300}`). Tests:
// tests/test_untrusted_inputs.cpp (UntrustedJson).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace vta {

/// Throws vta::Error describing `e`, raised while reading `source` (empty:
/// "line L, column C: not valid JSON (REASON)", for a caller that names the
/// file itself).
[[noreturn]] void fail_json(const std::string& source, const nlohmann::json::exception& e);

/// The JSON text `text` read from `source` (a NUL byte, which nlohmann
/// would stop at, is refused naming its line); throws as fail_json does.
nlohmann::json parse_json(const std::string& text, const std::string& source);

/// Member `key` of `j` as an integer from `lo` to `hi`; throws vta::Error
/// "WHERE: KEY must be an integer from LO to HI" when `j` is not an object,
/// the member is missing, is not an integer (a string, a float, 1e300) or is
/// out of range. `where` names the file (and the entry) for the message
/// (empty: the message starts with the key).
int64_t json_int(const nlohmann::json& j, std::string_view key, int64_t lo, int64_t hi, std::string_view where);
/// Member `key` of `j` as a finite number; throws "WHERE: KEY must be a number".
double json_number(const nlohmann::json& j, std::string_view key, std::string_view where);
/// Member `key` of `j` as a string; throws "WHERE: KEY must be a string".
std::string json_string(const nlohmann::json& j, std::string_view key, std::string_view where);

}  // namespace vta
