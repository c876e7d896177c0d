#pragma once
// Reading an input file (a program, a config, an ONNX model, a buffer's
// contents) so that every failure is one vta::Error naming the file and the
// reason: a missing file, a directory, a read error. Never the stream
// library's own message (`basic_filebuf::underflow ...`). Tests:
// CliInputErrors.DirectoriesAsInputFiles in tests/test_cli_input_errors.cpp.
#include <string>
#include <string_view>

namespace vta {

/// The whole of `path`; throws vta::Error "WHAT PATH: cannot open (REASON)"
/// when it cannot be opened, "WHAT PATH: cannot read (REASON)" when it cannot
/// be read (REASON: "it is a directory", or the system's).
/// `what` names where the path came from ("--onnx"); empty: the path alone.
std::string read_file(const std::string& path, std::string_view what = {});

}  // namespace vta
