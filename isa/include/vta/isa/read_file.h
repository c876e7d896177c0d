#pragma once
// Reading an input file (a program, a config, an ONNX model, a buffer's
// contents) so that every failure is one vta::Error naming the file and the
// reason: a missing file, a directory, a read error, a file past the limit
// for its kind. Never the stream library's own message
// (`basic_filebuf::underflow ...`), never an unbounded read (/dev/zero, a
// fifo that never ends). Each file read is noted as an input of the command
// (io_guard.h), so that no output overwrites it. Tests:
// CliInputErrors.DirectoriesAsInputFiles in tests/test_cli_input_errors.cpp,
// tests/test_untrusted_inputs.cpp.
#include <cstdint>
#include <string>
#include <string_view>

namespace vta {

/// The most bytes read from one file, by kind. Text (programs, configs,
/// sweep specs, JSON caches) is written by people or by this tool and stays
/// far below 64 MiB; tensors are bounded by the 2^28-element limit at 4 bytes
/// an element; an ONNX model by protobuf's 2 GiB message limit.
inline constexpr std::uint64_t kTextReadLimit = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kDataReadLimit = (std::uint64_t{1} << 30) + (std::uint64_t{1} << 20);
inline constexpr std::uint64_t kModelReadLimit = std::uint64_t{2} << 30;

/// The whole of `path`; throws vta::Error "WHAT PATH: cannot open (REASON)"
/// when it cannot be opened, "WHAT PATH: cannot read (REASON)" when it cannot
/// be read (REASON: "it is a directory", or the system's), and "WHAT PATH:
/// larger than N MiB, the limit for this kind of file" past `max_bytes`
/// ("WHAT PATH: OVER_LIMIT" when `over_limit` is given: a limit that comes
/// from what the file must hold, such as a tensor's size, and says so).
/// `what` names where the path came from ("--onnx"); empty: the path alone.
/// A fifo is opened without waiting for a writer: one that has none reads
/// as empty, so no read blocks in open().
std::string read_file(const std::string& path, std::string_view what = {}, std::uint64_t max_bytes = kTextReadLimit,
                      std::string_view over_limit = {});

/// Throws vta::Error "WHAT PATH: not a regular file (it is a fifo)" when
/// `path` exists and is a folder, fifo, socket or device: for inputs that
/// must be files (a model), asked before anything opens them. A missing path
/// passes (read_file says "cannot open").
void require_regular_file(const std::string& path, std::string_view what = {});

}  // namespace vta
