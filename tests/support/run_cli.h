#pragma once
// Runs the `vta` program (VTA_EXE) and captures its exit code and output.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace vta::test {

struct CliResult {
  int code = -1;
  std::string out;  // stdout and stderr together
};

/// Runs the shell command `cmd` and captures what it writes to the pipe.
inline CliResult run_shell(const std::string& cmd) {
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// `vta ARGS` with the configs folder set up and the zoo cache in the build
/// folder (never the user's; a test may set its own in `env`). `env`:
/// "NAME=value ..." set for this run only. `stdout_to`: a shell redirection of stdout after stderr
/// was sent to the pipe (">/dev/full", ">&-"); empty: both to the pipe.
inline CliResult run_vta(const std::string& args, const std::string& env = "", const std::string& stdout_to = "") {
  return run_shell(std::string("VTA_CACHE_DIR=") + VTA_BINARY_DIR + "/test-cache " + env +
                   " VTA_CONFIG_DIR=" + VTA_SOURCE_DIR + "/configs " + VTA_EXE + " " + args + " 2>&1 " + stdout_to);
}

}  // namespace vta::test
