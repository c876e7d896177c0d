#include "vta/sweeps/export.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace vta::sweeps {

namespace {

// RFC 4180 quoting where needed.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.10g}", v) : ""; }

}  // namespace

const StageResult* best_result(const StoredPoint& p) {
  for (auto it = p.stages.rbegin(); it != p.stages.rend(); ++it)
    if (it->first > kStageConfig && it->second.status == "ok") return &it->second;
  return nullptr;
}

std::string status_text(const Store& s) {
  const auto info = s.info();
  const auto points = s.load(false);
  std::string out = info ? fmt::format("sweep {} (spec {}, {}; started {})\n", info->name, info->spec_source,
                                       info->tool, info->created)
                         : "empty store\n";
  std::map<int, std::map<std::string, int64_t>> counts;
  for (const auto& p : points)
    for (const auto& [st, r] : p.stages) ++counts[st][r.status];
  out += fmt::format("{} design points x networks\n", points.size());
  for (const auto& [st, c] : counts) {
    std::string parts;
    for (const auto& [status, n] : c) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, status);
    out += fmt::format("stage {} {:<8}: {}\n", st, stage_name(st), parts);
  }
  return out;
}

std::string export_csv(const Store& s) {
  const Store::Table t = s.wide();
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c]);
  out += "\n";
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      const nlohmann::json& v = row[c];
      if (c) out += ",";
      if (v.is_number_integer())
        out += std::to_string(v.get<int64_t>());
      else if (v.is_number())
        out += num(v.get<double>());
      else if (v.is_string())
        out += csv_field(v.get<std::string>());
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json export_json(const Store& s, const std::vector<StoredPoint>& points, bool layers) {
  nlohmann::ordered_json j;
  if (const auto info = s.info())
    j["sweep"] = {{"name", info->name},       {"spec_source", info->spec_source},       {"tool", info->tool},
                  {"created", info->created}, {"schema_version", info->schema_version}, {"spec", info->spec_text}};
  j["points"] = nlohmann::ordered_json::array();
  for (const auto& p : points) {
    nlohmann::ordered_json pj{{"key", p.info.key},
                              {"index", p.info.index},
                              {"network", p.info.network},
                              {"config_hash", p.info.config_hash},
                              {"knobs", nlohmann::ordered_json::parse(p.info.knobs)}};
    nlohmann::ordered_json st = nlohmann::ordered_json::object();
    for (const auto& [n, r] : p.stages) {
      auto rj = r.to_json();
      if (!layers) rj.erase("layers");
      st[stage_name(n)] = rj;
    }
    pj["stages"] = st;
    j["points"].push_back(pj);
  }
  return j;
}

}  // namespace vta::sweeps
