#pragma once
// The store as one wide, typed table, for analysis (pandas, SQL): one row
// per point and stage with the point's columns, each swept knob as a column
// of its own type (sizes in bytes as integers, clocks and depths as numbers,
// booleans 0/1, ENUM and STR knobs as text), the stage's status and
// verify_status, and every metric and estimate column (metrics.def, then
// `dsp`, `fmax_mhz`, ...) as a REAL column. The store keeps it as the SQL
// view `points_wide` (no bytes per point: the view reads `points.knobs` and
// `results.metrics`), and `vta sweep export --csv` writes the same SELECT,
// so the two have one header. No column is named by an SQL keyword.
// Tests: SweepStore.WideViewAndCsvAreTypedAndShareAHeader (tests/test_sweep.cpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/sweeps/spec.h"

namespace vta::sweeps {

/// The value of a knob written `text` in a spec, typed: a number for INT,
/// POW2, SIZE (bytes) and REAL knobs, 1/0 for BOOL, the text otherwise (an
/// unknown knob or a text that does not parse stays text).
nlohmann::json typed_knob(const std::string& key, const std::string& text);

/// The swept knobs of `spec`, in axis order.
std::vector<std::string> swept_knobs(const SweepSpec& spec);

/// The SELECT of the wide table over a store of `spec`, ordered by point
/// index, network and stage. `spec` null (its spec no longer loads): the
/// knobs of `knob_keys` as they are stored (text).
std::string wide_select(const SweepSpec* spec, const std::vector<std::string>& knob_keys);

/// `select` (a wide_select()) with a REAL column for each of `others`:
/// metrics a stage records beyond metrics.def and the estimate (mac_units
/// at stage 0, tune_systemc_runs with tune, rtl_cycles with the RTL check),
/// which `export --csv` appends after wall_s when the store holds them; the
/// view leaves them in results.metrics.
std::string with_other_metrics(const std::string& select, const std::vector<std::string>& others);

}  // namespace vta::sweeps
