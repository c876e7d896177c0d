#pragma once
// The "pin_host_ops" pass (pin_host_ops.cpp): the user's device annotation.
#include <string>
#include <vector>

#include "vta/compiler/passes/pass.h"

namespace vta::compiler {

/// Every node of the named op kinds (op_name(): conv2d, dense, add,
/// max_pool, avg_pool) pinned to the host (Node::pin_host); the pass takes
/// the kinds from CompileOptions::host_ops. Throws vta::Error naming an
/// unknown kind and listing the valid ones.
Graph pin_host_ops(const Graph& g, const std::vector<std::string>& ops);
/// The op kinds VTA can run (those pin_host_ops() accepts).
const std::vector<Op>& vta_op_kinds();

}  // namespace vta::compiler
