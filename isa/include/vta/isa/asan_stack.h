#pragma once
// Debian's SystemC switches between its threads' stacks without telling
// AddressSanitizer (no __sanitizer_start_switch_fiber), so redzones of frames
// that were left by a switch or an exception thrown on a SystemC thread stay
// poisoned on the main stack below the live frames, and a later deep call
// there (an exception's unwinding first of all, or ASan's own sigaltstack
// probe in __asan_handle_no_return) is reported as a stack-buffer-overflow
// that is not one. forget_stale_stack_poison() unpoisons `bytes` of the
// unused stack below its caller; it is a no-op without AddressSanitizer.
// Callers: the SystemC engine after each sc_start, and the fuzz_systemc
// target before each input (tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VTA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(VTA_ASAN)
#include <sanitizer/asan_interface.h>
namespace vta {
[[gnu::noinline]] inline void forget_stale_stack_poison(size_t bytes = size_t{256} << 10) {
  char here = 0;
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(&here) - 256) & ~uintptr_t{7};
  ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(hi - bytes), bytes);
  asm volatile("" : : "r"(&here) : "memory");
}
}  // namespace vta
#else
namespace vta {
inline void forget_stale_stack_poison(size_t = 0) {}
}  // namespace vta
#endif
