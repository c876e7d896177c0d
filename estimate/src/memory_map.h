#pragma once
// How one on-chip buffer maps onto a family's RAM blocks (internal).
#include <cstdint>
#include <string>

#include "vta/estimate/devices.h"

namespace vta::estimate {

/// A buffer as the RTL builds it: `banks` independent RAMs, each `depth`
/// words of `width` bits with one write port and `read_ports` read ports.
struct BufferShape {
  int64_t width = 0, depth = 0;
  int banks = 1, read_ports = 1;
  int64_t bytes = 0;     // the config's buffer size (URAM policy)
  bool masked = false;   // written under a mask of granules narrower than a word
  bool rw_port = false;  // a second reader shares the write port (true dual port: no 512 x 72 / 36 / 40)
};

/// The blocks a buffer takes: res.bram36 / res.uram / res.m20k, and the LUTs
/// of distributed RAM in res.lut (also in `lutram`); `detail` says how.
struct MemoryMap {
  Resources res;
  double lutram = 0;
  std::string detail;
};

struct MapPolicy {
  bool use_uram = true;
  int64_t uram_min_bytes = 0;
};

/// Maps `b` on `f`. Rules (documented in estimate/README.md):
/// - Xilinx: a RAM of at most 64 words is distributed RAM (RAM64M: 3 bits of
///   64 words, one write and up to three read ports, 4 LUTs); otherwise block
///   RAM in the cheapest aspect ratio of RAMB36 (32Kx1 .. 512x72) or RAMB18
///   (half a BRAM36), one copy per read port (1W2R is two copies); the
///   parity bits (the 9th of each byte) hold data unless the RAM is written
///   under a mask, whose granules must stay on the byte-enable lanes; a RAM
///   whose write port also reads (rw_port) takes the true dual-port ratios
///   only (not RAMB36 512x72 / RAMB18 512x36, PDPW16KD, M20K 512x40);
/// - UltraScale+ with the URAM policy: URAM288 (4K x 72, one copy per read
///   port) for a buffer of at least uram_min_bytes and 2048 words (half a
///   URAM's depth: shallower buffers would waste most of it);
/// - Intel: M20K in the cheapest of 512x40 .. 16Kx1, one copy per read port;
///   at most 32 words: MLAB (32 x 20 per 10 ALMs).
MemoryMap map_buffer(const BufferShape& b, Family f, const MapPolicy& p);

}  // namespace vta::estimate
