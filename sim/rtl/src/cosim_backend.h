#pragma once
// The `systemc-rtl` backend: the `verilator` backend (same checks, run
// record, stats, traces and debug reads) on the co-simulated core of cosim.h.
#include "verilator_backend.h"

namespace vta::rtl {

/// The co-simulated core for config `c` (cosim.cpp). Throws vta::Error for a
/// config whose package differs from the one the core was built from, and
/// for --wave.
std::unique_ptr<Core> make_cosim_core(const Config& c, const BackendOptions& o);

class CoSimBackend final : public VerilatorBackend {
 public:
  CoSimBackend(const Config& c, const BackendOptions& o) : VerilatorBackend(c, o, "systemc-rtl", &make_cosim_core) {}
};

}  // namespace vta::rtl
