#pragma once
// Address mapping: which channel, rank, bank group, bank, row and column a
// byte address falls in. The lowest log2(burst bytes) bits select a byte in
// a burst; the fields above them follow the mapping string, written MSB to
// LSB as dot-separated names: ro (row), ra (rank), bg (bank group), ba (bank
// in its group), co (burst-sized column), ch (channel). Addresses wrap at the
// device's capacity.
//
// The default "ro.ra.ba.co.bg.ch" interleaves consecutive bursts over the
// channels, then the bank groups (so a sequential stream is spaced by tCCD_S,
// not tCCD_L), then the columns of one row (row hits), as open-page
// controllers do for streaming traffic.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

inline constexpr std::string_view kDefaultMapping = "ro.ra.ba.co.bg.ch";

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
};

}  // namespace vta::sim::dram
