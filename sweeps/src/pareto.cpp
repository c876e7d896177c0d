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

std::vector<double> oriented(const Metrics& m, const std::vector<Objective>& objs) {
  std::vector<double> v;
  for (const auto& o : objs) {
    const double x = m.get(o.metric);
    v.push_back(o.maximize ? -x : x);
  }
  return v;
}

}  // namespace vta::sweeps
