#pragma once
// The design space of a spec as a deterministic list: point i of the
// cartesian product of the axes is decoded from i in mixed radix (the last
// axis varies fastest), so a point is its index, a random sample is a set of
// indices, and a shard is a slice of the same list.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/sweeps/spec.h"

namespace vta::sweeps {

class Space {
 public:
  explicit Space(const SweepSpec& s);
  /// Points in the full product (1 with no axes).
  int64_t size() const { return size_; }
  /// The value index on each axis of point `i`.
  std::vector<int64_t> digits(int64_t i) const;
  int64_t index(const std::vector<int64_t>& digits) const;
  /// The spec's fixed overrides, then the axis values of point `i`.
  std::vector<Override> overrides(int64_t i) const;
  /// Point `i` as a config: the base with overrides(i). An error names the
  /// spec line of the axis or fixed setting behind the knob at fault
  /// (origin()), not the `--set` a sweep's user never typed.
  Config config(int64_t i) const;
  /// Where override `j` of overrides(i) comes from, for any point `i`:
  /// "SPEC:LINE: set KEY" or "SPEC:LINE: axis KEY".
  std::string origin(size_t j) const;
  /// The axis values of point `i` as "key=value" pairs (no fixed overrides).
  std::vector<Override> axis_values(int64_t i) const;
  const std::vector<Axis>& axes() const { return spec_.axes; }
  /// The axis values of point `i` as the store's knobs column: a JSON object
  /// of key -> value text, in axis order (made from pieces built once).
  std::string knobs_json(int64_t i) const;

  /// The points a grid or random strategy visits, in visiting order:
  /// every index (grid), or `samples` distinct indices drawn with the seed
  /// (all of them, shuffled, when samples >= size).
  std::vector<int64_t> initial_points() const;
  /// A permutation of `indices` (positions into it) that puts points that
  /// differ only in the GEMM pipeline depth side by side: the order of the
  /// index with the axes that set `gemm.pipeline_depth` moved innermost,
  /// ties (a point on several networks) in their given order. The tile
  /// search serves such points together (set_search_depths()).
  std::vector<size_t> depth_innermost(const std::vector<int64_t>& indices) const;
  /// A neighbour of point `i`: one axis (two when the space allows) moved to
  /// another value, drawn from `rng` (the evolve strategy's mutation).
  int64_t mutate(int64_t i, std::mt19937_64& rng) const;

 private:
  const SweepSpec& spec_;
  int64_t size_ = 1;
  // pieces_[k][v]: the JSON members of value v of axis k ("\"key\":\"text\"", ...).
  std::vector<std::vector<std::string>> pieces_;
};

/// `error` without the prefix that names where its knob was set (origin(),
/// or "--set KEY" in stores written before it), so that stage 0's messages
/// of designs that differ only there read the same.
std::string without_origin(const std::string& error);

}  // namespace vta::sweeps
