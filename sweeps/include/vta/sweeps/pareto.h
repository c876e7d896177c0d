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
/// The hypervolume the rows dominate up to the reference point `ref` (every
/// objective minimized; the volume of the union of the boxes [row, ref]):
/// the one number a search's front is measured by. Rows with a NaN, or not
/// better than `ref` in every objective, add nothing. Exact, by slicing
/// along the last objective: O(n^(k-1) log n) for n rows of k objectives.
double hypervolume(const std::vector<std::vector<double>>& rows, const std::vector<double>& ref);
/// The objective vector of `m`, maximized metrics negated; NaN for a missing one.
std::vector<double> oriented(const Metrics& m, const std::vector<Objective>& objs);

}  // namespace vta::sweeps
