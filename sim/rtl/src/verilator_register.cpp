// Registers the `verilator` backend (in its own object; see model/CMakeLists.txt)
// and its preparation: building the config's model on demand.
#include "verilator_backend.h"
#include "verilator_select.h"
#include "vta/isa/error.h"
#include "vta/model/backend_prepare.h"

namespace vta::rtl {
VTA_REGISTER_BACKEND("verilator", "Verilator model of the SystemVerilog RTL core (sim/rtl)", VerilatorBackend);

namespace {
void prepare(const Config& c, int jobs) {
  try {
    check_supported("verilator", c, {});
  } catch (const Error&) {
    return;  // make_backend says why
  }
  prepare_model(c, jobs);
}
[[maybe_unused]] const bool kPrepareRegistered = register_backend_prepare("verilator", &prepare);
}  // namespace

}  // namespace vta::rtl
