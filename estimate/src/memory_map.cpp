// Buffer → RAM block mapping (see memory_map.h for the rules).
#include "memory_map.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace vta::estimate {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Aspect {
  int64_t depth, width;
  double cost;  // in blocks of the family's unit (BRAM36 or M20K)
  const char* name;
  bool sdp_only = false;  // the widest ratio: one port writes, the other reads
};

// Block RAM aspect ratios. RAMB36 widths include the parity bits, which
// synthesis uses as data (a 2048 x 18 RAMB36 holds 18-bit words).
constexpr Aspect kXilinx[] = {
    {32768, 1, 1, "RAMB36 32Kx1"},        {16384, 2, 1, "RAMB36 16Kx2"},   {8192, 4, 1, "RAMB36 8Kx4"},
    {4096, 9, 1, "RAMB36 4Kx9"},          {2048, 18, 1, "RAMB36 2Kx18"},   {1024, 36, 1, "RAMB36 1Kx36"},
    {512, 72, 1, "RAMB36 512x72", true},  {16384, 1, 0.5, "RAMB18 16Kx1"}, {8192, 2, 0.5, "RAMB18 8Kx2"},
    {4096, 4, 0.5, "RAMB18 4Kx4"},        {2048, 9, 0.5, "RAMB18 2Kx9"},   {1024, 18, 0.5, "RAMB18 1Kx18"},
    {512, 36, 0.5, "RAMB18 512x36", true}};
// ECP5 DP16KD (18 Kbit): 16Kx1 .. 1Kx18 true dual port, 512x36 pseudo dual
// port (one write, one read port: what the RTL's RAMs need).
constexpr Aspect kLattice[] = {{16384, 1, 1, "DP16KD 16Kx1"}, {8192, 2, 1, "DP16KD 8Kx2"},
                               {4096, 4, 1, "DP16KD 4Kx4"},   {2048, 9, 1, "DP16KD 2Kx9"},
                               {1024, 18, 1, "DP16KD 1Kx18"}, {512, 36, 1, "PDPW16KD 512x36", true}};
constexpr Aspect kIntel[] = {{16384, 1, 1, "M20K 16Kx1"}, {8192, 2, 1, "M20K 8Kx2"},
                             {4096, 5, 1, "M20K 4Kx5"},   {2048, 10, 1, "M20K 2Kx10"},
                             {1024, 20, 1, "M20K 1Kx20"}, {512, 40, 1, "M20K 512x40", true}};

// Data bits of a port of `width` bits: without the parity bits (every 9th)
// when the RAM is written under a mask (yosys keeps each granule on the
// byte-enable lanes: a 2048 x 512 ACC with 32-bit granules takes 32 RAMB36
// as 2Kx16, not 29 as 2Kx18; calibration c03 and the 1x16x16 preset).
int64_t data_bits(int64_t width, bool masked) { return masked && width >= 9 ? width / 9 * 8 : width; }

// `rw_port`: one port both writes and reads (BufferShape::rw_port), so the
// simple dual-port widths are out.
template <size_t N>
std::pair<double, const Aspect*> cheapest(const Aspect (&table)[N], int64_t width, int64_t depth, bool masked = false,
                                          bool rw_port = false) {
  double best = std::numeric_limits<double>::max();
  const Aspect* pick = &table[0];
  for (const Aspect& a : table) {
    if (rw_port && a.sdp_only) continue;
    double c = static_cast<double>(ceil_div(width, data_bits(a.width, masked)) * ceil_div(depth, a.depth)) * a.cost;
    if (c < best) best = c, pick = &a;
  }
  return {best, pick};
}

}  // namespace

MemoryMap map_buffer(const BufferShape& b, Family f, const MapPolicy& p) {
  MemoryMap m;
  const int64_t copies = static_cast<int64_t>(b.banks) * b.read_ports;
  const std::string shape =
      fmt::format("{}{} x {} bit{}", b.banks > 1 ? fmt::format("{} banks of ", b.banks) : "", b.depth, b.width,
                  b.read_ports > 1 ? ", 1W2R"
                  : b.rw_port      ? ", 1RW1R (true dual port)"
                                   : ", 1W1R");
  if (is_xilinx(f)) {
    if (b.depth <= 64) {
      // RAM64M: 64 x 3 with one write and three read ports; RAM32M: 32 x 6.
      const int64_t bits_per_cell = b.depth <= 32 ? 6 : 3;
      const int64_t cells = ceil_div(b.width * b.read_ports, bits_per_cell) * b.banks;
      m.lutram = 4.0 * static_cast<double>(cells);
      m.res.lut = m.lutram;
      m.detail = fmt::format("{}: {} x {} (distributed RAM)", shape, cells, b.depth <= 32 ? "RAM32M" : "RAM64M");
      return m;
    }
    auto [cost, a] = cheapest(kXilinx, b.width, b.depth, b.masked, b.rw_port);
    if (f == Family::xcup && p.use_uram && b.bytes >= p.uram_min_bytes) {
      // URAM288 is 4K x 72 only: taken for buffers at least 2048 words deep
      // (half a URAM or more), which free block RAM at little waste.
      const int64_t n = ceil_div(b.width, 72) * ceil_div(b.depth, 4096) * copies;
      if (b.depth >= 2048) {
        m.res.uram = static_cast<double>(n);
        m.detail = fmt::format("{}: {} x URAM288 4Kx72", shape, n);
        return m;
      }
    }
    m.res.bram36 = cost * static_cast<double>(copies);
    m.detail = fmt::format("{}: {:g} x BRAM36 as {}", shape, m.res.bram36, a->name);
    return m;
  }
  if (is_lattice(f)) {
    if (b.depth <= 64) {
      // TRELLIS_DPR16X4: 16 x 4 with one write and one read port, 3 slices
      // (6 LUT4 positions; Lattice TN1264) each.
      const int64_t cells = ceil_div(b.width, 4) * ceil_div(b.depth, 16) * b.read_ports * b.banks;
      m.lutram = 6.0 * static_cast<double>(cells);
      m.res.lut = m.lutram;
      m.detail = fmt::format("{}: {} x DPR16X4 (distributed RAM)", shape, cells);
      return m;
    }
    auto [cost, a] = cheapest(kLattice, b.width, b.depth, b.masked, b.rw_port);
    m.res.ebr = cost * static_cast<double>(copies);
    m.detail = fmt::format("{}: {:g} x {}", shape, m.res.ebr, a->name);
    return m;
  }
  if (b.depth <= 32) {
    // MLAB: 32 x 20 bits per LAB of 10 ALMs.
    const int64_t labs = ceil_div(b.width * b.read_ports, 20) * b.banks;
    m.lutram = 10.0 * static_cast<double>(labs);
    m.res.alm = m.lutram;
    m.detail = fmt::format("{}: {} x MLAB 32x20", shape, labs);
    return m;
  }
  auto [cost, a] = cheapest(kIntel, b.width, b.depth, false, b.rw_port);
  m.res.m20k = cost * static_cast<double>(copies);
  m.detail = fmt::format("{}: {:g} x {}", shape, m.res.m20k, a->name);
  return m;
}

}  // namespace vta::estimate
