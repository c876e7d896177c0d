#include "vta/sim/dram/port.h"

#include "vta/isa/error.h"

namespace vta::sim::dram {

CorePort::CorePort(const Spec& s, const Options& o, Freq core)
    : ctrl_(s, o), cross_(core, s.clock(), o.cdc_sync), frontend_(to_cycles(o.frontend_ns, 0, s.data_rate)) {
  if (!(o.frontend_ns >= 0 && o.frontend_ns <= 1e6))
    fail("memory.dram_frontend_ns: {} is not in 0..1000000", o.frontend_ns);
  if (o.cdc_sync > 64) fail("memory.dram_cdc_sync: {} is not in 0..64", o.cdc_sync);
}

uint64_t CorePort::submit(uint64_t c, bool write, uint64_t addr, uint32_t bytes) {
  return ctrl_.submit(Request{addr, bytes, write, cross_.to_ctrl(c) + frontend_});
}

// A burst seen at core cycle <= c completed at controller cycle
// k <= ctrl_edge(c), so its column command issued before k - CL <= to_ctrl(c);
// and a request made at c or later arrives at to_ctrl(c) or later, so
// nothing decided here can change.
void CorePort::advance(uint64_t c) { ctrl_.advance(cross_.to_ctrl(c)); }

void CorePort::take_done(std::vector<BurstDone>& out) {
  const size_t from = out.size();
  ctrl_.take_done(out);
  for (size_t i = from; i < out.size(); ++i) out[i].done = cross_.to_core(out[i].done);
}

uint64_t CorePort::drain() { return cross_.to_core(ctrl_.drain()); }

}  // namespace vta::sim::dram
