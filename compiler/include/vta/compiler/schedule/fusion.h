#pragma once
// Epilogue fusion (fusion.cpp has the rules): which residual Add or max pool
// a convolution's epilogue computes, so that it makes no pass of its own.
#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"

namespace vta::compiler {

/// Residual adds fused into the convolution that produces one operand: the
/// conv's epilogue loads the other operand into the accumulator tile, adds,
/// requantizes and stores the Add's output. fused_into(): the conv/dense
/// node Add node `add` is fused into, or -1; fused_add(): the Add fused into
/// conv/dense node `conv`, or -1.
int fused_into(const Graph& g, int add, const Config& c);
int fused_add(const Graph& g, int conv, const Config& c);
/// Max pools fused into the convolution that is their only input: the
/// conv's epilogue pools the requantized tile in ACC and stores only the
/// pooled map, so the conv's map never goes to DRAM. pool_fused_into(): the
/// conv node MaxPool node `pool` is fused into, or -1; fused_pool(): the pool
/// fused into conv `conv`, or -1; fused_epilogue(): the Add or the pool fused
/// into `conv`.
int pool_fused_into(const Graph& g, int pool, const Config& c);
int fused_pool(const Graph& g, int conv, const Config& c);
int fused_epilogue(const Graph& g, int conv, const Config& c);

}  // namespace vta::compiler
