#pragma once
// What every fuzz target promises: bad input ends in one
// vta::Error with a message. Any other exception, a crash, a hang or a
// sanitizer report is a finding: the exception escapes the target and
// libFuzzer reports it as a crash with the input that caused it. (The CLI
// prints every message as one line, escaping control characters, so a
// message holding a raw newline from the input is not a finding.)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "vta/isa/config.h"
#include "vta/isa/error.h"

namespace vta::fuzz {

/// Runs `body`; a vta::Error passes when it has a message; an empty message
/// aborts, and any other exception type escapes (a finding).
template <typename F>
void expect_clean(F&& body) {
  try {
    body();
  } catch (const vta::Error& e) {
    const std::string m = e.what();
    if (m.empty()) {
      std::fprintf(stderr, "fuzz: a vta::Error with an empty message\n");
      std::abort();
    }
  }
}

/// The design the program targets run on: the default with 16 MiB of DRAM.
/// A program may ask for every byte the config has, and filling 1 GiB with
/// random data under the sanitizers outlasts the 10 s timeout: a legitimate
/// slow input, not a hang (`.buffer i INP 44444444 random 1` was one). The
/// limit check is what is under test, and it is the same at 16 MiB.
inline const vta::Config& program_config() {
  static const vta::Config c = vta::load_config_text("", "<fuzz>", {{"memory.dram_size", "16777216"}});
  return c;
}

inline std::string text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

}  // namespace vta::fuzz
