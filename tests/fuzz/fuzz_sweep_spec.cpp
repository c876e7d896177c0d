// libFuzzer target: the sweep spec loader (axes, zips, constraints through
// muParser, networks, objectives, strategies, funnel).
#include "fuzz_common.h"
#include "vta/sweeps/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = vta::fuzz::text(data, size);
  vta::fuzz::expect_clean([&] { (void)vta::sweeps::load_spec_text(text, "fuzz.yaml", "/nonexistent"); });
  return 0;
}
