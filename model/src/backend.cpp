#include "vta/model/backend.h"

#include <map>

#include "vta/isa/error.h"

namespace vta {

namespace {
struct Entry {
  std::string description;
  BackendFactory factory;
};
std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}
}  // namespace

bool register_backend(const std::string& name, const std::string& description, BackendFactory factory) {
  registry()[name] = Entry{description, std::move(factory)};
  return true;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const Config& c, const BackendOptions& options) {
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [n, e] : registry()) known += (known.empty() ? "" : ", ") + n;
    fail("unknown backend '{}' (built into this binary: {})", name, known);
  }
  return it->second.factory(c, options);
}

std::vector<std::pair<std::string, std::string>> backends() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : registry()) out.emplace_back(n, e.description);
  return out;
}

}  // namespace vta
