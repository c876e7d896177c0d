// Registers the opencl backend. Kept in its own object (linked into every
// program through vta_backends) so that the linker never drops it.
#include "vta/kernels/opencl.h"

namespace vta::opencl {
VTA_REGISTER_BACKEND("opencl", "kernels/vta.cl on an OpenCL device (PoCL, GPU, FPGA binary)", OpenclBackend);
}  // namespace vta::opencl
