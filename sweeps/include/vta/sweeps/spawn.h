#pragma once
// Runs a program from an argv list (posix_spawnp, never a shell: no word of
// it is parsed by sh, whatever it holds) and collects its output. Used by the
// Slurm submission (sbatch, squeue, scancel) and by stage 4's place and route.
#include <string>
#include <vector>

namespace vta::sweeps {

struct Output {
  int code = -1;  // exit status; -1 when it could not start, died of a signal or timed out
  bool timed_out = false;
  std::string text;  // standard output and error together, trailing newlines dropped
};

/// Runs `argv` (argv[0] found on PATH) in `dir` ("" the current folder),
/// standard input from /dev/null. With `timeout_s` > 0 the program and every
/// process it started (its own process group) are killed at the deadline.
Output run_program(const std::vector<std::string>& argv, double timeout_s = 0, const std::string& dir = "");

}  // namespace vta::sweeps
