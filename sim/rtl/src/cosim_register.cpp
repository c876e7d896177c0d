// Registers the `systemc-rtl` backend (in its own object; see model/CMakeLists.txt).
#include "cosim_backend.h"

namespace vta::rtl {
VTA_REGISTER_BACKEND(
    "systemc-rtl",
    "the RTL core verilated as a SystemC module inside the SystemC model's top level (vta-1x16x16 built in; "
    "another design's built on demand, one design per process)",
    CoSimBackend);
}  // namespace vta::rtl
