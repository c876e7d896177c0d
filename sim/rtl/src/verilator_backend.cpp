#include "verilator_backend.h"

#include <algorithm>
#include <cstdlib>
#include <span>
#include <string_view>

#include "verilator_select.h"
#include "vta/isa/error.h"
#include "vta/model/race.h"
#include "vta/sim/dram/config.h"

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

}  // namespace

// What the RTL implements (sim/rtl/README.md); a config outside it is an error.
void check_supported(const std::string& name, const Config& c, const BackendOptions& o) {
  if (o.timing_only)
    fail("the {} backend always moves the data (the RTL has no timing-only mode): drop --timing-only", name);
  if (c.gemm.pipeline_depth < 3)
    fail("{}: the RTL core needs gemm.pipeline_depth >= 3, config '{}' has {}", name, c.name, c.gemm.pipeline_depth);
  if (c.alu.latency < 3)
    fail("{}: the RTL core needs alu.latency >= 3, config '{}' has {}", name, c.name, c.alu.latency);
  if (const std::string w = nondefault_widths(c); !w.empty())
    fail("{}: the RTL datapath is built for upstream's widths only (dtype 8/8/32/8); config '{}' has {}", name, c.name,
         w);
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

namespace {

// Test hook (README.md, "Test hooks"): with VTA_RTL_FAULT=alu-imm the core
// fetches every ALU instruction that has an immediate with bit 0 of the
// immediate inverted, as a broken decoder would. The bring-up tests plant
// this bug to prove that a mismatch is localised to the right instruction.
// Returns the instruction words to put back after the run.
std::vector<std::pair<uint64_t, isa::Raw128>> plant_fault(const isa::Layout& layout, const model::Program& prog,
                                                          Dram& dram, const Launch& launch) {
  std::vector<std::pair<uint64_t, isa::Raw128>> saved;
  const char* f = std::getenv("VTA_RTL_FAULT");
  if (!f || std::string_view(f) != "alu-imm") return saved;
  for (size_t k = 0; k < prog.insns.size(); ++k) {
    isa::Insn i = prog.insns[k];
    if (i.opcode() != isa::Opcode::ALU || !i[isa::Member::use_imm]) continue;
    const uint64_t at = launch.insn_addr + k * isa::kInsnBytes;
    isa::Raw128 raw{};
    dram.read(at, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&raw), sizeof raw));
    saved.emplace_back(at, raw);
    i[isa::Member::imm] ^= 1;
    const isa::Raw128 bad = layout.encode(i);
    dram.write(at, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&bad), sizeof bad));
  }
  return saved;
}

// The `verilator` backend's core: the built C++ model that fits the config.
std::unique_ptr<Core> make_verilator_core(const Config& c, const BackendOptions&) { return select_model(c).make(); }

}  // namespace

VerilatorBackend::VerilatorBackend(const Config& c, const BackendOptions& o)
    : VerilatorBackend(c, o, "verilator", &make_verilator_core) {}

VerilatorBackend::VerilatorBackend(const Config& c, const BackendOptions& o, std::string name, CoreFactory make_core)
    : Backend(c),
      name_(std::move(name)),
      options_(o),
      layout_(config()),
      timing_(config()),
      checker_(config()),
      precheck_(config()) {
  check_supported(name_, config(), options_);
  if (sim::dram::enabled(config())) (void)sim::dram::setup_of(config());  // a bad DRAM knob fails here, not mid-run
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
  const auto saved = plant_fault(layout_, prog, dram(), launch);
  struct Restore {  // the program in DRAM as it was, whatever the run did
    Dram& d;
    const std::vector<std::pair<uint64_t, isa::Raw128>>& s;
    ~Restore() {
      for (const auto& [at, raw] : s)
        d.write(at, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&raw), sizeof raw));
    }
  } restore{dram(), saved};
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
