#pragma once
// The DRAM model of a design: the one place where the memory.* knobs of
// config_knobs.def (memory.dram, memory.channels, memory.page_policy,
// memory.dram_*) and clock.mhz become a dram::Spec, dram::Options and the
// core clock. The SystemC model, the Verilator harness (through
// sim/common's DramPort) and the analytic estimate all start here.
#include "vta/isa/config.h"
#include "vta/sim/dram/clock.h"
#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

struct Setup {
  Spec spec;
  Options options;
  Freq core;  ///< clock.mhz, rounded to the nearest Hz
};

/// True when `c` puts a DRAM preset behind the port (memory.dram is not
/// `fixed`, which keeps docs/timing.md rules 10 and 13 in core cycles).
bool enabled(const Config& c);

/// The device, options and core clock of `c`; an Error naming the config's
/// source and the knob (memory.dram, memory.channels, memory.dram_mapping,
/// ...) when the preset cannot run under them, or when memory.dram is
/// `fixed`.
Setup setup_of(const Config& c);

}  // namespace vta::sim::dram
