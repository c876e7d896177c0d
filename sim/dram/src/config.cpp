#include "vta/sim/dram/config.h"

#include "vta/isa/error.h"
#include "vta/sim/dram/mapping.h"

namespace vta::sim::dram {

bool enabled(const Config& c) { return c.memory.dram != "fixed"; }

Setup setup_of(const Config& c) {
  if (!enabled(c)) fail("{}: memory.dram = fixed has no DRAM device to set up", c.source);
  try {
    Setup s;
    s.options.page_policy = c.memory.page_policy == "closed" ? PagePolicy::closed : PagePolicy::open;
    s.options.channels = static_cast<uint32_t>(c.memory.channels);
    s.options.mapping = c.memory.dram_mapping;
    s.options.queue_depth = static_cast<uint32_t>(c.memory.dram_queue_depth);
    s.options.refresh = c.memory.dram_refresh;
    s.options.cdc_sync = static_cast<uint32_t>(c.memory.dram_cdc_sync);
    s.options.frontend_ns = c.memory.dram_frontend_ns;
    s.spec = resolve(preset(c.memory.dram, "memory.dram"), s.options);
    if (!c.memory.dram_row_timing) {
      // Rows made (almost) free: every activate/precharge constraint one
      // command cycle, tRC the shortest ACT-PRE-ACT, tFAW four tRRDs.
      Timings& t = s.spec.t;
      t.rcd = t.rp = t.ras = t.rrd_s = t.rrd_l = t.wr = t.rtp = 1;
      t.rc = t.ras + t.rp;
      t.faw = 4 * t.rrd_s;
    }
    const Mapping check(s.spec, s.options.mapping);  // an Error naming memory.dram_mapping when it is not one
    (void)check;
    s.core = Freq::mhz(c.clock.mhz);
    return s;
  } catch (const Error& e) {
    fail("{}: {}", c.source, e.what());
  }
}

}  // namespace vta::sim::dram
