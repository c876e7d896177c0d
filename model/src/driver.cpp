// The upstream VTA driver ABI over one process-wide backend.
#include "vta/driver.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "vta/isa/error.h"
#include "vta/model/backend.h"

namespace {

struct Runtime {
  std::unique_ptr<vta::Backend> backend;
  std::string last_error;
  std::string stats_json;
  int open_devices = 0;
};

std::mutex g_mutex;
Runtime g_rt;

void record(const std::string& msg) {
  g_rt.last_error = msg;
  std::fprintf(stderr, "vta driver: %s\n", msg.c_str());
}

// The backend, created on first use from VTA_CONFIG / VTA_BACKEND.
vta::Backend* backend() {
  if (g_rt.backend) return g_rt.backend.get();
  const char* cfg = std::getenv("VTA_CONFIG");
  const char* be = std::getenv("VTA_BACKEND");
  vta::Config c = vta::load_config(vta::resolve_config_path(cfg && *cfg ? cfg : "vta-1x16x16"));
  g_rt.backend = vta::make_backend(be && *be ? be : "golden", c);
  return g_rt.backend.get();
}

// The allocation holding host pointer p (and its physical address), or nullptr.
const vta::Dram::Allocation* owner(const void* p, uint64_t& phys) {
  if (!g_rt.backend) return nullptr;
  for (const auto& [addr, a] : g_rt.backend->dram().allocations()) {
    const auto* base = a.data.data();
    const auto* q = static_cast<const uint8_t*>(p);
    if (q >= base && q < base + a.data.size()) {
      phys = addr + static_cast<uint64_t>(q - base);
      return &a;
    }
  }
  return nullptr;
}

template <typename F>
auto guarded(F&& f, decltype(f()) on_error) -> decltype(f()) {
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    return f();
  } catch (const std::exception& e) {
    record(e.what());
    return on_error;
  }
}

}  // namespace

extern "C" {

VTADeviceHandle VTADeviceAlloc(void) {
  return guarded(
      []() -> VTADeviceHandle {
        backend();
        ++g_rt.open_devices;
        return &g_rt;
      },
      nullptr);
}

void VTADeviceFree(VTADeviceHandle handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (handle == &g_rt && g_rt.open_devices > 0) --g_rt.open_devices;
}

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count, uint32_t /*wait_cycles*/) {
  return guarded(
      [&]() -> int {
        if (device != &g_rt) vta::fail("VTADeviceRun: invalid device handle");
        g_rt.last_error.clear();
        g_rt.backend->run(vta::Launch{insn_phy_addr, insn_count, {}});
        g_rt.stats_json = g_rt.backend->stats().to_json().dump();
        return 0;
      },
      1);
}

void* VTAMemAlloc(size_t size, int /*cached*/) {
  return guarded(
      [&]() -> void* {
        vta::Backend* b = backend();
        uint64_t phys = b->dram().alloc(size);
        if (phys > UINT32_MAX) {
          b->dram().free(phys);
          vta::fail("VTAMemAlloc: physical address 0x{:x} does not fit upstream's 32-bit vta_phy_addr_t", phys);
        }
        return b->dram().find(phys, size ? size : 1);
      },
      nullptr);
}

void VTAMemFree(void* buf) {
  guarded(
      [&]() -> int {
        uint64_t phys = 0;
        const auto* a = owner(buf, phys);
        if (!a || a->data.data() != buf) vta::fail("VTAMemFree: {} was not returned by VTAMemAlloc", buf);
        g_rt.backend->dram().free(a->addr);
        return 0;
      },
      1);
}

vta_phy_addr_t VTAMemGetPhyAddr(void* buf) {
  return guarded(
      [&]() -> vta_phy_addr_t {
        uint64_t phys = 0;
        if (!owner(buf, phys)) vta::fail("VTAMemGetPhyAddr: {} is not inside a VTAMemAlloc buffer", buf);
        return static_cast<vta_phy_addr_t>(phys);
      },
      0);
}

void VTAMemCopyFromHost(void* dst, const void* src, size_t size) {
  if (size) std::memcpy(dst, src, size);
}

void VTAMemCopyToHost(void* dst, const void* src, size_t size) {
  if (size) std::memcpy(dst, src, size);
}

void VTAFlushCache(void* /*vir_addr*/, vta_phy_addr_t /*phy_addr*/, int /*size*/) {}
void VTAInvalidateCache(void* /*vir_addr*/, vta_phy_addr_t /*phy_addr*/, int /*size*/) {}

const char* VTARuntimeLastError(void) { return g_rt.last_error.c_str(); }
const char* VTARuntimeStatsJson(void) { return g_rt.stats_json.c_str(); }

}  // extern "C"
