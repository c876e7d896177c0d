#include "vta/compiler/schedule/node_facts.h"

#include <vector>

namespace vta::compiler {

struct KeepNodeFacts::State {
  const Graph* graph = nullptr;
  std::vector<int64_t> bias_lanes;  // per node: -1 not known yet
  std::vector<int8_t> pool_first;   // per node: -1 not known yet, else 0 / 1
};

namespace {

thread_local KeepNodeFacts::State* kept = nullptr;

// The index of `n` in the kept graph, or -1.
int64_t kept_index(const Node& n) {
  if (!kept || !kept->graph || kept->graph->nodes.empty()) return -1;
  const Node* first = kept->graph->nodes.data();
  if (&n < first || &n >= first + kept->graph->nodes.size()) return -1;
  return &n - first;
}

}  // namespace

KeepNodeFacts::KeepNodeFacts(const Graph& g) {
  auto s = std::make_unique<State>();
  s->graph = &g;
  s->bias_lanes.assign(g.nodes.size(), -1);
  s->pool_first.assign(g.nodes.size(), -1);
  previous_.reset(kept);
  kept = s.release();
}

KeepNodeFacts::~KeepNodeFacts() {
  delete kept;
  kept = previous_.release();
}

int64_t kept_bias_lanes(const Node& n, int64_t (*f)(const Node&)) {
  const int64_t i = kept_index(n);
  if (i < 0) return f(n);
  int64_t& v = kept->bias_lanes[static_cast<size_t>(i)];
  if (v < 0) v = f(n);
  return v;
}

bool kept_pool_first(const Node& n, bool (*f)(const Node&)) {
  const int64_t i = kept_index(n);
  if (i < 0) return f(n);
  int8_t& v = kept->pool_first[static_cast<size_t>(i)];
  if (v < 0) v = f(n) ? 1 : 0;
  return v == 1;
}

}  // namespace vta::compiler
