#pragma once
// The one Backend interface: every consumer (CLI, driver ABI, compiler
// tests, sweeps, bring-up) talks to a simulator or device only through it.
//
// Contract:
//  - A backend is made for one Config and owns one Dram (the physical
//    address space). The host fills DRAM through dram() before run() and
//    reads results from it afterwards; a backend with device memory copies
//    as needed inside run().
//  - run() executes `insn_count` 128-bit instructions at physical address
//    `insn_addr` until FINISH, with the exact semantics of docs/design.md. It
//    throws vta::Error (one complete message) for malformed programs,
//    out-of-range accesses and deadlocks; state after an error is unspecified
//    but the backend stays usable for a new run(). A backend whose device
//    itself fails (lost, out of memory) throws vta::DeviceError instead.
//  - On-chip buffers keep their contents between runs, as on hardware.
//  - stats() describes the last run, per region as well.
//  - Implementations register themselves by name with VTA_REGISTER_BACKEND.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/dram.h"
#include "vta/model/stats.h"

namespace vta {

/// A named range of instructions [begin, end) (the compiler emits one per layer).
struct Region {
  std::string name;
  uint32_t begin = 0, end = 0;
};

/// What to run: instructions in DRAM, plus the optional region side table.
struct Launch {
  uint64_t insn_addr = 0;
  uint32_t insn_count = 0;
  std::vector<Region> regions;
};

/// Run options a backend may support; a backend rejects (vta::Error) those it
/// cannot honour rather than ignoring them.
struct BackendOptions {
  /// Cycle models: skip the datapath (timing does not depend on data). The
  /// tensors are then not computed and data-dependent bounds not checked.
  bool timing_only = false;
  /// Cycle models: write a Chrome/Perfetto trace JSON of each run here.
  std::string trace_path;
  /// Most trace events written per run; beyond it the trace says it was cut.
  uint64_t trace_limit = 200000;
  /// RTL backend: write a VCD waveform of each run here (run n >= 1 to
  /// STEM.n.EXT), of cycles [wave_from, wave_from + wave_cycles).
  std::string wave_path;
  uint64_t wave_from = 0;
  uint64_t wave_cycles = 100000;
  /// The golden, SystemC and Verilator models check every run for data
  /// races (vta/model/race.h) unless this is set, for speed; timing-only
  /// runs skip the check. The OpenCL backend runs the golden model's order
  /// and does not check.
  bool skip_race_check = false;
  /// Most steps (1 per instruction + uop iterations + SRAM elements moved,
  /// model/program.h) one run may take; a program over it is refused before
  /// it runs, naming the instruction. 2^32 is minutes on the golden model.
  uint64_t max_steps = uint64_t{1} << 32;
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string name() const = 0;
  /// The implementation behind the backend in a few words, for reports (an
  /// OpenCL backend names its device, platform and kernel variant); by
  /// default the backend's name.
  virtual std::string describe() const { return name(); }
  virtual void run(const Launch& launch) = 0;
  /// Bytes of `count` elements of on-chip buffer `mem` from element `index`
  /// (UOP words, INP, WGT, ACC as little-endian int32, OUT). Throws when out of range.
  virtual std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const = 0;
  virtual RunStats stats() const = 0;

  const Config& config() const { return config_; }
  Dram& dram() { return dram_; }
  const Dram& dram() const { return dram_; }

 protected:
  explicit Backend(const Config& c) : config_(c), dram_(static_cast<uint64_t>(c.memory.dram_size)) {}

 private:
  Config config_;
  Dram dram_;
};

using BackendFactory = std::function<std::unique_ptr<Backend>(const Config&, const BackendOptions&)>;
/// Registers a backend; returns true (for static initialisers).
bool register_backend(const std::string& name, const std::string& description, BackendFactory factory);
/// Makes backend `name`; throws vta::Error listing the known backends, or
/// naming an option the backend does not support.
std::unique_ptr<Backend> make_backend(const std::string& name, const Config& c, const BackendOptions& options = {});
/// (name, description) of every registered backend, sorted by name.
std::vector<std::pair<std::string, std::string>> backends();

/// Registers CLASS, constructible from (const Config&, const BackendOptions&), as NAME.
#define VTA_REGISTER_BACKEND(NAME, DESCRIPTION, CLASS)                                                \
  [[maybe_unused]] static const bool vta_registered_backend_##CLASS = ::vta::register_backend(        \
      NAME, DESCRIPTION,                                                                              \
      [](const ::vta::Config& c, const ::vta::BackendOptions& o) -> std::unique_ptr<::vta::Backend> { \
        return std::make_unique<CLASS>(c, o);                                                         \
      })

}  // namespace vta
