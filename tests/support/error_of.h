#pragma once
// The one way tests read an error: what a callable throws.
#include <exception>
#include <string>

#include "vta/isa/error.h"

namespace vta::test {

/// What error_of() returns when the callable returned without throwing.
inline constexpr const char* kNoError = "<no error>";

/// The message of the vta::Error that `f()` throws; kNoError when it
/// returns; "<not a vta::Error> WHAT" for any other exception (a leaked
/// internal message, which the tests expecting one clear error then name).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const vta::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a vta::Error> ") + e.what();
  }
  return kNoError;
}

}  // namespace vta::test
