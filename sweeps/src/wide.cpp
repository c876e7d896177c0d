#include "vta/sweeps/wide.h"

#include <fmt/format.h>

#include <cstdlib>

#include "vta/isa/config.h"
#include "vta/isa/parse_int.h"
#include "vta/sweeps/metrics.h"

namespace vta::sweeps {

namespace {

std::string sql_text(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

std::string sql_name(const std::string& s) {
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// `v` as an SQL literal.
std::string sql_literal(const nlohmann::json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt::format("{:.17g}", v.get<double>());
  return sql_text(v.get<std::string>());
}

}  // namespace

nlohmann::json typed_knob(const std::string& key, const std::string& text) {
  const KnobInfo* k = find_knob(key);
  if (!k) return text;
  int64_t i = 0;
  switch (k->kind) {
    case KnobKind::INT:
    case KnobKind::POW2:
      if (parse_int(text, i)) return i;
      break;
    case KnobKind::SIZE:
      if (parse_size(text, i)) return i;
      break;
    case KnobKind::REAL: {
      char* end = nullptr;
      const double d = std::strtod(text.c_str(), &end);
      if (!text.empty() && end && *end == '\0') return d;
      break;
    }
    case KnobKind::BOOL:
      if (text == "true" || text == "false") return text == "true" ? 1 : 0;
      break;
    default:
      break;
  }
  return text;
}

std::vector<std::string> swept_knobs(const SweepSpec& spec) {
  std::vector<std::string> keys;
  for (const Axis& a : spec.axes)
    for (const auto& k : a.keys) keys.push_back(k);
  return keys;
}

std::string wide_select(const SweepSpec* spec, const std::vector<std::string>& knob_keys) {
  std::string cols = "p.point_key AS point_key, p.idx AS idx, p.network AS network, p.config_hash AS config_hash";
  // Each knob: the stored text mapped to its typed value, value by value
  // (the axis lists the texts; a SIZE knob's units are parsed here, once).
  auto knob_column = [&](const std::string& key, const Axis* axis, size_t k) {
    const std::string stored = fmt::format("json_extract(p.knobs, {})", sql_text("$." + sql_name(key)));
    std::string expr = stored;
    if (axis) {
      std::string cases;
      for (const auto& setting : axis->values)
        if (const auto v = typed_knob(key, setting[k]); !v.is_string())
          cases += fmt::format(" WHEN {} THEN {}", sql_text(setting[k]), sql_literal(v));
      if (!cases.empty()) expr = fmt::format("CASE {}{} ELSE {} END", stored, cases, stored);
    }
    cols += fmt::format(", {} AS {}", expr, sql_name(key));
  };
  if (spec) {
    for (const Axis& a : spec->axes)
      for (size_t k = 0; k < a.keys.size(); ++k) knob_column(a.keys[k], &a, k);
  } else {
    for (const auto& key : knob_keys) knob_column(key, nullptr, 0);
  }
  cols +=
      ", r.stage AS stage, r.stage_name AS stage_name, r.status AS status, r.error AS error, "
      "r.verify_status AS verify_status";
  for (const auto& m : known_metrics())
    cols += fmt::format(", json_extract(r.metrics, {}) AS {}", sql_text("$." + sql_name(m)), sql_name(m));
  cols += ", r.wall_s AS wall_s";
  return fmt::format("SELECT {} FROM points p JOIN results r USING (point_key) ORDER BY p.idx, p.network, r.stage",
                     cols);
}

std::string with_other_metrics(const std::string& select, const std::vector<std::string>& others) {
  if (others.empty()) return select;
  std::string cols = "w.*";
  for (const auto& m : others)
    cols += fmt::format(", json_extract(r.metrics, {}) AS {}", sql_text("$." + sql_name(m)), sql_name(m));
  return fmt::format(
      "SELECT {} FROM ({}) AS w JOIN results r ON r.point_key = w.point_key AND r.stage = w.stage "
      "ORDER BY w.idx, w.network, w.stage",
      cols, select);
}

}  // namespace vta::sweeps
