#include "verilator_select.h"

#include <cstdlib>
#include <limits>
#include <regex>
#include <string_view>
#include <utility>

#include "model_load.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/rtl/model_cache.h"

namespace vta::rtl {

namespace {

using Params = std::vector<std::pair<std::string, long long>>;
using isa::PackageMatch;

// The `localparam int NAME = value;` lines of a package, in order.
Params params_of(const std::string& text) {
  static const std::regex line(R"(localparam\s+int\s+(\w+)\s*=\s*(-?\d+)\s*;)");
  Params out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it)
    out.emplace_back((*it)[1].str(), std::stoll((*it)[2].str()));
  return out;
}

// How each constant of the config's package must relate to a built model's
// (the VTA_PKG markers of config_knobs.def): PORT constants come only from
// run-time ports, never from the package, so any model runs any of them;
// UP_TO ones are maxima that a run-time port lowers (cfg_cmd_depth,
// cfg_token_depth, cfg_max_burst), or ISA extensions, which fetch_program
// rejects statically when the config disables them: a model that has one
// runs a config that does not use it.
PackageMatch match_of(const std::vector<isa::PackageParam>& params, const std::string& name) {
  for (const auto& p : params)
    if (p.name == name) return p.match;
  return PackageMatch::EXACT;
}

PackageDiff compare(const Params& want, const std::vector<isa::PackageParam>& matches, const Params& have) {
  PackageDiff d;
  for (const auto& [name, value] : want) {
    const PackageMatch match = match_of(matches, name);
    if (match == PackageMatch::PORT) continue;
    const long long* got = nullptr;
    for (const auto& [n, v] : have)
      if (n == name) got = &v;
    const bool ok = got && (*got == value || (match == PackageMatch::UP_TO && value <= *got));
    if (ok) continue;
    if (d.count++ == 0)
      d.first = got ? fmt::format("{} is {} where the config needs {}{}", name, *got, value,
                                  match == PackageMatch::UP_TO ? " or more" : "")
                    : fmt::format("{} is missing (the config has {})", name, value);
  }
  return d;
}

}  // namespace

PackageDiff compare_package(const Config& c, const std::string& package) {
  return compare(params_of(isa::generate_sv_package(c)), isa::package_params(c), params_of(package));
}

bool on_demand_enabled() {
  const char* v = std::getenv("VTA_RTL_ON_DEMAND");
  return !v || std::string_view(v) != "off";
}

void prepare_model(const Config& c, int jobs) {
  const Params want = params_of(isa::generate_sv_package(c));
  const auto matches = isa::package_params(c);
  for (const BuiltModel* m : built_models())
    if (compare(want, matches, params_of(m->package)).count == 0) return;
  if (on_demand_enabled()) build_model(c, jobs);
}

const BuiltModel& select_model(const Config& c) {
  const Params want = params_of(isa::generate_sv_package(c));
  const auto matches = isa::package_params(c);
  const BuiltModel* closest = nullptr;
  PackageDiff best{std::numeric_limits<size_t>::max(), ""};
  std::string presets;
  for (const BuiltModel* m : built_models()) {
    const PackageDiff d = compare(want, matches, params_of(m->package));
    if (d.count == 0) return *m;
    if (d.count < best.count) {
      best = d;
      closest = m;
    }
    presets += fmt::format("{}{}", presets.empty() ? "" : ", ", m->preset);
  }
  if (on_demand_enabled()) return on_demand_model(c);
  if (!closest)
    fail("verilator: no RTL model is built into this binary and models on demand are off (VTA_RTL_ON_DEMAND=off)");
  fail(
      "verilator: no built RTL model fits config '{}' ({}): the closest, {}, differs in {} parameter{}, first: "
      "its {}. Built models: {}. Models on demand are off (VTA_RTL_ON_DEMAND=off): unset it to build this "
      "config's model into the cache, or add the preset to VTA_RTL_PRESETS and rebuild.",
      c.name, c.source, closest->preset, best.count, best.count == 1 ? "" : "s", best.first, presets);
}

}  // namespace vta::rtl
