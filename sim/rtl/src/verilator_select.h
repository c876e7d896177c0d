#pragma once
// Which verilated model runs a config: the one whose package equals the
// config's generated package (isa::generate_sv_package) in every
// `localparam int NAME = value;`, except the values the run-time ports may
// lower (sim/rtl/README.md), where the config may ask for less.
#include "verilator_core.h"

namespace vta::rtl {

/// How a config's package differs from the package a model was built from.
struct PackageDiff {
  size_t count = 0;   // differing parameters; 0: the model runs the config
  std::string first;  // "ALU_LANES is 16 where the config needs 4"
};
PackageDiff compare_package(const Config& c, const std::string& package);

/// The model for `c`: one built into the binary, else the model built on
/// demand into the cache (model_load.h); throws vta::Error naming the
/// config when that cannot be built or loaded. With VTA_RTL_ON_DEMAND=off
/// there is no cache: the error names the first differing parameter against
/// the closest built model and every built preset.
const BuiltModel& select_model(const Config& c);

/// Builds `c`'s model into the cache when no built model fits it (and
/// models on demand are on), without loading it; `jobs` compiles at a time.
void prepare_model(const Config& c, int jobs);

/// Whether models are built on demand (VTA_RTL_ON_DEMAND is not "off").
bool on_demand_enabled();

}  // namespace vta::rtl
