#pragma once
// Derived constraints of a sweep spec, written as expressions over knobs
// ("buffers.inp + buffers.wgt + buffers.acc + buffers.uop <= 4MiB") and
// evaluated by muParser. Variables: every numeric knob by its key (booleans
// 0/1), the derived depths as derived.inp_depth ..., mac_units (batch x
// block_in x block_out), and the FPGA estimate's columns of stage 0 (lut,
// ff, dsp, bram36, uram, fmax_mhz, fits, util_* ...).
// Units KiB, MiB and GiB are postfix operators.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vta/isa/config.h"
#include "vta/sweeps/spec.h"

namespace vta::sweeps {

/// Compiles `c` with every variable defined; throws vta::Error naming
/// source:line and muParser's message (syntax, unknown variable).
void check_constraint(const Constraint& c, const std::string& source);

/// The spec's constraints, compiled once, evaluated per config. Not thread-safe.
class ConstraintSet {
 public:
  ConstraintSet(const std::vector<Constraint>& cs, const std::string& source);
  ~ConstraintSet();
  ConstraintSet(const ConstraintSet&) = delete;
  ConstraintSet& operator=(const ConstraintSet&) = delete;
  /// "" when `c` (with `extra` columns) meets every constraint, else a
  /// message naming the first one it violates and the values it used.
  std::string violated(const Config& c, const std::vector<std::pair<std::string, double>>& extra = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vta::sweeps
