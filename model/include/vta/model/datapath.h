#pragma once
// The on-chip state of a VTA core and the semantics of LOAD, STORE, GEMM and
// ALU on it. The golden model and the SystemC model both execute through
// this one datapath; they differ only in when they call it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/dram.h"

namespace vta::model {

/// A zero-filled array of trivially copyable T on a 64-byte boundary, so that
/// SIMD rows never straddle cache lines. Filled and copied with memset and
/// memcpy, never element by element: a std::vector with an aligned allocator
/// constructs and destroys each element in a loop, which the fuzzing build's
/// coverage instrumentation made most of the fuzz_program target's time. A
/// zero fill comes from calloc, which for large arrays maps fresh zero pages
/// and writes nothing: pages a run never touches cost nothing (a backend's
/// SRAM arrays are mostly untouched by a small program).
template <typename T>
class AlignedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  AlignedArray() = default;
  AlignedArray(const AlignedArray& o) { copy_from(o); }
  AlignedArray& operator=(const AlignedArray& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  /// n elements, all `value` (0 from calloc; others written in a loop).
  void assign(size_t n, T value) {
    const bool zero = value == T{};
    reset(n, zero);
    if (!zero) std::fill_n(p_, n, value);
  }
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  void reset(size_t n, bool zero) {
    raw_.reset();
    p_ = nullptr;
    n_ = n;
    if (n == 0) return;
    void* r = zero ? std::calloc(n * sizeof(T) + 63, 1) : std::malloc(n * sizeof(T) + 63);
    if (!r) throw std::bad_alloc();
    raw_.reset(r);
    p_ = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(r) + 63) & ~uintptr_t{63});
  }
  void copy_from(const AlignedArray& o) {
    reset(o.n_, false);
    if (n_) std::memcpy(p_, o.p_, n_ * sizeof(T));
  }
  std::unique_ptr<void, Free> raw_;
  T* p_ = nullptr;
  size_t n_ = 0;
};

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

  /// Elements [index, index+count) of an on-chip buffer, packed as in DRAM.
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
  /// Refreshes wgt_packed_ for WGT elements [first, first+count).
  void update_wgt_packed(uint64_t first, uint64_t count);

  Config cfg_;
  isa::Layout layout_;
  // Values per element of INP, WGT and ACC/OUT.
  int64_t inp_lanes_, wgt_lanes_, acc_lanes_;
  // Element widths in bits (dtype.*_bits).
  int inp_bits_, wgt_bits_, acc_bits_, out_bits_;
  // SRAM contents, element-major, one value per lane, sign-extended from
  // its width (docs/design.md, "Data types"); DRAM holds them packed.
  std::vector<uint32_t> uop_raw_;
  std::vector<Uop> uop_;
  AlignedArray<int16_t> inp_, wgt_, out_;
  AlignedArray<int32_t> acc_;
  // The WGT buffer in int16 pairs across output channels
  // (model/src/gemm_kernels.h): the GEMM's inner step is then one SIMD
  // multiply-add of pairs, two MACs per lane.
  AlignedArray<int16_t> wgt_packed_;
};

/// ALU semantics on one element pair (shared with every model), at 32
/// bits; an accumulator of dtype.acc_bits keeps the result's low bits
/// (isa::wrap_bits).
int32_t alu_apply(isa::AluOp op, int32_t a, int32_t b);

}  // namespace vta::model
