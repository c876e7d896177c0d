#pragma once
// What one command reads may not be what it writes: every input file is
// noted when it is read (read_file does it; a store that SQLite opens is
// noted by the store), and every output path is checked against them before
// it is written (write_file does it; outputs that another library writes,
// such as a VCD wave or a SQLite store, call check_output themselves). So
// `vta asm p.vasm -o p.vasm` or `vta sweep report S.db -o S.db` is refused
// with one message naming both, and the input is kept. Files are compared by
// identity (device and inode), so a relative path, `./`, `..` or a link to
// the same file are all caught. Tests: tests/test_untrusted_inputs.cpp.
#include <string>
#include <string_view>

namespace vta {

/// Records `path` as an input of this command; `what` names where it came
/// from ("--onnx"). A path that does not exist is ignored.
void note_input(const std::string& path, std::string_view what = {});

/// Throws vta::Error "WHAT PATH: is this command's input (INPUT); refusing
/// to overwrite it" when `path` names a file noted by note_input.
void check_output(const std::string& path, std::string_view what = {});

/// Whether `name` (a name that came from a model file: an ONNX graph
/// output) is a plain file name: not empty, not "." or "..", no "/" or
/// "\\", no control character. Used before such a name becomes a path.
bool is_plain_file_name(std::string_view name);

}  // namespace vta
