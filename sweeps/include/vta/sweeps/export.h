#pragma once
// Reading a results store back: status counts, CSV and JSON exports, and the
// best available result of each point (the highest stage that finished ok).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/sweeps/store.h"

namespace vta::sweeps {

/// The highest stage of `p` whose status is ok, or nullptr.
const StageResult* best_result(const StoredPoint& p);

/// Points done / invalid / failed / timed out per stage, as text.
std::string status_text(const Store& s);
/// The wide table (sweeps/wide.h: one typed row per point and stage, the
/// header of the view points_wide, then any other metric the store holds)
/// as CSV: numbers as numbers, null empty.
std::string export_csv(const Store& s);
/// {"sweep": {...}, "points": [{key, index, network, config_hash, knobs, stages: {...}}]}.
nlohmann::ordered_json export_json(const Store& s, const std::vector<StoredPoint>& points, bool layers);

}  // namespace vta::sweeps
