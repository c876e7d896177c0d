#include "vta/model/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace vta {

void Stats::add(const std::string& name, uint64_t v) {
  for (auto& [k, x] : items_)
    if (k == name) {
      x += v;
      return;
    }
  items_.emplace_back(name, v);
}

void Stats::set(const std::string& name, uint64_t v) {
  for (auto& [k, x] : items_)
    if (k == name) {
      x = v;
      return;
    }
  items_.emplace_back(name, v);
}

uint64_t Stats::get(const std::string& name) const {
  for (const auto& [k, x] : items_)
    if (k == name) return x;
  return 0;
}

bool Stats::has(const std::string& name) const {
  return std::any_of(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == name; });
}

nlohmann::ordered_json Stats::to_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : items_) j[k] = v;
  return j;
}

nlohmann::ordered_json RunStats::to_json() const {
  nlohmann::ordered_json j;
  j["total"] = total.to_json();
  j["regions"] = nlohmann::ordered_json::array();
  for (const auto& [name, s] : regions) j["regions"].push_back({{"name", name}, {"stats", s.to_json()}});
  return j;
}

std::string RunStats::to_text() const {
  size_t w = 0;
  for (const auto& [k, v] : total.items()) w = std::max(w, k.size());
  std::string out;
  for (const auto& [k, v] : total.items()) out += fmt::format("  {:<{}}  {:>14}\n", k, w, v);
  return out;
}

}  // namespace vta
