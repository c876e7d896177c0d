/*
 * The upstream VTA driver ABI (vta/driver.h of Apache TVM's VTA), on top of
 * a vta-lab backend, so that programs written against upstream's driver run
 * unchanged.
 *
 * The process has one device: its config comes from the environment
 * variable VTA_CONFIG (a preset name such as "vta-1x16x16", or a YAML path;
 * default vta-1x16x16) and its backend from VTA_BACKEND (default "golden").
 * Memory from VTAMemAlloc is the device's DRAM, shared with the host as on
 * an edge SoC, so the cache calls are no-ops. Errors (bad config, a program
 * error or deadlock in VTADeviceRun) print one message to stderr and are
 * reported by the return value; VTARuntimeLastError() returns the message.
 */
#ifndef VTA_DRIVER_H_
#define VTA_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! VTAMemAlloc's `cached` argument, with upstream's values. */
#define VTA_CACHED 1
#define VTA_NOT_CACHED 0

/*! Physical address in the device's address space (upstream: 32 bits). */
typedef uint32_t vta_phy_addr_t;
typedef void* VTADeviceHandle;

/*! Opens the device; NULL on error (see VTARuntimeLastError). */
VTADeviceHandle VTADeviceAlloc(void);
void VTADeviceFree(VTADeviceHandle handle);
/*! Runs insn_count instructions at insn_phy_addr until FINISH. wait_cycles is
 *  upstream's timeout; the functional backends ignore it. Returns 0 on success. */
int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count, uint32_t wait_cycles);

/*! Allocates device DRAM (4 KiB pages); NULL on error. `cached` is accepted and ignored. */
void* VTAMemAlloc(size_t size, int cached);
void VTAMemFree(void* buf);
/*! Physical address of a buffer from VTAMemAlloc (0 if it is not one). */
vta_phy_addr_t VTAMemGetPhyAddr(void* buf);
void VTAMemCopyFromHost(void* dst, const void* src, size_t size);
void VTAMemCopyToHost(void* dst, const void* src, size_t size);
void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);
void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);

/* vta-lab extensions */
/*! The message of the last error, or "" when none. */
const char* VTARuntimeLastError(void);
/*! JSON stats of the last VTADeviceRun (valid until the next call). */
const char* VTARuntimeStatsJson(void);

#ifdef __cplusplus
}
#endif

#endif /* VTA_DRIVER_H_ */
