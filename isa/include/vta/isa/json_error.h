#pragma once
// One message for a JSON file nlohmann could not read (an upstream
// vta_config.json, an estimate's activity or technology table):
// "SOURCE:LINE:COL: not valid JSON (REASON)", without nlohmann's
// "[json.exception.parse_error.101]" tag (ConfigErrors.UpstreamJsonInvalid).
#include <nlohmann/json.hpp>
#include <string>

namespace vta {

/// Throws vta::Error describing `e`, raised while reading `source`.
[[noreturn]] void fail_json(const std::string& source, const nlohmann::json::exception& e);

}  // namespace vta
