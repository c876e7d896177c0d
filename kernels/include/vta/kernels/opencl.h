#pragma once
// The "opencl" backend: kernels/vta.cl on any OpenCL device (PoCL on a CPU, a
// GPU, or an FPGA card from an offline-compiled binary), behind the Backend
// interface.
//
// Device: the config's opencl.platform / opencl.device (a name substring or
// an index; `vta devices` lists them); when those are empty, the environment
// variables VTA_OPENCL_PLATFORM / VTA_OPENCL_DEVICE; else the first device.
// Kernel: built from the embedded kernels/vta.cl with the config's generated
// defines prepended (once per device, config and variant in a process), or
// loaded from opencl.binary; VTA_OPENCL_KERNEL=FILE.cl replaces the embedded
// source (kernel development without rebuilding). Variant: opencl.variant
// ("single": one work-item, FPGA style; "workgroup": one work-group spreads
// the MAC array and ALU lanes), or VTA_OPENCL_VARIANT when set.
//
// Memory: the DRAM range the allocations span is mirrored in one device
// buffer, written before a run and read back (the allocations that STOREs
// write) after it; the on-chip buffers live in device buffers and persist
// across runs. The execution order of a program is data-independent and is
// computed on the host with the golden model's scheduling rule
// (model::schedule); static checks happen on the host before launch, the
// data-dependent uop bounds in the kernel, and every error is reported with
// the golden model's exact message.
//
// Errors (no platform, device not found, build failure with its log, bad
// binary, allocation over the device limit, device lost) are vta::Error.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vta/isa/error.h"
#include "vta/model/backend.h"

namespace vta::opencl {

/// One OpenCL device as `vta devices` shows it.
struct DeviceInfo {
  int index = 0;           // position in list_devices() (what opencl.device=N means with no platform filter)
  int platform_index = 0;  // position of its platform
  std::string platform, platform_version, vendor;
  std::string name, type, version, driver_version, c_version;
  uint32_t compute_units = 0, clock_mhz = 0;
  uint64_t global_mem = 0, local_mem = 0, max_alloc = 0;
  uint64_t max_work_group = 0;
  bool little_endian = true, available = true;
  std::string extensions;
};

/// Every device of every platform the ICD loader finds; empty when there is
/// no platform at all.
std::vector<DeviceInfo> list_devices();
/// The listing `vta devices` prints.
std::string describe_devices(const std::vector<DeviceInfo>& devices);

/// An OpenCL call failed: the device was lost, ran out of memory, or the
/// platform misbehaved (vta::DeviceError). Everything else is a plain vta::Error.
using DeviceError = vta::DeviceError;

/// The message of an OpenCL error `err` during `what` on `device`: a lost
/// device (out of resources, not available, a failed command) or a failed
/// allocation is said so; other codes are named.
std::string cl_error_message(int err, std::string_view what, std::string_view device);

/// kernels/vta.cl as embedded at build time.
std::string_view embedded_kernel_source();

/// The complete kernel source for `c`: the generated defines, the variant
/// ("single" or "workgroup"; `onchip` keeps the single variant's buffers in
/// private arrays), then kernels/vta.cl. An offline compiler (an FPGA SDK)
/// takes this; the binary it makes is loaded through opencl.binary.
std::string kernel_source(const Config& c, const std::string& variant, bool onchip);

/// Builds the kernel for `c` (its device, variant) and returns the program
/// binary the device's compiler made, for use as opencl.binary.
std::vector<uint8_t> build_binary(const Config& c);

class OpenclBackend : public Backend {
 public:
  /// Picks the device and builds (or loads) the kernel; throws vta::Error.
  /// Rejects timing_only, trace_path and wave_path: the kernel is untimed.
  OpenclBackend(const Config& c, const BackendOptions& options);
  ~OpenclBackend() override;

  std::string name() const override { return "opencl"; }
  /// "device 'NAME' (PLATFORM), VARIANT variant".
  std::string describe() const override;
  void run(const Launch& launch) override { run_batch({launch}); }
  /// Runs the launches back to back on the device with one upload of DRAM,
  /// one read-back and one synchronisation (as a cloud card runs the layers
  /// of one inference). Errors are those run() would give for the first
  /// launch that fails; the launches before it have run.
  void run_batch(const std::vector<Launch>& launches);
  std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const override;
  /// Golden counters plus opencl.* figures: device_ns (kernel time from
  /// profiling events), upload_ns / download_ns, launches, build_ms.
  RunStats stats() const override;

  const DeviceInfo& device() const;
  /// "single" or "workgroup".
  std::string variant() const;
  /// Work-items per launch (1 for the single variant).
  uint64_t work_group_size() const;
  /// Milliseconds the kernel took to build (or load) for this config, once per process.
  double build_ms() const;
  /// Whether the on-chip buffers are private arrays of the kernel (single variant).
  bool sram_on_chip() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vta::opencl
