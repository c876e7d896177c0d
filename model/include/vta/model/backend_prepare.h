#pragma once
// The Backend interface's optional preparation step (backend.h): the slow,
// one-time work a backend needs for a config before make_backend() is
// quick, which a consumer may do ahead of time and in parallel (sweep stage
// 3 builds its finalists' RTL models this way). A backend registers it by
// name beside its factory; a backend without one needs no preparation.
#include <functional>
#include <string>

#include "vta/isa/config.h"

namespace vta {

/// Prepares backend `name` for config `c`, with at most `jobs` processes
/// (0: one per core). Throws vta::Error when the backend cannot be prepared
/// for `c` (make_backend would fail with the same message); never throws
/// for a config the backend rejects anyway (make_backend says why).
using BackendPrepare = std::function<void(const Config& c, int jobs)>;
bool register_backend_prepare(const std::string& name, BackendPrepare prepare);

/// Runs the preparation of backend `name` for `c`; nothing when it has none
/// (or is not built in: make_backend names the known backends).
void prepare_backend(const std::string& name, const Config& c, int jobs = 0);

}  // namespace vta
