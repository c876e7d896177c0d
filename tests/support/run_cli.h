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

/// `env`: "NAME=value ..." set for this run only.
inline CliResult run_vta(const std::string& args, const std::string& env = "") {
  std::string cmd = env + " VTA_CONFIG_DIR=" + VTA_SOURCE_DIR + "/configs " + VTA_EXE + " " + args + " 2>&1";
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

}  // namespace vta::test
