#pragma once
// One verilated VTA core behind a small interface, so that the backend does
// not depend on any model's generated class. Each preset in VTA_RTL_PRESETS
// is verilated under its own prefix; sim/rtl/CMakeLists.txt generates one
// translation unit per model (verilator_model.cpp.in) that instantiates the
// harness on that class, and the list of them (built_models()).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vta/model/datapath.h"
#include "vta/model/program.h"
#include "vta/sim/run_record.h"
#include "vta/sim/timing.h"

namespace vta::rtl {

/// What one run needs; pointers stay valid for the run.
struct RunInputs {
  const Config* config = nullptr;
  const isa::Layout* layout = nullptr;
  const model::Program* program = nullptr;
  const sim::Timing* timing = nullptr;
  model::Datapath* checker = nullptr;  // raises the golden model's errors at issue time
  Dram* dram = nullptr;
  uint64_t insn_addr = 0;
  bool record_bursts = false;
  // Waveform: written when `wave_path` is set, cycles [wave_from, wave_from + wave_cycles).
  std::string wave_path;
  uint64_t wave_from = 0, wave_cycles = 0;
};

class Core {
 public:
  virtual ~Core() = default;
  /// Resets the core's control, starts it on the program and clocks it until
  /// every instruction has completed. Throws vta::Error: the checker's
  /// errors, the deadlock report (model::fail_deadlock), or a watchdog report
  /// when the core stops making progress.
  virtual sim::RunRecord run(const RunInputs& in) = 0;
  /// Element `index` of on-chip buffer `mem` (MEM_ID_UOP .. _OUT) through the
  /// debug read port: `bytes` bytes in DRAM order.
  virtual std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) = 0;
};

/// One verilated model: its preset, the text of the package it was built
/// from, and a factory.
struct BuiltModel {
  const char* preset;
  const char* package;
  std::unique_ptr<Core> (*make)();
};

/// Every model built into this binary, in VTA_RTL_PRESETS order.
const std::vector<const BuiltModel*>& built_models();

/// Gate-level models of yosys netlists (VTA_RTL_NETLIST; README.md,
/// "Gate-level check"), each with the package of its preset. Never chosen by
/// select_model, which reads only built_models(); tests/test_rtl_netlist.cpp
/// runs them against the RTL model of the same preset.
const std::vector<const BuiltModel*>& netlist_models();

}  // namespace vta::rtl
