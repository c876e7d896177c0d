#pragma once
// Memo keys over a config's knobs: the raw values of the knobs of chosen
// sections of config_knobs.def, so that a cache keyed on what a function
// reads names every knob of those sections, a knob added later included,
// and none of the others (Config::hash() names them all, as text).
#include <string>
#include <string_view>

#include "vta/isa/config.h"

namespace vta {

/// The values of every knob of the sections `take` accepts, in table order,
/// appended to `key` as raw bytes (strings with their length): equal keys,
/// equal knobs.
void append_knobs(std::string& key, const Config& c, bool (*take)(std::string_view section));
/// Whether `a` and `b` agree in every knob of the sections `take` accepts
/// (what equal append_knobs() keys say, without building them).
bool same_knobs(const Config& a, const Config& b, bool (*take)(std::string_view section));
/// One value appended as append_knobs() appends a knob's.
void append_value(std::string& key, double v);

}  // namespace vta
