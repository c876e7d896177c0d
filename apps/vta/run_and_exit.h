#pragma once
// How `vta` ends: every error is one line on stderr and exit code 2, and
// standard output counts as an output file (a full disk or a closed stdout
// is an error too). main() and the subcommands that run from their CLI11
// callback end here. Tests: tests/test_cli_errors.cpp.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

namespace vta::app {

constexpr int kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2;

/// Longest error line printed; the rest is counted, not echoed (a 200 KB
/// token from a hostile input file).
constexpr size_t kMaxErrorChars = 2000;

/// `msg` on one line: control characters (a newline inside a quoted YAML
/// value, a raw byte from a binary file) written as \n, \t or \xNN; cut
/// after kMaxErrorChars characters.
inline std::string one_line(std::string_view msg) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  const size_t cut = msg.size() > kMaxErrorChars ? msg.size() - kMaxErrorChars : 0;
  msg = msg.substr(0, kMaxErrorChars);
  for (char ch : msg) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\t')
      out += "\\t";
    else if (ch == '\r')
      out += "\\r";
    else if (u < 0x20 || u == 0x7f)
      out += {'\\', 'x', hex[u >> 4], hex[u & 15]};
    else
      out += ch;
  }
  if (cut) out += "... (" + std::to_string(cut) + " more characters)";
  return out;
}

/// Prints `msg` as the one error line.
inline void print_error(std::string_view msg) { std::cerr << "vta: error: " << one_line(msg) << "\n" << std::flush; }

/// `code`, or kExitBadInput after an error line when standard output could
/// not be written (checked after flushing, so nothing is left buffered).
inline int checked_stdout(int code) {
  // The failing write may be long past (errno is stale by now), so the
  // message gives the likely causes rather than a reason it cannot know.
  std::cout.flush();
  if (std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  print_error("cannot write to standard output (the stream is closed or full)");
  return kExitBadInput;
}

/// Runs `body` and ends the program with its exit code; any exception
/// (vta::Error included) prints one line and exits 2.
template <typename F>
[[noreturn]] void run_and_exit(F&& body) {
  int code = kExitBadInput;
  try {
    code = body();
  } catch (const std::exception& e) {
    print_error(e.what());
    code = kExitBadInput;
  }
  std::exit(checked_stdout(code));
}

}  // namespace vta::app
