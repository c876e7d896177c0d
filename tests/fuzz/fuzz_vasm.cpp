// libFuzzer target: the .vasm assembler, then the program on the golden model
// (race check on) under a step budget, so a huge loop count is an error and
// never a hang.
#include "fuzz_common.h"
#include "vta/isa/config.h"
#include "vta/model/backend.h"
#include "vta/model/image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vta::Config& c = vta::fuzz::program_config();
  const std::string text = vta::fuzz::text(data, size);
  vta::fuzz::expect_clean([&] {
    vta::ProgramImage img = vta::assemble_program(text, "fuzz.vasm", c);
    vta::BackendOptions o;
    o.max_steps = 1u << 20;
    auto b = vta::make_backend("golden", c, o);
    b->run(vta::install(img, *b));
  });
  return 0;
}
