#pragma once
// Debian's SystemC 2.3.4 tells AddressSanitizer about its coroutine switches
// (__sanitizer_start/finish_switch_fiber, weak references in libsystemc),
// but it announces a switch back to the main coroutine with the stack it
// knows for it: none (bottom 0, size 0). From the first switch back on, ASan
// believes the main thread has no stack, so every exception thrown on the
// main stack afterwards skips the unpoisoning of the frames it unwinds
// ("ignoring requested __asan_handle_no_return"), their redzones stay
// poisoned, and a later exception thrown from that depth is reported as a
// stack-buffer-overflow in ASan's own sigaltstack probe that is not one.
// restore_main_stack_bounds() announces a switch from the main stack to
// itself with its real bounds; whoever calls sc_start calls it when
// sc_start returns. It is a no-op without AddressSanitizer.
#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VTA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(VTA_ASAN)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
namespace vta {
inline void restore_main_stack_bounds() {
  struct Bounds {
    void* bottom = nullptr;
    size_t size = 0;
  };
  // The calling (main) thread's stack: the same on every call.
  static const Bounds main_stack = [] {
    Bounds b;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &b.bottom, &b.size) != 0) b = {};
      pthread_attr_destroy(&attr);
    }
    return b;
  }();
  if (main_stack.size == 0) return;
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, main_stack.bottom, main_stack.size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
}
}  // namespace vta
#else
namespace vta {
inline void restore_main_stack_bounds() {}
}  // namespace vta
#endif
