#include "vta/model/dram.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "vta/isa/error.h"

namespace vta {

namespace {

// From this size on, an allocation is its own mapping (MAP_NORESERVE: a
// 16 GiB device is address space, not a commitment of 16 GiB); below it,
// calloc(), so that many small buffers do not each cost a mapping (the
// kernel's map count is limited).
constexpr uint64_t kMapFrom = uint64_t{1} << 20;

}  // namespace

ZeroPages::ZeroPages(uint64_t bytes) : n_(bytes) {
  if (bytes == 0) return;
  if (bytes >= kMapFrom) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      fail("DRAM allocation of {} bytes: the simulator cannot reserve that much address space ({})", bytes,
           std::strerror(errno));
    p_ = static_cast<uint8_t*>(p);
    mapped_ = true;
  } else {
    p_ = static_cast<uint8_t*>(std::calloc(static_cast<size_t>(bytes), 1));
    if (p_ == nullptr) fail("DRAM allocation of {} bytes: the simulator is out of memory", bytes);
  }
}

void ZeroPages::release() {
  if (p_ != nullptr) {
    if (mapped_)
      ::munmap(p_, n_);
    else
      std::free(p_);
  }
  p_ = nullptr;
  n_ = 0;
  mapped_ = false;
}

ZeroPages::~ZeroPages() { release(); }

ZeroPages::ZeroPages(ZeroPages&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), mapped_(std::exchange(o.mapped_, false)) {}

ZeroPages& ZeroPages::operator=(ZeroPages&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

Dram::Dram(uint64_t size) : size_(size) {}

std::string Dram::range(uint64_t addr, uint64_t bytes) { return fmt::format("[0x{:x}, 0x{:x})", addr, addr + bytes); }

uint64_t Dram::alloc(uint64_t bytes, uint64_t align) {
  if (bytes == 0) bytes = 1;
  if (align < kPageBytes || (align & (align - 1)) != 0)
    fail("DRAM allocation: alignment {} is not a power of two of at least a page", align);
  const uint64_t pages = (bytes + kPageBytes - 1) / kPageBytes;
  const uint64_t need = pages * kPageBytes;
  auto up = [&](uint64_t a) { return (a + align - 1) / align * align; };
  // First fit: the lowest aligned address with `need` free bytes. Below
  // dense_end_ the allocations leave no gap, so the search starts there.
  uint64_t at = up(dense_end_);
  for (auto it = allocs_.lower_bound(dense_end_); it != allocs_.end(); ++it) {
    const auto& [addr, a] = *it;
    if (addr >= at && addr - at >= need) break;
    at = std::max(at, up(addr + a.data.size()));
  }
  if (at + need > size_)
    fail(
        "DRAM allocation of {} bytes does not fit: the {}-byte device address space (memory.dram_size) has no free "
        "range that large",
        bytes, size_);
  last_ = nullptr;
  Allocation a{at, bytes, ZeroPages(need)};
  allocs_.emplace(at, std::move(a));
  for (auto it = allocs_.find(dense_end_); it != allocs_.end() && it->first == dense_end_;
       it = allocs_.find(dense_end_))
    dense_end_ += it->second.data.size();
  return at;
}

void Dram::free(uint64_t addr) {
  if (allocs_.erase(addr) == 0) fail("DRAM free of 0x{:x}: no allocation starts there", addr);
  dense_end_ = std::min(dense_end_, addr);
  last_ = nullptr;
}

void Dram::reset() {
  allocs_.clear();
  dense_end_ = kBase;
  last_ = nullptr;
}

const Dram::Allocation* Dram::lookup(uint64_t addr, uint64_t bytes) const {
  // Bounds are the requested size, not the whole pages behind it: a buffer of
  // 16 bytes is 16 bytes to every backend.
  auto inside = [&](const Allocation* a) {
    return addr >= a->addr && bytes <= a->bytes && addr - a->addr <= a->bytes - bytes;
  };
  if (last_ && inside(last_)) return last_;
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  if (!inside(&it->second)) return nullptr;
  last_ = &it->second;
  return last_;
}

bool Dram::contains(uint64_t addr, uint64_t bytes) const { return lookup(addr, bytes) != nullptr; }

uint8_t* Dram::find(uint64_t addr, uint64_t bytes) {
  const Allocation* a = lookup(addr, bytes);
  return a ? const_cast<uint8_t*>(a->data.data()) + (addr - a->addr) : nullptr;
}

const uint8_t* Dram::find(uint64_t addr, uint64_t bytes) const {
  const Allocation* a = lookup(addr, bytes);
  return a ? a->data.data() + (addr - a->addr) : nullptr;
}

void Dram::write(uint64_t addr, std::span<const uint8_t> data) {
  uint8_t* p = find(addr, data.size());
  if (!p) fail("DRAM write {} is outside any allocation", range(addr, data.size()));
  if (!data.empty()) std::memcpy(p, data.data(), data.size());
}

void Dram::read(uint64_t addr, std::span<uint8_t> out) const {
  const uint8_t* p = find(addr, out.size());
  if (!p) fail("DRAM read {} is outside any allocation", range(addr, out.size()));
  if (!out.empty()) std::memcpy(out.data(), p, out.size());
}

std::vector<uint8_t> Dram::read(uint64_t addr, uint64_t bytes) const {
  std::vector<uint8_t> v(bytes);
  read(addr, v);
  return v;
}

}  // namespace vta
