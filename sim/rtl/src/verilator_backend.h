#pragma once
// The `verilator` backend: the verilated RTL core (the timing ground truth)
// behind the Backend interface, attached to the memory model of
// docs/timing.md. The program is fetched and checked statically as on every
// backend; a shadow datapath checks each instruction when the core issues it
// (so that bounds errors are the golden model's, word for word); the core's
// dbg_* ports give the run record that sim::publish_run turns into stats.
#include <memory>
#include <string>

#include "verilator_core.h"
#include "vta/model/backend.h"

namespace vta::rtl {

/// What the RTL implements (README.md): throws vta::Error, naming backend
/// `name`, for a config or options outside it.
void check_supported(const std::string& name, const Config& c, const BackendOptions& o);

class VerilatorBackend : public Backend {
 public:
  /// Throws vta::Error when no built model fits the config, or for options
  /// and configs the RTL cannot honour.
  VerilatorBackend(const Config& c, const BackendOptions& o);

  std::string name() const override { return name_; }
  void run(const Launch& launch) override;
  std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const override;
  RunStats stats() const override { return stats_; }
  /// The last run's record (bursts only when tracing).
  const sim::RunRecord& last_record() const { return record_; }

 protected:
  /// Makes the core that runs config `c`; throws vta::Error when it cannot.
  using CoreFactory = std::unique_ptr<Core> (*)(const Config& c, const BackendOptions& o);
  /// The same backend on another clocking of the core (the `systemc-rtl`
  /// co-simulation) or on another model (the gate-level test's netlist):
  /// `name` in its messages, `make_core` called after the RTL's config checks.
  VerilatorBackend(const Config& c, const BackendOptions& o, std::string name, CoreFactory make_core);

 private:
  std::string name_;
  BackendOptions options_;
  isa::Layout layout_;
  sim::Timing timing_;
  model::Datapath checker_;
  model::Datapath precheck_;  // the golden-order check before each run; holds its own copy of the uop buffer
  std::unique_ptr<Core> core_;
  RunStats stats_;
  sim::RunRecord record_;
  uint64_t runs_ = 0;
};

}  // namespace vta::rtl
