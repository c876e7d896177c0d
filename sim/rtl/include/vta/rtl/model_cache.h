#pragma once
// RTL models on demand (sim/rtl/README.md, "Models on demand"): for a config
// that no model built into the binary fits, the `verilator` backend (and the
// `systemc-rtl` co-simulation) generates the config's SystemVerilog package,
// verilates the core and compiles it with the harness into a shared
// library, kept in a cache folder and loaded with dlopen.
//
// Cache: $VTA_RTL_CACHE, else $XDG_CACHE_HOME/vta/rtl, else
// $HOME/.cache/vta/rtl; one folder per model, named by a hash of every input
// (package text, SV sources, harness headers, verilator version, compiler
// and flags), so that no stale model is ever used and one folder may be
// shared by machines and Slurm tasks. A model is built in a temporary
// folder and renamed into place; a per-key flock() makes two processes that
// want the same model build it once (the second waits, then loads it).
// Tests: tests/test_rtl_on_demand.cpp, tests/CMakeLists.txt (rtl_on_demand_*).
#include <cstdint>
#include <string>
#include <vector>

#include "vta/isa/config.h"

namespace vta::rtl {

/// What a model is built for: the `verilator` backend (the core verilated
/// as C++, with the C++ harness) or the `systemc-rtl` co-simulation (the
/// core verilated as a SystemC module, elaborated in the SystemC top level).
enum class ModelKind { verilator, systemc_rtl };

/// "verilator" or "systemc-rtl".
const char* kind_name(ModelKind k);

/// The cache folder (not created).
std::string cache_dir();

/// One model in the cache.
struct CachedModel {
  std::string key;     // 16 hex digits
  std::string config;  // the name of the config it was first built for
  std::string path;    // its folder
  std::string kind;    // the backend it is for: "verilator" or "systemc-rtl"
  uint64_t bytes = 0;  // of the folder's files
  double build_s = 0;  // seconds the build took (0: it was already there)
  bool built = false;  // built by this call
};

/// The model of `c`'s package: built into the cache unless it is there
/// (progress on stderr), `jobs` compiles at a time (0: one per core).
/// Throws vta::Error naming the config and, when a step failed, the kept
/// build log.
CachedModel build_model(const Config& c, int jobs = 0, ModelKind kind = ModelKind::verilator);

/// The cache key `c`'s model has (and whether the model is in the cache).
std::string model_key(const Config& c, ModelKind kind = ModelKind::verilator);

/// The models in the cache, by key.
std::vector<CachedModel> cached_models();

/// Removes every model, kept failed build and leftover temporary folder of
/// the cache (never a folder that another process is building in); returns
/// how many entries went.
size_t clean_cache();

}  // namespace vta::rtl
