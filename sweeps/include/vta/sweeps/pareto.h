#pragma once
// Non-dominated sorting over two or more objectives. Rows are objective
// vectors with every objective to be minimized (callers negate maximized
// ones: oriented()); NaN rows (no value) rank after every finite row.
#include <vector>

#include "vta/sweeps/metrics.h"
#include "vta/sweeps/spec.h"

namespace vta::sweeps {

/// Pareto rank of each row: 0 for the non-dominated front, 1 for the front
/// of the rest, and so on.
std::vector<int> pareto_ranks(const std::vector<std::vector<double>>& rows);
/// Indices of the rank-0 rows, in input order.
std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& rows);
/// Rows that would be non-dominated if each of their objectives were
/// `pct` % better (within pct % of the front); pct 0 is the front itself.
std::vector<size_t> within_front(const std::vector<std::vector<double>>& rows, double pct);
/// The objective vector of `m`, maximized metrics negated; NaN for a missing one.
std::vector<double> oriented(const Metrics& m, const std::vector<Objective>& objs);

}  // namespace vta::sweeps
