#pragma once
// The one quoting of a word that goes into a shell script this tool writes
// (a Slurm job script): single quotes, each ' written as '\''. Inside single
// quotes bash expands nothing ($, `, \, !, globs), so the word reaches the
// program as it was given. Tests: tests/test_untrusted_inputs.cpp.
#include <string>
#include <string_view>

namespace vta {

/// `word` as one single-quoted shell word.
inline std::string shell_quote(std::string_view word) {
  std::string o = "'";
  for (const char c : word) {
    if (c == '\'')
      o += "'\\''";
    else
      o += c;
  }
  return o + "'";
}

}  // namespace vta
