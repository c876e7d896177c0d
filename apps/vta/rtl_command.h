#pragma once
// `vta rtl build | list | clean`: the cache of RTL models built on demand
// (vta/rtl/model_cache.h; sim/rtl/README.md, "Models on demand").
//   build -c CONFIG [--set k=v] [-j N]: build the config's model ahead of time
//   list: the models in the cache
//   clean: remove them (and kept failed builds)
// Each takes --cache DIR (else $VTA_RTL_CACHE, else the user's cache
// folder). Exit code 0, or 2 with one error line (a failed build names its
// log). Without VTA_WITH_VERILATOR this adds nothing.
#include <CLI/CLI.hpp>

namespace vta::app {

#ifdef VTA_WITH_VERILATOR
void add_rtl_command(CLI::App& app);
#else
inline void add_rtl_command(CLI::App&) {}
#endif

}  // namespace vta::app
