#pragma once
// The device's physical address space: a 4 KiB-page allocator starting at
// 0x1000 (address 0 is never valid), backing storage per allocation, and
// bounds-checked access. Every backend works on one Dram.
//
// Storage costs what a program touches, not what it allocates: an
// allocation's zero-filled pages come from the system on first touch
// (ZeroPages), so a legal config with memory.dram_size = 16GiB and a program
// whose buffers reach the top of it holds the pages it reads or writes
// (tests/test_untrusted_inputs.cpp, UntrustedReads.AHugeDramTouchedAtItsTopCostsWhatItTouches).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace vta {

/// Zero-filled bytes whose pages are provided on first touch: a private
/// anonymous mapping (reserved without swap accounting) for large sizes,
/// calloc() below (whose large blocks are fresh mappings too). Untouched
/// pages read as zero and cost no memory. Move-only.
class ZeroPages {
 public:
  ZeroPages() = default;
  /// Throws vta::Error when `bytes` of address space cannot be reserved.
  explicit ZeroPages(uint64_t bytes);
  ~ZeroPages();
  ZeroPages(ZeroPages&& o) noexcept;
  ZeroPages& operator=(ZeroPages&& o) noexcept;
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;

  uint8_t* data() { return p_; }
  const uint8_t* data() const { return p_; }
  uint64_t size() const { return n_; }
  const uint8_t* begin() const { return p_; }
  const uint8_t* end() const { return p_ + n_; }
  uint8_t operator[](uint64_t i) const { return p_[i]; }

 private:
  void release();
  uint8_t* p_ = nullptr;
  uint64_t n_ = 0;
  bool mapped_ = false;  // munmap() rather than free()
};

class Dram {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint64_t kBase = 0x1000;

  /// `size` is the size of the physical address space (memory.dram_size).
  explicit Dram(uint64_t size);

  /// Allocates `bytes` (rounded up to whole pages) at the lowest free
  /// address aligned to a page and to `align` (a power of two: the element
  /// size of a buffer whose elements are larger than a page, so that
  /// dram_base, counted in elements, can name it); zero-filled, each page
  /// backed when first touched. Throws vta::Error when it does not fit.
  uint64_t alloc(uint64_t bytes, uint64_t align = kPageBytes);
  /// The alignment alloc() needs for a buffer of `elem_bytes`-byte elements.
  static uint64_t align_for(uint64_t elem_bytes) { return elem_bytes > kPageBytes ? elem_bytes : kPageBytes; }
  /// Frees the allocation starting at `addr`; throws if there is none.
  void free(uint64_t addr);
  /// Frees everything.
  void reset();

  /// True when [addr, addr+bytes) lies inside one allocation (its requested
  /// size: the rest of its last page is outside).
  bool contains(uint64_t addr, uint64_t bytes) const;
  /// Pointer to [addr, addr+bytes) or nullptr when it is not inside one
  /// allocation. Valid until the allocation is freed.
  uint8_t* find(uint64_t addr, uint64_t bytes);
  const uint8_t* find(uint64_t addr, uint64_t bytes) const;
  /// Checked copies; throw vta::Error naming the range.
  void write(uint64_t addr, std::span<const uint8_t> data);
  void read(uint64_t addr, std::span<uint8_t> out) const;
  std::vector<uint8_t> read(uint64_t addr, uint64_t bytes) const;

  struct Allocation {
    uint64_t addr;
    uint64_t bytes;  // requested size
    ZeroPages data;  // whole pages
  };
  const std::map<uint64_t, Allocation>& allocations() const { return allocs_; }
  uint64_t size() const { return size_; }
  /// "[0x1000, 0x1100)" for messages.
  static std::string range(uint64_t addr, uint64_t bytes);

 private:
  const Allocation* lookup(uint64_t addr, uint64_t bytes) const;
  uint64_t size_;
  std::map<uint64_t, Allocation> allocs_;
  // The allocations from kBase up to here leave no gap, so that alloc()'s
  // first-fit search starts here: n allocations cost O(n log n), not O(n^2).
  uint64_t dense_end_ = kBase;
  mutable const Allocation* last_ = nullptr;  // one-entry lookup cache
};

}  // namespace vta
