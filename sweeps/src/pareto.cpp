#include "vta/sweeps/pareto.h"

#include <algorithm>
#include <cmath>

namespace vta::sweeps {

namespace {

bool finite(const std::vector<double>& r) {
  for (double v : r)
    if (!std::isfinite(v)) return false;
  return true;
}

// a dominates b: no worse in every objective, better in one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] > b[k]) return false;
    if (a[k] < b[k]) better = true;
  }
  return better;
}

}  // namespace

std::vector<int> pareto_ranks(const std::vector<std::vector<double>>& rows) {
  const size_t n = rows.size();
  std::vector<int> rank(n, -1);
  std::vector<size_t> left;
  int worst = 0;
  for (size_t i = 0; i < n; ++i)
    if (finite(rows[i])) left.push_back(i);
  for (int r = 0; !left.empty(); ++r) {
    std::vector<size_t> front, rest;
    for (size_t i : left) {
      bool dominated = false;
      for (size_t j : left)
        if (j != i && dominates(rows[j], rows[i])) {
          dominated = true;
          break;
        }
      (dominated ? rest : front).push_back(i);
    }
    for (size_t i : front) rank[i] = r;
    worst = r;
    left = std::move(rest);
  }
  for (auto& r : rank)
    if (r < 0) r = worst + 1;
  return rank;
}

std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& rows) {
  // Rows in lexicographic order: no row is dominated by a later one, so each
  // needs checking only against the front found before it (O(n x front)).
  std::vector<size_t> order;
  for (size_t i = 0; i < rows.size(); ++i)
    if (finite(rows[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows[a] < rows[b]; });
  std::vector<size_t> front;
  for (size_t i : order) {
    bool dominated = false;
    for (size_t f : front)
      if (dominates(rows[f], rows[i])) {
        dominated = true;
        break;
      }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end());
  return front;
}

std::vector<size_t> within_front(const std::vector<std::vector<double>>& rows, double pct) {
  // A row dominating a point is itself dominated by (or equal to) a front
  // row, so checking the improved point against the front suffices.
  const std::vector<size_t> front = pareto_front(rows);
  if (pct <= 0) return front;
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!finite(rows[i])) continue;
    std::vector<double> better = rows[i];
    for (double& v : better) v -= std::abs(v) * pct / 100.0;
    bool dominated = false;
    for (size_t f : front)
      if (f != i && dominates(rows[f], better)) {
        dominated = true;
        break;
      }
    if (!dominated) out.push_back(i);
  }
  return out;
}

namespace {

// Hypervolume of `rows` (each strictly better than `ref` in the first `k`
// objectives) in those objectives: slices between consecutive values of
// objective k-1, each slice the (k-1)-volume of the rows at or below it.
double volume(std::vector<std::vector<double>> rows, const std::vector<double>& ref, size_t k) {
  if (rows.empty()) return 0;
  if (k == 1) {
    double best = ref[0];
    for (const auto& r : rows) best = std::min(best, r[0]);
    return ref[0] - best;
  }
  const size_t last = k - 1;
  std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return a[last] < b[last]; });
  double v = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double top = i + 1 < rows.size() ? rows[i + 1][last] : ref[last];
    if (top <= rows[i][last]) continue;  // a tie: the next slice holds both
    const std::vector<std::vector<double>> below(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(i + 1));
    v += (top - rows[i][last]) * volume(below, ref, last);
  }
  return v;
}

}  // namespace

double hypervolume(const std::vector<std::vector<double>>& rows, const std::vector<double>& ref) {
  std::vector<std::vector<double>> inside;
  for (size_t i : pareto_front(rows)) {
    bool ok = rows[i].size() == ref.size();
    for (size_t k = 0; ok && k < ref.size(); ++k) ok = std::isfinite(rows[i][k]) && rows[i][k] < ref[k];
    if (ok) inside.push_back(rows[i]);
  }
  return volume(std::move(inside), ref, ref.size());
}

std::vector<double> oriented(const Metrics& m, const std::vector<Objective>& objs) {
  std::vector<double> v;
  for (const auto& o : objs) {
    const double x = m.get(o.metric);
    v.push_back(o.maximize ? -x : x);
  }
  return v;
}

}  // namespace vta::sweeps
