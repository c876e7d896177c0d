#pragma once
// The on-chip state of a VTA core and the semantics of LOAD, STORE, GEMM and
// ALU on it. The golden model and the SystemC model both execute through
// this one datapath; they differ only in when they call it.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/dram.h"

namespace vta::model {

/// Allocates on 64-byte boundaries, so that SIMD rows never straddle cache lines.
template <typename T>
struct CacheAligned {
  using value_type = T;
  CacheAligned() = default;
  template <typename U>
  CacheAligned(const CacheAligned<U>&) {}  // NOLINT: rebinding constructor
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <typename U>
  bool operator==(const CacheAligned<U>&) const { return true; }
};
template <typename T>
using AlignedVector = std::vector<T, CacheAligned<T>>;

/// A decoded uop as the datapath uses it.
struct Uop {
  uint32_t dst, src, wgt;
};

class Datapath {
 public:
  explicit Datapath(const Config& c);

  // Each executes one instruction; `index` names it in errors. They throw
  // vta::Error for any access outside an SRAM or outside allocated DRAM,
  // before changing any state.
  void load(const isa::Insn& insn, int64_t index, const Dram& dram);
  void store(const isa::Insn& insn, int64_t index, Dram& dram);
  void gemm(const isa::Insn& insn, int64_t index);
  void alu(const isa::Insn& insn, int64_t index);
  /// Raises exactly the error that executing `insn` would raise, without
  /// moving tensor data, so that a model which moves the data itself (the
  /// RTL) can use this datapath as its checker. A LOAD of uops is carried
  /// out, since the GEMM and ALU checks read the uop buffer.
  void check(const isa::Insn& insn, int64_t index, const Dram& dram);

  /// Bytes of elements [index, index+count) of an on-chip buffer.
  std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const;

  const Config& config() const { return cfg_; }
  const isa::Layout& layout() const { return layout_; }
  /// The uop buffer, decoded (the race checker follows the loop nests through it).
  const std::vector<Uop>& uops() const { return uop_; }

 private:
  [[noreturn]] void error(const isa::Insn& insn, int64_t index, const std::string& what) const;
  void check_loop_bounds(const isa::Insn& insn, int64_t index, bool is_gemm) const;
  /// The checks of load() (returns its DRAM rows) and store().
  std::vector<const uint8_t*> check_load(const isa::Insn& insn, int64_t index, const Dram& dram) const;
  void check_store(const isa::Insn& insn, int64_t index, const Dram& dram) const;
  /// Refreshes wgt_t_ for WGT elements [first, first+count).
  void update_wgt_t(uint64_t first, uint64_t count);

  Config cfg_;
  isa::Layout layout_;
  // Element sizes in bytes / lanes.
  int64_t inp_elem_, wgt_elem_, acc_lanes_, out_elem_;
  // SRAM contents, element-major.
  std::vector<uint32_t> uop_raw_;
  std::vector<Uop> uop_;
  AlignedVector<int8_t> inp_, wgt_, out_;
  AlignedVector<int32_t> acc_;
  // The WGT buffer transposed and widened, wgt_t_[e][k][o] = wgt_[e][o][k]:
  // the GEMM inner loop then vectorises across output channels.
  AlignedVector<int32_t> wgt_t_;
};

/// ALU semantics on one element pair (shared with every model).
int32_t alu_apply(isa::AluOp op, int32_t a, int32_t b);

}  // namespace vta::model
