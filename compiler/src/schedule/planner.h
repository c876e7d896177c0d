#pragma once
// DRAM planning shared by the layout and codegen passes: buffers at fixed
// physical addresses, allocated as a fresh backend's Dram::alloc would.
#include <algorithm>
#include <map>
#include <optional>

#include "vta/compiler/ir/network.h"
#include "vta/isa/error.h"

namespace vta::compiler {

// Page allocation from 0x1000, exactly as Dram::alloc on a fresh backend:
// aligned to elements larger than a page (Dram::align_for), in the first
// free range large enough, so a small buffer can land in the gap an earlier
// alignment left; the buffers `net` already holds (the earlier passes') are
// taken.
class Planner {
 public:
  Planner(CompiledNetwork& net, const Config& c) : net_(net), cfg_(c) {
    for (const Buffer& b : net.buffers) used_[b.addr] = pages(b.bytes);
  }
  int add(Buffer b) {
    const uint64_t align = Dram::align_for(static_cast<uint64_t>(cfg_.elem_bytes(static_cast<int>(b.mem))));
    const uint64_t need = pages(b.bytes);
    auto up = [&](uint64_t a) { return (a + align - 1) / align * align; };
    uint64_t at = up(Dram::kBase);
    for (const auto& [addr, size] : used_) {
      if (addr >= at && addr - at >= need) break;
      at = std::max(at, up(addr + size));
    }
    used_[at] = need;
    b.addr = at;
    net_.buffers.push_back(std::move(b));
    return static_cast<int>(net_.buffers.size()) - 1;
  }
  // The buffer's address in elements of its memory, or of memory `as` (an
  // activation is read as INP and ACC_8BIT and written as OUT elements).
  int64_t elem(int buffer, const Config& c, std::optional<isa::MemId> as = std::nullopt) const {
    const Buffer& b = net_.buffers[static_cast<size_t>(buffer)];
    const auto e = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(as.value_or(b.mem))));
    if (b.addr % e != 0) fail("buffer {} at 0x{:x} is not aligned to its {}-byte elements", b.name, b.addr, e);
    return static_cast<int64_t>(b.addr / e);
  }

 private:
  static uint64_t pages(uint64_t bytes) {
    return (std::max<uint64_t>(bytes, 1) + Dram::kPageBytes - 1) / Dram::kPageBytes * Dram::kPageBytes;
  }
  CompiledNetwork& net_;
  const Config& cfg_;
  std::map<uint64_t, uint64_t> used_;  // allocated ranges: address -> bytes (whole pages)
};

}  // namespace vta::compiler
