#pragma once
// A binary form of graphs and tensors, for the zoo cache (zoo_cache.h): every
// Node field, little-endian, lengths before contents. Reading checks every
// length against the bytes left and throws vta::Error on anything malformed,
// so a corrupt file can never crash or allocate without bound.
#include <cstdint>
#include <string>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// Appends the binary form of `g` / `t` to `out`.
void write_graph(std::string& out, const Graph& g);
void write_tensor(std::string& out, const Tensor& t);

/// Reads what write_graph / write_tensor wrote, from `bytes` at `pos`, and
/// advances `pos`. Throws vta::Error naming `what` when the bytes are not a
/// well-formed graph / tensor.
Graph read_graph(const std::string& bytes, size_t& pos, const std::string& what);
Tensor read_tensor(const std::string& bytes, size_t& pos, const std::string& what);

}  // namespace vta::compiler
