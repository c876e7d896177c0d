#pragma once
// Facts of a graph's nodes that cost a pass over a layer's channels or
// weights (the packed biases' lanes, bias_by_gemm(); the accumulator bound,
// pool_before_requant()), kept while the graph is known not to change. A
// sweep estimates one graph on thousands of designs and asks for them
// several times a layer each time; a compiler run asks a few times a layer.
//
// While a KeepNodeFacts of graph g lives (on this thread), the functions
// below compute each fact of a node of g once and then answer from the
// kept value; the owner promises not to change g meanwhile. Without one (or
// for a node of another graph) they compute it every time.
#include <cstdint>
#include <memory>

#include "vta/compiler/ir/network.h"

namespace vta::compiler {

class KeepNodeFacts {
 public:
  explicit KeepNodeFacts(const Graph& g);
  ~KeepNodeFacts();
  KeepNodeFacts(const KeepNodeFacts&) = delete;
  KeepNodeFacts& operator=(const KeepNodeFacts&) = delete;
  struct State;  // node_facts.cpp

 private:
  std::unique_ptr<State> previous_;  // a keeper this one stands in for, restored when it ends
};

/// The fewest INP lanes (gemm.block_in) whose lane form (bias_gemm.h) holds
/// every packed bias of `n` (at least 2); computed by `f` where not kept.
int64_t kept_bias_lanes(const Node& n, int64_t (*f)(const Node&));
/// pool_before_requant(n), computed by `f` where not kept.
bool kept_pool_first(const Node& n, bool (*f)(const Node&));

}  // namespace vta::compiler
