#pragma once
// Parts of the sweep report (report_sweep.cpp) kept apart to keep it short:
// the Pareto table and the funnel's data (report_parts.cpp). Everything
// they put in the page goes through xml_escape (text) or DATA (script_json).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/sweeps/spec.h"
#include "vta/sweeps/store.h"

namespace vta::sweeps {

/// One row of a Pareto table: the point, its result at the front's stage,
/// its stage-3 and stage-4 results (or null) and the `vta run` line that
/// reproduces it.
struct ParetoRow {
  const StoredPoint* point;
  const StageResult* result;
  const StageResult* verify;
  std::string run;
  const StageResult* pnr = nullptr;
};

/// The Pareto table: one column per swept knob, per objective, the clock and
/// the Fmax estimate, each resource any row uses, the stage-3 and stage-4 checks, and a
/// details element with the knob JSON and the run line; numeric cells carry
/// their value for the page's click-to-sort (class "sortable", html.h).
/// `spec` null (a moved base): no clock column.
std::string pareto_table_html(const std::vector<ParetoRow>& rows, const std::vector<Objective>& objs,
                              const SweepSpec* spec);

/// The funnel: labels (each with its count) and counts of the points
/// visited, invalid by reason, valid, and ok at stages 1, 2 and 3 (and 4
/// when the store has stage-4 results); colors
/// mark the invalid bars; reasons: [reason, points] in full.
nlohmann::ordered_json funnel_data(const std::vector<StoredPoint>& points);

/// Why a design is invalid, without the numbers that differ between points
/// ("design check: alu.lanes N is more than ..."): stage 0's error grouped.
std::string invalid_reason(const std::string& error);

/// A point's knobs as "key=value key=value" (hover text).
std::string knobs_label(const std::string& knobs_json);

}  // namespace vta::sweeps
