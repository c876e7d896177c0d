// libFuzzer target: the SystemC cycle model against the golden model on the
// same binary programs (fuzz_program_input.h): both must end the same way
// (both finish, or both raise a vta::Error with the same message), and when
// both finish, every DRAM buffer and the output-buffer expectation must hold
// the same bytes. A difference aborts (a finding). The SystemC library is
// Debian's, unsanitized and uninstrumented: only our model code around it is.
#include <cstdio>
#include <optional>

#include "fuzz_program_input.h"
#include "vta/isa/config.h"

namespace {

struct Outcome {
  std::optional<std::string> error;                 // the message, when the run raised one
  std::vector<std::vector<uint8_t>> buffers, sram;  // DRAM buffers and OUT elements after a clean run
};

Outcome run_on(const std::string& backend, const vta::Config& c, vta::ConformanceFiles files) {
  Outcome r;
  try {
    vta::ProgramImage img = vta::conformance_image(std::move(files), "fuzz");
    vta::BackendOptions o;
    o.max_steps = vta::fuzz::kMaxSteps;
    auto b = vta::make_backend(backend, c, o);
    b->run(vta::install(img, *b));
    for (const auto& buf : img.buffers) r.buffers.push_back(b->dram().read(buf.addr, buf.bytes()));
    const auto out_elem = static_cast<uint32_t>(c.elem_bytes(static_cast<int>(vta::isa::MemId::OUT)));
    r.sram.push_back(b->read_sram(vta::isa::MemId::OUT, 0, std::max<uint32_t>(1, 64 / out_elem)));
  } catch (const vta::Error& e) {
    r.error = e.what();
  }
  return r;
}

[[noreturn]] void differ(const char* what, const std::string& golden, const std::string& systemc) {
  std::fprintf(stderr, "fuzz_systemc: %s differ\n  golden:  %s\n  systemc: %s\n", what, golden.c_str(),
               systemc.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const vta::Config& c = vta::fuzz::program_config();
  const vta::ConformanceFiles files = vta::fuzz::unpack_program(data, size);
  const Outcome g = run_on("golden", c, files), s = run_on("systemc", c, files);
  if (g.error.has_value() != s.error.has_value())
    differ("exit classes", g.error.value_or("(finished)"), s.error.value_or("(finished)"));
  if (g.error) {
    if (g.error->empty()) differ("messages (empty)", *g.error, *s.error);
    if (*g.error != *s.error) differ("messages", *g.error, *s.error);
    return 0;
  }
  for (size_t i = 0; i < g.buffers.size(); ++i)
    if (g.buffers[i] != s.buffers[i]) differ("DRAM buffers", std::to_string(i), std::to_string(i));
  if (g.sram != s.sram) differ("OUT buffer elements", "0..", "0..");
  return 0;
}
