// Registers the `systemc-rtl` backend (in its own object; see model/CMakeLists.txt).
#include "cosim_backend.h"

namespace vta::rtl {
VTA_REGISTER_BACKEND("systemc-rtl",
                     "the RTL core (vta-1x16x16) verilated as a SystemC module inside the SystemC model's top level",
                     CoSimBackend);
}  // namespace vta::rtl
