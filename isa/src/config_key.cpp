// Memo keys over a config's knobs (config_key.h), expanded from config_knobs.def.
#include "vta/isa/config_key.h"

namespace vta {

namespace {

void put(std::string& k, int64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put(std::string& k, double v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put(std::string& k, bool v) { k.push_back(v ? '1' : '0'); }
void put(std::string& k, const std::string& v) {
  put(k, static_cast<int64_t>(v.size()));
  k += v;
}

}  // namespace

namespace {

// Calls f(a's value, b's value) for every knob of the sections `take`
// accepts, in table order, until f returns false; false if it did.
template <typename F>
bool visit_knobs(const Config& a, const Config& b, bool (*take)(std::string_view section), F&& f) {
#define VTA_SECTION(sec, doc) if (take(#sec)) {
#define VTA_KNOB(sec, name, ...) \
  if (!f(a.sec.name, b.sec.name)) return false;
#define VTA_KNOB_LATE VTA_KNOB
#define VTA_END(sec) }
#include "vta/isa/config_knobs.def"
#undef VTA_SECTION
#undef VTA_KNOB
#undef VTA_KNOB_LATE
#undef VTA_END
  return true;
}

}  // namespace

void append_knobs(std::string& key, const Config& c, bool (*take)(std::string_view section)) {
  visit_knobs(c, c, take, [&](const auto& v, const auto&) {
    put(key, v);
    return true;
  });
}

bool same_knobs(const Config& a, const Config& b, bool (*take)(std::string_view section)) {
  return visit_knobs(a, b, take, [](const auto& x, const auto& y) { return x == y; });
}

void append_value(std::string& key, double v) { put(key, v); }

}  // namespace vta
