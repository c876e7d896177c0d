// ImageBuilder (see image_builder.h).
#include "vta/model/image_builder.h"

#include <algorithm>
#include <cstring>

#include "vta/isa/error.h"

namespace vta::build {

using isa::Insn;
using isa::Member;
using isa::MemId;

ImageBuilder::ImageBuilder(const Config& c, std::string source, uint64_t first_addr)
    : cfg_(c), layout_(c), next_addr_(first_addr) {
  image_.source = std::move(source);
}

uint32_t ImageBuilder::buffer(const std::string& name, MemId mem, uint32_t count, const std::vector<uint8_t>& bytes) {
  const auto e = static_cast<uint64_t>(cfg_.elem_bytes(static_cast<int>(mem)));
  auto pages = [](uint64_t b) { return std::max<uint64_t>(1, (b + Dram::kPageBytes - 1) / Dram::kPageBytes); };
  // dram_base counts elements: elements larger than a page need an aligned start.
  while (next_addr_ % e != 0) {
    const uint64_t gap = e - next_addr_ % e;
    image_.buffers.push_back(ImageBuffer{name + ".align", MemId::INP, std::vector<uint8_t>(gap, 0), 0});
    next_addr_ += pages(gap) * Dram::kPageBytes;
  }
  std::vector<uint8_t> data(count * e, 0);
  if (bytes.size() > data.size()) fail("ImageBuilder::buffer {}: {} bytes for {} elements", name, bytes.size(), count);
  std::copy(bytes.begin(), bytes.end(), data.begin());
  const uint64_t addr = next_addr_;
  next_addr_ += pages(data.size()) * Dram::kPageBytes;
  image_.buffers.push_back(ImageBuffer{name, mem, std::move(data), 0});
  return static_cast<uint32_t>(addr / e);
}

uint32_t ImageBuilder::uops(const std::string& name, const std::vector<Insn>& u) {
  std::vector<uint8_t> bytes(u.size() * 4);
  for (size_t i = 0; i < u.size(); ++i) {
    const uint32_t w = layout_.encode_uop(u[i]);
    std::memcpy(bytes.data() + 4 * i, &w, 4);
  }
  return buffer(name, MemId::UOP, static_cast<uint32_t>(u.size()), bytes);
}

void ImageBuilder::tile(std::vector<Insn> loads, std::vector<Insn> compute, std::vector<Insn> stores) {
  items_.push_back(Item{true, {}, Tile{std::move(loads), std::move(compute), std::move(stores)}});
}

ProgramImage ImageBuilder::finish() {
  std::vector<Tile*> tiles;
  for (auto& it : items_)
    if (it.is_tile) tiles.push_back(&it.tile);
  bool c2l = false, s2c = false;  // a token waits on compute->load / store->compute
  for (size_t k = 0; k < tiles.size(); ++k) {
    Tile& t = *tiles[k];
    if (t.compute.empty()) t.compute.push_back(load(MemId::ACC, 0, 0, 0, 0, 0));  // token-only
    const bool last = k + 1 == tiles.size();
    const bool next_loads = chain_ && !last && !tiles[k + 1]->loads.empty();
    const bool stores_push = !t.stores.empty() && (chain_ || last);  // unchained: only FINISH waits for stores
    if (!t.loads.empty()) {
      t.loads.front()[Member::pop_next] = c2l;
      t.loads.back()[Member::push_next] = 1;
    }
    t.compute.front()[Member::pop_prev] = !t.loads.empty();
    t.compute.front()[Member::pop_next] = s2c;
    t.compute.back()[Member::push_prev] = next_loads;
    t.compute.back()[Member::push_next] = !t.stores.empty();
    if (!t.stores.empty()) {
      t.stores.front()[Member::pop_prev] = 1;
      t.stores.back()[Member::push_prev] = stores_push;
    }
    c2l = next_loads;
    s2c = stores_push;
  }
  std::vector<Insn> all;
  for (const auto& it : items_) {
    if (!it.is_tile) {
      all.push_back(it.insn);
      continue;
    }
    for (const auto* phase : {&it.tile.loads, &it.tile.compute, &it.tile.stores})
      all.insert(all.end(), phase->begin(), phase->end());
  }
  all.push_back(with_deps(build::finish(), false, s2c, false, false));
  image_.insns.clear();
  for (const Insn& i : all) image_.insns.push_back(layout_.encode(i));
  return image_;
}

uint64_t next_alloc(const Dram& dram) {
  const auto& a = dram.allocations();
  if (a.empty()) return Dram::kBase;
  const auto& last = *a.rbegin();
  return last.first + last.second.data.size();
}

}  // namespace vta::build
