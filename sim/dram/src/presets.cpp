// The list of presets: one .def file each (presets/README.md).
#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> v;
#define DRAM_PRESET(name, doc) v.push_back(Preset{name, doc, 0, 1, "", {}});
#define DRAM_RATE(num, den, source) \
  v.back().rate_num = num;          \
  v.back().rate_den = den;          \
  v.back().rate_source = source;
#define DRAM_ORG(key, count, source) v.back().values.push_back(PresetValue{#key, 0.0, count, source});
#define DRAM_TIME(key, ns, ck, source) v.back().values.push_back(PresetValue{#key, ns, ck, source});
#include "../presets/ddr3_1066.def"
#include "../presets/ddr3_1600.def"
#include "../presets/ddr4_2400.def"
#include "../presets/hbm2_2000.def"
#include "../presets/lpddr4_3200.def"
#undef DRAM_PRESET
#undef DRAM_RATE
#undef DRAM_ORG
#undef DRAM_TIME
    return v;
  }();
  return all;
}

}  // namespace vta::sim::dram
