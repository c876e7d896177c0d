#pragma once
// The `systemc` backend: the SystemC cycle model behind the Backend interface.
#include "engine.h"
#include "vta/isa/error.h"
#include "vta/model/backend.h"
#include "vta/model/race.h"
#include "vta/sim/dram/config.h"

namespace vta::sim {

class SystemCBackend : public Backend {
 public:
  SystemCBackend(const Config& c, const BackendOptions& o)
      : Backend(c), options_(o), layout_(config()), timing_(config()), datapath_(config()), precheck_(config()) {
    if (!o.wave_path.empty()) fail("the systemc backend has no RTL: --wave needs the verilator backend");
    if (dram::enabled(config())) (void)dram::setup_of(config());  // a bad DRAM knob fails here, not mid-run
  }

  std::string name() const override { return options_.timing_only ? "systemc (timing-only)" : "systemc"; }

  void run(const Launch& launch) override {
    model::Program prog = model::fetch_program(config(), layout_, dram(), launch);
    model::check_step_budget(config(), layout_, prog, options_.max_steps);
    // The golden model's first error (and race), whatever order the timing
    // gives the modules; timing-only runs skip the race check, which walks
    // every uop iteration.
    model::check_in_golden_order(config(), prog, dram(), precheck_, !options_.timing_only && !options_.skip_race_check);
    RunSetup setup;
    setup.config = &config();
    setup.layout = &layout_;
    setup.program = &prog;
    setup.timing = &timing_;
    setup.datapath = options_.timing_only ? nullptr : &datapath_;
    setup.checker = options_.timing_only ? &datapath_ : nullptr;
    setup.dram = &dram();
    setup.insn_addr = launch.insn_addr;
    setup.record_bursts = !options_.trace_path.empty();
    RunRecord record = Engine::instance().run(setup);
    publish_run(config(), timing_, prog, record, stats_);
    if (!options_.trace_path.empty())
      write_trace(trace_path(runs_), config(), layout_, prog, record, options_.trace_limit);
    ++runs_;
  }

  std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const override {
    if (options_.timing_only) fail("read_sram: the systemc backend runs timing-only and holds no tensor data");
    return datapath_.read_sram(mem, index, count);
  }

  RunStats stats() const override { return stats_; }

 private:
  // The first run writes the trace to the given path, run n >= 1 to STEM.n.EXT
  // (a network runs one device program per VTA segment).
  std::string trace_path(uint64_t run) const {
    if (run == 0) return options_.trace_path;
    const auto dot = options_.trace_path.rfind('.');
    const auto slash = options_.trace_path.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
      return fmt::format("{}.{}", options_.trace_path, run);
    return fmt::format("{}.{}{}", options_.trace_path.substr(0, dot), run, options_.trace_path.substr(dot));
  }
  uint64_t runs_ = 0;
  BackendOptions options_;
  isa::Layout layout_;
  Timing timing_;
  model::Datapath datapath_;
  model::Datapath precheck_;  // the golden-order check before each run; holds its own copy of the uop buffer
  RunStats stats_;
};

}  // namespace vta::sim
