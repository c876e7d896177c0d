// Registers the golden backend. Kept in its own object (linked into every
// program through vta_backends) so that the linker never drops it.
#include "vta/model/golden.h"

namespace vta::model {
VTA_REGISTER_BACKEND("golden", "bit-exact functional model (untimed)", GoldenBackend);
}  // namespace vta::model
