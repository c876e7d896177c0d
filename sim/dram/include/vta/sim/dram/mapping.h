#pragma once
// Address mapping: which channel, rank, bank group, bank, row and column a
// byte address falls in. The lowest log2(burst bytes) bits select a byte in
// a burst; the fields above them follow the mapping string, written MSB to
// LSB as dot-separated names: ro (row), ra (rank), bg (bank group), ba (bank
// in its group), co (burst-sized column), ch (channel). Addresses wrap at the
// device's capacity.
//
// The default "ro.ra.ba.ch.co.bg" puts consecutive bursts in alternate bank
// groups (so a stream is spaced by tCCD_S, not tCCD_L), then along the
// columns of one row in each (row hits), then over the channels a
// row-chunk at a time (bank groups x row bytes), so that a read of up to a
// row per bank group opens rows in one channel only; as Xilinx's
// ROW_COLUMN_BANK ordering puts the bank bits lowest.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

inline constexpr std::string_view kDefaultMapping = "ro.ra.ba.ch.co.bg";

struct Location {
  uint32_t channel = 0, rank = 0, bankgroup = 0, bank = 0;  ///< bank: within its group
  uint32_t row = 0, column = 0;                             ///< column: in bursts
  bool operator==(const Location&) const = default;
};

class Mapping {
 public:
  /// An Error naming memory.dram_mapping when `order` does not name each of
  /// the six fields exactly once.
  Mapping(const Spec& s, std::string_view order);

  Location map(uint64_t addr) const;
  /// The lowest address of `l`'s burst (the inverse of map, for tests and
  /// hand-built request streams).
  uint64_t address(const Location& l) const;
  uint32_t burst_bytes() const { return burst_bytes_; }
  const std::string& order() const { return order_; }

 private:
  enum Field : uint8_t { ro, ra, bg, ba, co, ch };
  struct Slice {
    Field field;
    uint32_t shift, bits;
  };
  std::string order_;
  uint32_t burst_bytes_, offset_bits_;
  std::vector<Slice> slices_;  // LSB first
  // Per field (Field order): its shift and mask, for map().
  std::array<uint32_t, 6> shift_{};
  std::array<uint64_t, 6> mask_{};
};

}  // namespace vta::sim::dram
