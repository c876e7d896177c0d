// libFuzzer target: the binary program + DRAM image loader (a conformance
// vector's files, fuzz_program_input.h), the decoder (the image's
// disassembly) and the golden model under a per-input step budget, with the
// race check on, then the expectation check.
#include "fuzz_program_input.h"
#include "vta/isa/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vta::Config& c = vta::fuzz::program_config();
  vta::fuzz::expect_clean([&] {
    vta::ProgramImage img = vta::conformance_image(vta::fuzz::unpack_program(data, size), "fuzz");
    (void)vta::disassemble_image(img, c);
    vta::BackendOptions o;
    o.max_steps = vta::fuzz::kMaxSteps;
    auto b = vta::make_backend("golden", c, o);
    b->run(vta::install(img, *b));
    (void)vta::check_expectations(img, *b);
  });
  return 0;
}
