#pragma once
// The bring-up battery a hardware engineer runs on a new implementation of a
// design, through any registered Backend (an OpenCL card, the RTL on
// Verilator, the co-simulation, the SystemC model): (a) one program per
// instruction kind and corner, (b) the conformance vectors, (c) seeded random
// valid programs (vta/model/random_program.h), (d) whole networks from the
// compiler's zoo; each compared bit-exactly (every DRAM buffer and every
// on-chip buffer) with the golden model. A mismatch is localised to the first
// differing instruction by re-running prefixes of the execution order; on
// the RTL backends a bounded VCD window around that instruction's cycles is
// written too (diagnose.h).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/model/backend.h"
#include "vta/model/image.h"

namespace vta::bringup {

struct Options {
  /// The registered backend brought up ("opencl", "verilator", ...).
  std::string backend = "opencl";
  /// The design; an OpenCL backend takes its device, variant and binary
  /// from the opencl.* knobs.
  Config config;
  bool corners = true;
  bool conformance = true;
  /// Conformance-vector folder; "" looks at VTA_CONFORMANCE_DIR, then the
  /// vectors shipped in the source tree (tests/data/conformance/vectors),
  /// then tests/data/... and ../shared/conformance/vectors from the working
  /// directory.
  std::string vectors;
  uint32_t random = 20;  // random programs
  uint32_t seed = 1;     // first random seed
  /// (d) zoo networks compiled for the config and run layer by layer; the
  /// output and every DRAM buffer compared with the golden model.
  std::vector<std::string> networks = {"lenet5"};
  /// Where the RTL backends write the VCD window of each mismatch
  /// (CASE.vcd); "" writes none.
  std::string wave_dir = "bringup-waves";
};

struct CaseResult {
  enum class Status { PASS, FAIL, SKIP };
  std::string suite, name;
  Status status = Status::PASS;
  std::string message;  // why it failed or was skipped
  double seconds = 0;
};

struct Report {
  std::string backend;      // the backend's registered name
  std::string device;       // Backend::describe()
  std::string config;       // the design's name
  std::string config_hash;  // Config::hash() of the resolved design
  /// Whether every program was race-checked before its comparison (the
  /// corner, conformance and random programs by race_in(), the networks'
  /// segments by the golden model's own check), and how many were racy.
  bool race_checked = false;
  size_t racy = 0;
  /// "passed", "N racy programs" or "not run", as the summary and JUnit say.
  std::string race_text() const;
  std::vector<CaseResult> cases;
  double seconds = 0;
  size_t count(CaseResult::Status s) const;
  bool passed() const { return count(CaseResult::Status::FAIL) == 0; }
};

/// Runs the battery; prints a line per suite (and each failure) to
/// `progress` when given. Throws vta::Error when the backend cannot be made
/// at all (unknown name, no OpenCL platform, device not found, kernel build
/// failure, a design the RTL does not support), and vta::DeviceError when the
/// device stops working during the battery.
Report run(const Options& options, std::ostream* progress = nullptr);

/// The readable summary of a report: backend, device, design, config hash,
/// race check, counts, failed cases.
std::string summary(const Report& r);

}  // namespace vta::bringup
