#pragma once
// One exception type for every user-facing error: bad YAML, an unencodable
// config, a malformed program, an out-of-range access, a deadlock. The message
// is complete (it names the file/key/instruction/queue); the CLI prints it as
// one line and exits with code 2.
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace vta {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The device behind a backend failed (lost, out of memory, a misbehaving
/// platform): unlike a plain Error, nothing it computes afterwards means
/// anything, so a battery of runs stops at the first one.
class DeviceError : public Error {
 public:
  using Error::Error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace vta
