#pragma once
// Named counters. Models keep raw counters for speed and publish them here
// by name; reports, sweeps and `--stats json` read these, never logs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta {

class Stats {
 public:
  /// Adds `v` to counter `name`, creating it (in first-use order) at zero.
  void add(const std::string& name, uint64_t v);
  void set(const std::string& name, uint64_t v);
  /// The value of `name`, 0 when absent.
  uint64_t get(const std::string& name) const;
  bool has(const std::string& name) const;
  const std::vector<std::pair<std::string, uint64_t>>& items() const { return items_; }
  nlohmann::ordered_json to_json() const;

 private:
  std::vector<std::pair<std::string, uint64_t>> items_;
};

/// Stats of one run: totals plus one Stats per region (named instruction range).
struct RunStats {
  Stats total;
  std::vector<std::pair<std::string, Stats>> regions;
  nlohmann::ordered_json to_json() const;
  /// Aligned "name value" lines for terminals.
  std::string to_text() const;
};

}  // namespace vta
