#pragma once
// Runs the tools of an on-demand model build (model_cache.cpp) from argv
// lists (posix_spawn, never a shell), in one folder, output appended to the
// build log.
#include <functional>
#include <string>
#include <vector>

namespace vta::rtl {

using Argv = std::vector<std::string>;

/// The first command that failed: its index (-1: all ran) and why.
struct SpawnFailure {
  long index = -1;
  std::string why;  // "exit 1", "killed by signal 9", "cannot run X (No such file or directory)"
};

/// Runs `commands` with working folder `dir`, at most `jobs` at a time, each
/// command line and its output appended to `log`; calls `tick(done)` about
/// every half second. After a failure, starts no more and waits for those
/// running.
SpawnFailure run_commands(const std::vector<Argv>& commands, const std::string& dir, const std::string& log, int jobs,
                          const std::function<void(size_t done)>& tick);

/// Standard output of a quick command (`verilator --version`); "" when it
/// cannot run or fails.
std::string command_output(const Argv& argv);

/// `name` found on PATH (an absolute path), or "".
std::string find_on_path(const std::string& name);

}  // namespace vta::rtl
