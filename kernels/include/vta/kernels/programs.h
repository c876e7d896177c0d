#pragma once
// Program generators for bring-up and benchmarks: whole ProgramImages (DRAM
// buffers with contents, instructions) built in C++ for any config, to be
// installed on a fresh backend with vta::install. Every program is valid and
// synchronised with dependency tokens (load -> compute -> store phases), so
// that it means the same on hardware as on the models.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/builders.h"
#include "vta/model/image.h"

namespace vta::programs {

// Instruction builders (vta/model/builders.h).
using build::alu;
using build::finish;
using build::gemm;
using build::load;
using build::random_bytes;
using build::store;
using build::uop;
using build::with_deps;

/// Builds a ProgramImage whose dram_base fields are right for an install on
/// a fresh backend (buffers are placed as Dram::alloc places them).
class ImageBuilder {
 public:
  ImageBuilder(const Config& c, std::string source);
  /// A DRAM buffer of `count` elements of `mem` holding `bytes` (zero-padded);
  /// returns the dram_base of its first element.
  uint32_t buffer(const std::string& name, isa::MemId mem, uint32_t count, const std::vector<uint8_t>& bytes = {});
  /// A UOP buffer holding `uops`; returns its dram_base.
  uint32_t uops(const std::string& name, const std::vector<isa::Insn>& uops);
  /// Appends one instruction as it is (after the tiles so far).
  void add(const isa::Insn& insn) { items_.push_back(Item{false, insn, {}}); }
  /// Appends one tile: loads (INP/WGT, load module), compute (UOP/ACC loads,
  /// GEMM, ALU) and stores. finish() chains the tiles with dependency tokens:
  /// compute waits for its tile's loads and for the previous tile's stores,
  /// stores wait for compute, and loads wait until the previous compute phase
  /// is done with the buffers. An empty compute phase gets a token-only LOAD.
  void tile(std::vector<isa::Insn> loads, std::vector<isa::Insn> compute, std::vector<isa::Insn> stores);
  /// Sets the tokens of the tiles, appends FINISH (popping the last store
  /// token) and returns the image.
  ProgramImage finish();
  const Config& config() const { return cfg_; }

 private:
  Config cfg_;
  isa::Layout layout_;
  ProgramImage image_;
  struct Tile {
    std::vector<isa::Insn> loads, compute, stores;
  };
  struct Item {
    bool is_tile;
    isa::Insn insn;
    Tile tile;
  };
  std::vector<Item> items_;
  uint64_t next_addr_;
};

struct NamedProgram {
  std::string name;
  ProgramImage image;
};

/// One program per instruction kind and corner: LOAD of each memory with
/// padding on each side, strides, token-only and buffer-end loads, ACC_8BIT
/// sign extension, GEMM (reset, loops, accumulation, wrap-around), every ALU
/// op with immediate and vector operands, SHR with negative and edge amounts,
/// strided stores, all four token queues, FINISH popping, ACC loads keeping OUT.
/// Extensions disabled by the config are left out.
std::vector<NamedProgram> corner_programs(const Config& c, uint32_t seed = 1);

/// A seeded random valid program: tiles of loads (random shapes, pads,
/// strides), compute (UOP and ACC/ACC_8BIT loads, GEMM and ALU loops over
/// windows of each buffer) and stores, synchronised by tokens.
ProgramImage random_program(const Config& c, uint32_t seed);

/// A GEMM-dominated program (for benchmarks): the WGT and INP windows loaded
/// once, then `gemms` GEMM instructions of `iters` x `uops` uop iterations
/// each over them, one ALU shift, one store. Returns its MAC count in `macs`.
ProgramImage gemm_program(const Config& c, uint32_t gemms, uint32_t iters, uint32_t uops, uint64_t& macs);

}  // namespace vta::programs
