// Registers the `systemc` backend (in its own object; see model/CMakeLists.txt).
#include "systemc_backend.h"

namespace vta::sim {
VTA_REGISTER_BACKEND("systemc", "SystemC transaction-level cycle model (docs/timing.md)", SystemCBackend);
}  // namespace vta::sim
