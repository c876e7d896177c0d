// libFuzzer target: the upstream vta_config.json importer (`vta config
// import`), then our config loader on the YAML it writes (an import that
// succeeds must give YAML the loader reads, or refuses with a vta::Error).
#include "fuzz_common.h"
#include "vta/isa/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string json = vta::fuzz::text(data, size);
  vta::fuzz::expect_clean([&] {
    const std::string yaml = vta::import_upstream_json(json, "vta_config.json");
    (void)vta::load_config_text(yaml, "imported.yaml");
  });
  return 0;
}
