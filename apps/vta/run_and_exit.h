#pragma once
// Subcommands that run from their CLI11 callback end the program here.
#include <cstdlib>
#include <exception>
#include <iostream>

namespace vta::app {

constexpr int kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2;

/// Runs `body` and ends the program with its exit code; any exception
/// (vta::Error included) prints one line and exits 2.
template <typename F>
[[noreturn]] void run_and_exit(F&& body) {
  int code = kExitBadInput;
  try {
    code = body();
  } catch (const std::exception& e) {
    std::cerr << "vta: error: " << e.what() << "\n";
    code = kExitBadInput;
  }
  std::cout.flush();
  std::cerr.flush();
  std::exit(code);
}

}  // namespace vta::app
