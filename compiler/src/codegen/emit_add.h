#pragma once
// A residual Add as its own pass (emit_add.cpp).
#include <cstdint>
#include <vector>

#include "codegen/emitter.h"
#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"
#include "vta/isa/fields.h"

namespace vta::compiler::codegen {

// Residual add: both inputs in ACC via ACC_8BIT loads (compute module), in
// chunks of a quarter of the ACC buffer (two chunks per half); `total`
// ACC_8BIT elements.
void emit_add(Emitter& e, const Node& n, int64_t total, const LayerAddrs& a, const Config& c,
              std::vector<uint32_t>& uops, const isa::Layout& layout);

}  // namespace vta::compiler::codegen
