#include "vta/compiler/ir/node_facts.h"

#include <array>
#include <limits>
#include <vector>

namespace vta::compiler {

namespace {

constexpr int64_t kUnknown = std::numeric_limits<int64_t>::min();
using Facts = std::array<int64_t, static_cast<size_t>(NodeFact::Count)>;

}  // namespace

struct KeepNodeFacts::State {
  const Graph* graph = nullptr;
  std::vector<Facts> facts;  // per node, kUnknown until computed
};

namespace {

thread_local KeepNodeFacts::State* kept = nullptr;

}  // namespace

KeepNodeFacts::KeepNodeFacts(const Graph& g) {
  auto s = std::make_unique<State>();
  s->graph = &g;
  Facts unknown;
  unknown.fill(kUnknown);
  s->facts.assign(g.nodes.size(), unknown);
  previous_.reset(kept);
  kept = s.release();
}

KeepNodeFacts::~KeepNodeFacts() {
  delete kept;
  kept = previous_.release();
}

int64_t kept_fact(const Node& n, NodeFact f, int64_t (*compute)(const Node&)) {
  if (!kept || kept->graph->nodes.empty()) return compute(n);
  const Node* first = kept->graph->nodes.data();
  if (&n < first || &n >= first + kept->graph->nodes.size()) return compute(n);
  int64_t& v = kept->facts[static_cast<size_t>(&n - first)][static_cast<size_t>(f)];
  if (v == kUnknown) v = compute(n);
  return v;
}

}  // namespace vta::compiler
