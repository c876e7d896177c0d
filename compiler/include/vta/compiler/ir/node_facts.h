#pragma once
// Facts of a graph's nodes that cost a pass over a layer's channels, weights
// or requantization steps (the packed biases' lanes, bias_by_gemm(); the
// accumulator bound, pool_before_requant(); the requantization's immediate
// steps, requant_imm_ops()), kept while the graph is known not to change. A
// sweep estimates one graph on thousands of designs and asks for them
// several times a layer each time; a compiler run asks a few times a layer.
//
// While a KeepNodeFacts of graph g lives (on this thread), kept_fact()
// computes each fact of a node of g once and then answers from the kept
// value; the owner promises not to change g meanwhile. Without one (or for
// a node of another graph) it computes the fact every time.
#include <cstdint>
#include <memory>

#include "vta/compiler/ir/network.h"

namespace vta::compiler {

enum class NodeFact { BiasLanes, PoolFirst, RequantOps, Count };

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

/// Fact `f` of `n`: `compute(n)`, kept where `n` is a node of a kept graph.
int64_t kept_fact(const Node& n, NodeFact f, int64_t (*compute)(const Node&));

}  // namespace vta::compiler
