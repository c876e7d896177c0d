// Registers the `verilator` backend (in its own object; see model/CMakeLists.txt).
#include "verilator_backend.h"

namespace vta::rtl {
VTA_REGISTER_BACKEND("verilator", "Verilator model of the SystemVerilog RTL core (sim/rtl)", VerilatorBackend);
}  // namespace vta::rtl
