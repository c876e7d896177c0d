#include "vta/sweeps/space.h"

#include <algorithm>
#include <numeric>
#include <regex>
#include <unordered_set>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace vta::sweeps {

Space::Space(const SweepSpec& s) : spec_(s) {
  for (const auto& a : s.axes) size_ *= static_cast<int64_t>(a.values.size());  // bounded by the loader (10^15)
  for (const auto& a : s.axes) {
    auto& p = pieces_.emplace_back();
    for (const auto& v : a.values) {
      std::string members;
      for (size_t j = 0; j < a.keys.size(); ++j)
        members += fmt::format("{}{}:{}", j ? "," : "", nlohmann::json(a.keys[j]).dump(), nlohmann::json(v[j]).dump());
      p.push_back(std::move(members));
    }
  }
}

std::string Space::knobs_json(int64_t i) const {
  std::string out = "{";
  const auto d = digits(i);
  for (size_t k = 0; k < d.size(); ++k) {
    if (k) out += ',';
    out += pieces_[k][static_cast<size_t>(d[k])];
  }
  return out + "}";
}

std::vector<int64_t> Space::digits(int64_t i) const {
  std::vector<int64_t> d(spec_.axes.size());
  for (size_t k = spec_.axes.size(); k-- > 0;) {
    const auto n = static_cast<int64_t>(spec_.axes[k].values.size());
    d[k] = i % n;
    i /= n;
  }
  return d;
}

std::vector<size_t> Space::depth_innermost(const std::vector<int64_t>& indices) const {
  const auto& axes = spec_.axes;
  auto sets_depth = [](const Axis& a) {
    return std::find(a.keys.begin(), a.keys.end(), "gemm.pipeline_depth") != a.keys.end();
  };
  std::vector<size_t> axis_order;  // outer to inner
  for (size_t k = 0; k < axes.size(); ++k)
    if (!sets_depth(axes[k])) axis_order.push_back(k);
  for (size_t k = 0; k < axes.size(); ++k)
    if (sets_depth(axes[k])) axis_order.push_back(k);
  std::vector<int64_t> keys(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::vector<int64_t> d = digits(indices[i]);
    for (size_t k : axis_order) keys[i] = keys[i] * static_cast<int64_t>(axes[k].values.size()) + d[k];
  }
  std::vector<size_t> order(indices.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return order;
}

int64_t Space::index(const std::vector<int64_t>& d) const {
  int64_t i = 0;
  for (size_t k = 0; k < spec_.axes.size(); ++k) i = i * static_cast<int64_t>(spec_.axes[k].values.size()) + d[k];
  return i;
}

std::vector<Override> Space::axis_values(int64_t i) const {
  std::vector<Override> out;
  const auto d = digits(i);
  for (size_t k = 0; k < spec_.axes.size(); ++k) {
    const Axis& a = spec_.axes[k];
    for (size_t j = 0; j < a.keys.size(); ++j) out.emplace_back(a.keys[j], a.values[static_cast<size_t>(d[k])][j]);
  }
  return out;
}

std::vector<Override> Space::overrides(int64_t i) const {
  std::vector<Override> out = spec_.set;
  for (auto& o : axis_values(i)) out.push_back(std::move(o));
  return out;
}

Config Space::config(int64_t i) const {
  return load_config_text(spec_.base_text, spec_.base, overrides(i), [this](size_t j) { return origin(j); });
}

std::string Space::origin(size_t j) const {
  if (j < spec_.set.size()) {
    const int line = j < spec_.set_lines.size() ? spec_.set_lines[j] : 0;
    return fmt::format("{}:{}: set {}", spec_.source, line, spec_.set[j].first);
  }
  j -= spec_.set.size();
  for (const Axis& a : spec_.axes) {
    if (j < a.keys.size()) return fmt::format("{}:{}: axis {}", spec_.source, a.line, a.keys[j]);
    j -= a.keys.size();
  }
  return spec_.source;
}

std::string without_origin(const std::string& error) {
  static const std::regex prefix("^(--set|.*?:[0-9]+: (axis|set)) [^ :]+: ");
  return std::regex_replace(error, prefix, "", std::regex_constants::format_first_only);
}

std::vector<int64_t> Space::initial_points() const {
  std::mt19937_64 rng(spec_.seed);
  if (spec_.strategy == Strategy::Grid) {
    std::vector<int64_t> all(static_cast<size_t>(size_));
    std::iota(all.begin(), all.end(), int64_t{0});
    return all;
  }
  const int64_t want = spec_.samples;
  if (want >= size_) {
    std::vector<int64_t> all(static_cast<size_t>(size_));
    std::iota(all.begin(), all.end(), int64_t{0});
    std::shuffle(all.begin(), all.end(), rng);
    return all;
  }
  // Distinct uniform draws (Floyd's algorithm keeps memory at O(samples)).
  std::vector<int64_t> out;
  std::unordered_set<int64_t> seen;
  for (int64_t j = size_ - want; j < size_; ++j) {
    const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(rng);
    const int64_t pick = seen.count(t) ? j : t;
    seen.insert(pick);
    out.push_back(pick);
  }
  return out;
}

int64_t Space::mutate(int64_t i, std::mt19937_64& rng) const {
  std::vector<int64_t> d = digits(i);
  std::vector<size_t> movable;
  for (size_t k = 0; k < d.size(); ++k)
    if (spec_.axes[k].values.size() > 1) movable.push_back(k);
  if (movable.empty()) return i;
  const int moves = movable.size() > 1 && std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 2 : 1;
  std::shuffle(movable.begin(), movable.end(), rng);
  for (int m = 0; m < moves; ++m) {
    const size_t k = movable[static_cast<size_t>(m)];
    const auto n = static_cast<int64_t>(spec_.axes[k].values.size());
    // A step to a nearby value most of the time (ordered axes), any value otherwise.
    int64_t v;
    if (std::uniform_int_distribution<int>(0, 3)(rng) != 0)
      v = std::clamp<int64_t>(d[k] + (std::uniform_int_distribution<int>(0, 1)(rng) ? 1 : -1), 0, n - 1);
    else
      v = std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
    if (v == d[k]) v = (d[k] + 1) % n;
    d[k] = v;
  }
  return index(d);
}

}  // namespace vta::sweeps
