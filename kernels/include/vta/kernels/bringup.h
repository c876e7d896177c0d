#pragma once
// The bring-up battery a hardware engineer runs on a new OpenCL device:
// (a) one program per instruction kind and corner, (b) the conformance
// vectors, (c) seeded random valid programs, (d) whole networks from the
// compiler's zoo; each run on the "opencl"
// backend and compared bit-exactly (every DRAM buffer and every on-chip
// buffer) with the golden model. A mismatch is localised to the first
// differing instruction by re-running prefixes of the execution order.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/model/image.h"

namespace vta::bringup {

struct Options {
  /// The design; its opencl.* knobs pick the device, variant and binary.
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
};

struct CaseResult {
  enum class Status { PASS, FAIL, SKIP };
  std::string suite, name;
  Status status = Status::PASS;
  std::string message;  // why it failed or was skipped
  double seconds = 0;
};

struct Report {
  std::string device, platform, variant, config;
  std::vector<CaseResult> cases;
  double seconds = 0;
  size_t count(CaseResult::Status s) const;
  bool passed() const { return count(CaseResult::Status::FAIL) == 0; }
};

/// Runs the battery; prints a line per suite (and each failure) to
/// `progress` when given. Throws vta::Error when the device cannot be used
/// at all (no platform, device not found, kernel build failure, bad binary),
/// and opencl::DeviceError when it stops working during the battery.
Report run(const Options& options, std::ostream* progress = nullptr);

/// "" when `image` gives the same DRAM buffers, on-chip buffers and errors on
/// the opencl backend as on the golden model (each on a fresh backend of
/// config `c`); else the first differing instruction, buffer, index, expected
/// and actual values.
std::string compare_with_golden(const Config& c, const ProgramImage& image);

/// The readable summary of a report.
std::string summary(const Report& r);
/// JUnit XML (one testsuite per battery part) for CI dashboards.
std::string junit_xml(const Report& r);

}  // namespace vta::bringup
