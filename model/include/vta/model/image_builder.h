#pragma once
// ImageBuilder: a whole ProgramImage (DRAM buffers with contents, then the
// instructions) built in C++ for any config, laid out exactly as
// vta::install places it on the backend, so that every dram_base field is
// right without relocation. Used by the random program generator
// (random_program.h), the bring-up corner programs and the benchmarks.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/builders.h"
#include "vta/model/dram.h"
#include "vta/model/image.h"

namespace vta::build {

class ImageBuilder {
 public:
  /// `first_addr`: where the backend's next DRAM allocation lands (Dram::kBase
  /// on a fresh backend; next_alloc() of a used one).
  ImageBuilder(const Config& c, std::string source, uint64_t first_addr = Dram::kBase);
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
  /// Leaves out the tokens that order a tile after the previous one (loads
  /// after the previous compute, compute after the previous stores): tiles
  /// that share buffers then race. For tests of the race checker only.
  void unchain_tiles() { chain_ = false; }
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
  bool chain_ = true;
};

/// Where `dram`'s next allocation lands while nothing has been freed (the
/// first_addr of an image to install after what it holds).
uint64_t next_alloc(const Dram& dram);

}  // namespace vta::build
