#pragma once
// Writing an output file (a report, a trace, a generated header, an ONNX
// model) so that a failure is an error, not a silently short file: a full
// disk (/dev/full), a directory or a closed stream throws vta::Error naming
// the file and the reason. Tests: CliErrors.WriteFailures* in
// tests/test_cli_errors.cpp.
#include <string>
#include <string_view>

namespace vta {

/// Writes `bytes` to `path` (replacing it), flushes and closes it; throws
/// vta::Error "WHAT PATH: cannot write (REASON)" when any step fails, and
/// refuses a path that is an input of this command (io_guard.h). `what`
/// names the option it came from ("--trace"); empty: the path alone.
void write_file(const std::string& path, std::string_view bytes, std::string_view what = {});

/// Creates folder `path` and its parents where missing; throws vta::Error
/// "WHAT PATH: cannot create the folder (REASON)" when it cannot (a file in
/// the way, no permission), never std::filesystem's own message.
void make_dirs(const std::string& path, std::string_view what = {});

}  // namespace vta
