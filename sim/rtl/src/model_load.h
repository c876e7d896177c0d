#pragma once
// Loads an RTL model built on demand (vta/rtl/model_cache.h) into the
// process with dlopen: the fallback of select_model (verilator_select.h)
// when no model built into the binary fits a config.
#include "verilator_core.h"

namespace vta::rtl {

/// `c`'s model from the cache, built first when it is not there; loaded
/// once per process (never unloaded). Throws vta::Error naming the config:
/// a failed build (with its log) or a model that does not load. A build
/// that failed in this process is not tried again.
const BuiltModel& on_demand_model(const Config& c);

}  // namespace vta::rtl
