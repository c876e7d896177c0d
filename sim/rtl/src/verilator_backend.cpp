#include "verilator_backend.h"

#include <algorithm>

#include "verilator_select.h"
#include "vta/isa/error.h"
#include "vta/model/race.h"

namespace vta::rtl {

namespace {

// The first run writes to `path`, run n >= 1 to STEM.n.EXT (as the systemc
// backend names its traces: a network runs one device program per segment).
std::string per_run_path(const std::string& path, uint64_t run) {
  if (run == 0) return path;
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return fmt::format("{}.{}", path, run);
  return fmt::format("{}.{}{}", path.substr(0, dot), run, path.substr(dot));
}

// What the RTL implements (sim/rtl/README.md); a config outside it is an error.
void check_supported(const std::string& name, const Config& c, const BackendOptions& o) {
  if (o.timing_only)
    fail("the {} backend always moves the data (the RTL has no timing-only mode): drop --timing-only", name);
  if (c.gemm.pipeline_depth < 3)
    fail("{}: the RTL core needs gemm.pipeline_depth >= 3, config '{}' has {}", name, c.name, c.gemm.pipeline_depth);
  if (c.alu.latency < 3)
    fail("{}: the RTL core needs alu.latency >= 3, config '{}' has {}", name, c.name, c.alu.latency);
  const int64_t bus = c.memory.bus_bits / 8;
  const int64_t narrowest = std::min(
      {c.derived.inp_elem_bytes, c.derived.wgt_elem_bytes, c.derived.acc_elem_bytes, c.derived.out_elem_bytes});
  if (bus > 16 || bus > narrowest)
    fail(
        "{}: the RTL core needs a memory bus of at most 128 bits and no wider than an INP, WGT, ACC or OUT "
        "element ({} bytes here); config '{}' has memory.bus_bits {}",
        name, narrowest, c.name, c.memory.bus_bits);
  if (c.memory.pad_elems_per_cycle != 1)
    fail("{}: the RTL core zero-fills one element a cycle (memory.pad_elems_per_cycle 1), config '{}' has {}", name,
         c.name, c.memory.pad_elems_per_cycle);
}

// The `verilator` backend's core: the built C++ model that fits the config.
std::unique_ptr<Core> make_verilator_core(const Config& c, const BackendOptions&) { return select_model(c).make(); }

}  // namespace

VerilatorBackend::VerilatorBackend(const Config& c, const BackendOptions& o)
    : VerilatorBackend(c, o, "verilator", &make_verilator_core) {}

VerilatorBackend::VerilatorBackend(const Config& c, const BackendOptions& o, std::string name, CoreFactory make_core)
    : Backend(c), name_(std::move(name)), options_(o), layout_(config()), timing_(config()), checker_(config()),
      precheck_(config()) {
  check_supported(name_, config(), options_);
  core_ = make_core(config(), options_);
}

void VerilatorBackend::run(const Launch& launch) {
  model::Program prog = model::fetch_program(config(), layout_, dram(), launch);
  model::check_step_budget(config(), layout_, prog, options_.max_steps);
  // The golden model's first error and race, whatever order the RTL's timing gives the modules.
  model::check_in_golden_order(config(), prog, dram(), precheck_, !options_.timing_only && !options_.skip_race_check);
  RunInputs in;
  in.config = &config();
  in.layout = &layout_;
  in.program = &prog;
  in.timing = &timing_;
  in.checker = &checker_;
  in.dram = &dram();
  in.insn_addr = launch.insn_addr;
  in.record_bursts = !options_.trace_path.empty();
  if (!options_.wave_path.empty()) {
    in.wave_path = per_run_path(options_.wave_path, runs_);
    in.wave_from = options_.wave_from;
    in.wave_cycles = options_.wave_cycles;
  }
  record_ = core_->run(in);
  sim::publish_run(config(), timing_, prog, record_, stats_);
  if (!options_.trace_path.empty())
    sim::write_trace(per_run_path(options_.trace_path, runs_), config(), layout_, prog, record_, options_.trace_limit);
  ++runs_;
}

std::vector<uint8_t> VerilatorBackend::read_sram(isa::MemId mem, uint32_t index, uint32_t count) const {
  checker_.read_sram(mem, index, count);  // the range check, with the golden model's message
  const int port_mem = static_cast<int>(mem == isa::MemId::ACC_8BIT ? isa::MemId::ACC : mem);
  const auto bytes = static_cast<size_t>(config().elem_bytes(port_mem));
  std::vector<uint8_t> out;
  out.reserve(bytes * count);
  for (uint32_t k = 0; k < count; ++k) {
    const std::vector<uint8_t> e = core_->read_element(port_mem, index + k, bytes);
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

}  // namespace vta::rtl
