#pragma once
// The passes of compile() after the graph passes (pack_stem, band_rows,
// partition, insert_copies in compile.h), each a free function in its own file that takes the network
// as the earlier passes left it and returns it with its own part added, and
// the text `vta run --dump-after PASS` prints after it.
#include <string>

#include "vta/compiler/compile.h"

namespace vta::compiler {

/// "layout" (passes/layout.cpp): one blocked DRAM buffer per node output (int32
/// outputs plain NCHW), net.activation mapping each node to it.
CompiledNetwork plan_layout(CompiledNetwork net, const Config& c);
std::string dump_layout(const CompiledNetwork& net);

/// "segments" (segments.cpp): maximal runs of consecutive VTA nodes, each one
/// device run synchronised with the host only at its ends.
CompiledNetwork form_segments(CompiledNetwork net, const Config& c);
std::string dump_segments(const CompiledNetwork& net);

/// "tiling" (passes/tiling.cpp): net.layers[id].tile for every VTA conv/dense
/// (choose_tile(), with the residual Add fused into it).
CompiledNetwork choose_tiles(CompiledNetwork net, const Config& c);
std::string dump_tiles(const CompiledNetwork& net);

/// "codegen" (codegen.cpp): weights, biases, uops and the instruction stream
/// of every segment, with one region per node.
CompiledNetwork codegen(CompiledNetwork net, const Config& c);
std::string dump_code(const CompiledNetwork& net);

}  // namespace vta::compiler
