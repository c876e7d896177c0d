#include "vta/sim/dram/mapping.h"

#include <array>
#include <bit>

#include "vta/isa/error.h"

namespace vta::sim::dram {

namespace {
constexpr std::array<std::string_view, 6> kNames = {"ro", "ra", "bg", "ba", "co", "ch"};

uint32_t log2(uint32_t v) { return static_cast<uint32_t>(std::countr_zero(v)); }
}  // namespace

Mapping::Mapping(const Spec& s, std::string_view order)
    : order_(order.empty() ? kDefaultMapping : order), burst_bytes_(s.burst_bytes()), offset_bits_(log2(burst_bytes_)) {
  const std::array<uint32_t, 6> bits = {
      log2(s.rows),    log2(s.ranks), log2(s.bankgroups), log2(s.banks_per_group), log2(s.columns / s.burst_length),
      log2(s.channels)};
  std::vector<Field> msb_first;
  std::string_view rest = order_;
  while (true) {
    const size_t dot = rest.find('.');
    const std::string_view name = rest.substr(0, dot);
    size_t k = 0;
    while (k < kNames.size() && kNames[k] != name) ++k;
    if (k == kNames.size())
      fail("memory.dram_mapping: '{}' in '{}' is not a field (ro, ra, bg, ba, co, ch)", name, order_);
    for (Field f : msb_first)
      if (f == static_cast<Field>(k)) fail("memory.dram_mapping: '{}' appears twice in '{}'", name, order_);
    msb_first.push_back(static_cast<Field>(k));
    if (dot == std::string_view::npos) break;
    rest = rest.substr(dot + 1);
  }
  if (msb_first.size() != kNames.size())
    fail("memory.dram_mapping: '{}' must name each of ro, ra, bg, ba, co, ch once", order_);
  uint32_t shift = offset_bits_;
  for (auto it = msb_first.rbegin(); it != msb_first.rend(); ++it) {
    slices_.push_back(Slice{*it, shift, bits[*it]});
    shift_[*it] = shift;
    mask_[*it] = (uint64_t{1} << bits[*it]) - 1;
    shift += bits[*it];
  }
}

Location Mapping::map(uint64_t addr) const {
  const auto field = [&](Field f) { return static_cast<uint32_t>((addr >> shift_[f]) & mask_[f]); };
  return Location{field(ch), field(ra), field(bg), field(ba), field(ro), field(co)};
}

uint64_t Mapping::address(const Location& l) const {
  const std::array<uint32_t, 6> v = {l.row, l.rank, l.bankgroup, l.bank, l.column, l.channel};
  uint64_t a = 0;
  for (const Slice& s : slices_) a |= (uint64_t{v[s.field]} & ((uint64_t{1} << s.bits) - 1)) << s.shift;
  return a;
}

}  // namespace vta::sim::dram
