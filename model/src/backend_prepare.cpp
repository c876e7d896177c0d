#include "vta/model/backend_prepare.h"

#include <map>

namespace vta {

namespace {
std::map<std::string, BackendPrepare>& registry() {
  static std::map<std::string, BackendPrepare> r;
  return r;
}
}  // namespace

bool register_backend_prepare(const std::string& name, BackendPrepare prepare) {
  registry()[name] = std::move(prepare);
  return true;
}

void prepare_backend(const std::string& name, const Config& c, int jobs) {
  const auto it = registry().find(name);
  if (it != registry().end()) it->second(c, jobs);
}

}  // namespace vta
