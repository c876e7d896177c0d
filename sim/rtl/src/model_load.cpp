#include "model_load.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/rtl/model_cache.h"

namespace vta::rtl {

namespace {

// A loaded model's strings live as long as the process, like the built-in models'.
struct Loaded {
  std::string key, package, error;
  BuiltModel model{nullptr, nullptr, nullptr};
};

}  // namespace

const BuiltModel& on_demand_model(const Config& c) {
  static std::mutex mu;
  static std::map<std::string, Loaded> loaded;  // by key; node addresses are stable
  const std::string key = model_key(c);
  {
    const std::lock_guard<std::mutex> g(mu);
    if (auto it = loaded.find(key); it != loaded.end()) {
      if (!it->second.error.empty()) throw Error(it->second.error);
      return it->second.model;
    }
  }
  // Built outside the process's lock: the cache's own lock serialises
  // builds of one key; threads may build different keys at once.
  std::string error;
  CachedModel m;
  try {
    m = build_model(c);
  } catch (const Error& e) {
    error = e.what();
  }
  const std::lock_guard<std::mutex> g(mu);
  Loaded& l = loaded[key];
  if (l.model.make) return l.model;  // another thread loaded it meanwhile
  if (error.empty()) {
    const std::string so = m.path + "/model.so";
    void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* f = h ? ::dlsym(h, "vta_rtl_make_core") : nullptr;
    if (!f) {
      const char* why = ::dlerror();
      error = fmt::format(
          "verilator: the RTL model of config '{}' ({}) in {} does not load ({}); remove it with `vta rtl clean`",
          c.name, c.source, m.path, why ? why : "no vta_rtl_make_core");
    } else {
      l.key = key;
      l.package = isa::generate_sv_package(c);
      l.model = BuiltModel{l.key.c_str(), l.package.c_str(), reinterpret_cast<std::unique_ptr<Core> (*)()>(f)};
      return l.model;
    }
  }
  l.error = error;
  throw Error(error);
}

}  // namespace vta::rtl
