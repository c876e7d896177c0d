#pragma once
// From a quantized graph to VTA programs: partition (which node runs where),
// layout (blocked DRAM tensors), tiling (per layer, within the SRAM halves of
// double buffering, chosen by a cost model of docs/timing.md), and codegen
// (instructions, uops, DMA, dependency tokens, one region per layer).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"
#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"

namespace vta::compiler {

/// Marks every node the config's VTA can run as Device::Vta (the rest stay
/// on the host). Channel counts below the block size are padded, not sent to
/// the host. See partition.cpp for the rules.
Graph partition(const Graph& g, const Config& c);
/// The device partition() gives node `n` of `g` (without copying the graph).
Device placement(const Graph& g, const Node& n, const Config& c);
/// Why node `n` computes ONNX Runtime's float arithmetic on the host where
/// VTA cannot reproduce it bit for bit (ort_ops.h); empty for other nodes.
/// The per-layer report prints it.
std::string host_reason(const Node& n);
/// Stem packing (pack_stem.cpp): every conv of the network input whose channels
/// would mostly be block padding reads an im2col of its input (a host
/// Op::Im2col node named "<conv>.im2col") and becomes 1x1. The first pass
/// of compile() and estimate_network(); returns `g` when nothing is packed.
Graph pack_stem(const Graph& g, const Config& c);
/// Batch rows for batch-1 networks (band_rows.cpp): on a config with gemm.batch
/// B > 1, each VTA conv, pool and add of a batch-1 image computes B row bands
/// of its output at once, one per batch row, so that they share the weights;
/// host Op::Bands nodes cut the inputs into bands (with the rows the windows
/// overlap). After pack_stem() in compile() and estimate_network(); returns
/// `g` when nothing is banded. Test: Zoo/BatchRows.* in tests/test_compiler.cpp.
Graph band_rows(const Graph& g, const Config& c);

/// Explicit device copies (copies.cpp): after partition(), an Op::DeviceCopy
/// node wherever a value crosses between the host and VTA, one per value and
/// direction; a graph output computed on VTA ends with a copy to the host.
/// Test: Copies.* in tests/test_placement.cpp.
Graph insert_copies(const Graph& g, const Config& c);
/// The user's device annotation (pin_host_ops.cpp): every node of the named op
/// kinds (op_name(): conv2d, dense, add, max_pool, avg_pool) pinned to the
/// host (Node::pin_host). Throws vta::Error naming an unknown kind and
/// listing the valid ones.
Graph pin_host_ops(const Graph& g, const std::vector<std::string>& ops);
/// The op kinds VTA can run (those pin_host_ops() accepts).
const std::vector<Op>& vta_op_kinds();

/// Residual adds fused into the convolution that produces one operand
/// (fusion.cpp has the rules): the conv's epilogue loads the other operand
/// into the accumulator tile, adds, requantizes and stores the Add's output,
/// so the Add makes no pass of its own. fused_into(): the conv/dense node
/// Add node `add` is fused into, or -1; fused_add(): the Add fused into
/// conv/dense node `conv`, or -1.
int fused_into(const Graph& g, int add, const Config& c);
int fused_add(const Graph& g, int conv, const Config& c);
/// Max pools fused into the convolution that is their only input (fusion.cpp
/// has the rules): the conv's epilogue pools the requantized tile in ACC and
/// stores only the pooled map, so the pool makes no pass of its own and the
/// conv's map never goes to DRAM. pool_fused_into(): the conv node MaxPool
/// node `pool` is fused into, or -1; fused_pool(): the pool fused into conv
/// `conv`, or -1; fused_epilogue(): the Add or the pool fused into `conv`.
int pool_fused_into(const Graph& g, int pool, const Config& c);
int fused_pool(const Graph& g, int conv, const Config& c);
int fused_epilogue(const Graph& g, int conv, const Config& c);
/// Whether conv `n`'s requantization is non-decreasing over every
/// accumulator it can produce (immediate steps on the tile alone, MUL by a
/// positive factor, and no step leaving 32 bits for int8 inputs and its
/// weights and bias), so that max(requantize(x)) = requantize(max(x)): a
/// fused max pool then pools the accumulators and requantizes only its
/// output.
bool pool_before_requant(const Node& n);
/// Throws vta::Error when no network can be compiled for `c`: a rectangular
/// array (block_in != block_out) needs gemm.batch 1, since a batch x
/// act_block() position cannot be whole INP and whole OUT elements at once.
void check_compilable(const Config& c);

/// Channels per blocked position of an activation: max(block_in, block_out).
/// With block_in != block_out (batch 1 only) one position is act_block /
/// block_in INP elements and act_block / block_out OUT (and ACC_8BIT)
/// elements, one after another.
inline int64_t act_block(const Config& c) { return std::max(c.gemm.block_in, c.gemm.block_out); }
/// INP and OUT elements per blocked position.
inline int64_t inp_per_pos(const Config& c) { return act_block(c) / c.gemm.block_in; }
inline int64_t out_per_pos(const Config& c) { return act_block(c) / c.gemm.block_out; }

/// Blocked DRAM layout of an activation: [N/batch][C/block][H][W] positions,
/// each batch x block int8 (block = act_block(); square arrays: an INP, OUT
/// or ACC_8BIT element).
struct Blocked {
  int64_t nb, cb, h, w;   // element grid
  int64_t batch, block;   // element shape
  int64_t elems() const { return nb * cb * h * w; }
  int64_t bytes() const { return elems() * batch * block; }
};
Blocked blocked(const Shape& s, const Config& c);
/// NCHW int8 -> blocked bytes (zero padding) and back.
std::vector<uint8_t> pack(const Tensor& t, const Config& c);
Tensor unpack(const std::vector<uint8_t>& bytes, const Shape& s, const Config& c);

/// A tile of one layer: th x tw output positions, toc output and tic input
/// channel blocks per step.
struct Tile {
  int64_t th = 1, tw = 1, toc = 1, tic = 1;
  double est_cycles = 0;  // the cost model's estimate for the layer
};
/// The best tile for a conv/dense node on `c` (memoised by shape and config);
/// `add`: the residual Add fused into its epilogue (fused_add()), if any.
Tile choose_tile(const Node& n, const Shape& in, const Config& c, const Node* add = nullptr);
/// The cost model's best `count` tiles for the same layer, cheapest first
/// (the first is choose_tile()'s); fewer where fewer fit. Not memoised.
std::vector<Tile> tile_candidates(const Node& n, const Shape& in, const Config& c, const Node* add, int count);
/// The key a layer's tile is chosen under: its shape in blocks, its epilogue
/// and the config hash (the memo key of choose_tile(), and of
/// CompileOptions::tiles).
std::string tile_key(const Node& n, const Shape& in, const Config& c, const Node* add = nullptr);

/// A DRAM buffer of the compiled network, at a fixed physical address.
struct Buffer {
  std::string name;
  isa::MemId mem;           // element type, for dram_base arithmetic
  uint64_t bytes = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> init;  // weights, biases, uops, instructions (empty: zero / runtime data)
  int node = -1;              // activation of this node, or -1
};

/// One VTA run: consecutive VTA nodes, synchronised with the host only at
/// its ends.
struct Segment {
  std::vector<int> nodes;
  int insn_buffer = -1;  // index into CompiledNetwork::buffers
  uint32_t insn_count = 0;
  std::vector<Region> regions;  // one per node, named after it
};

struct LayerInfo {
  int node = -1;
  Tile tile;
  uint64_t insns = 0, uops = 0;
  std::string key;  // conv/dense: tile_key() of the layer
  // conv/dense: the cost model's pick (choose_tile()); not `tile` where CompileOptions::tiles forced one.
  Tile model;
};

struct CompiledNetwork {
  Graph graph;  // partitioned
  std::vector<Buffer> buffers;
  std::map<int, int> activation;  // node -> buffer index
  std::vector<Segment> segments;
  std::map<int, LayerInfo> layers;  // VTA nodes
  double compile_seconds = 0;
  std::string config_hash;
  // Tiles forced by tile_key() (CompileOptions::tiles), read by the tiling pass.
  std::map<std::string, Tile> forced_tiles;
};

/// What compile() takes besides the graph and the config.
struct CompileOptions {
  std::string dump_after;  // a pass after which the network is printed to stderr (pass_names(); empty: none)
  // Tiles to use instead of the cost model's pick, by tile_key(): the hook of
  // schedule tuning (sweeps/tune.h measures candidates on a cycle model; the
  // compiler itself never runs a backend). A forced tile that does not fit
  // its layer is an error naming the layer.
  std::map<std::string, Tile> tiles;
};

/// Compiles a graph for config `c` through the passes of compile.cpp:
/// pack_stem, band_rows, partition, copies (insert_copies()), layout,
/// segments, tiling (with residual adds fused), codegen. `dump_after` names a pass after which the network is
/// printed to stderr (pass_names(); empty: none).
CompiledNetwork compile(const Graph& g, const Config& c, const std::string& dump_after = "");
CompiledNetwork compile(const Graph& g, const Config& c, const CompileOptions& o);
/// The pipeline's pass names, in order.
std::vector<std::string> pass_names();
/// Throws vta::Error listing pass_names() unless `name` is one (or empty).
void check_pass_name(const std::string& name);

}  // namespace vta::compiler
