// libFuzzer target: the YAML config loader (every knob, units, overrides).
// When the input starts with "#set KEY=VALUE\n", that line is also given as a
// --set override, so overrides are fuzzed together with the file.
#include "fuzz_common.h"
#include "vta/isa/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string yaml = vta::fuzz::text(data, size);
  vta::fuzz::expect_clean([&] {
    std::vector<vta::Override> overrides;
    if (yaml.rfind("#set ", 0) == 0) overrides.push_back(vta::parse_override(yaml.substr(5, yaml.find('\n') - 5)));
    (void)vta::load_config_text(yaml, "fuzz.yaml", overrides);
  });
  return 0;
}
