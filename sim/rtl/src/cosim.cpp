#include "cosim.h"

#include <dlfcn.h>

#include "cosim_backend.h"
#include "engine.h"
#include "verilator_select.h"
#include "vta/isa/asan_stack.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/rtl/model_cache.h"

namespace vta::rtl {

namespace {

CoSimTop* the_top = nullptr;  // set by its constructor, in the engine's elaboration

// The model the process's SystemC top level gets: the built-in one, unless
// a systemc-rtl backend for another design came before the elaboration and
// loaded that design's model from the cache (on_demand below).
struct Selected {
  void (*elaborate)() = &elaborate_cosim;
  std::string package = kCoSimPackage;
  std::string design = kCoSimPreset;
  bool elaborated = false;
};
Selected& selected() {
  static Selected s;
  return s;
}

void elaborate_selected() {
  selected().elaborated = true;
  selected().elaborate();
}

[[maybe_unused]] const bool elaborated_beside_the_engine = sim::Engine::add_to_top(&elaborate_selected);

// `c`'s co-simulated model from the cache (built first when missing),
// loaded into the process for the elaboration to come.
void select_on_demand(const Config& c) {
  const CachedModel m = build_model(c, 0, ModelKind::systemc_rtl);
  const std::string so = m.path + "/model.so";
  void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* f = h ? ::dlsym(h, "vta_rtl_elaborate_cosim") : nullptr;
  if (!f) {
    const char* why = ::dlerror();
    fail(
        "systemc-rtl: the co-simulated RTL model of config '{}' ({}) in {} does not load ({}); remove it with `vta "
        "rtl clean`",
        c.name, c.source, m.path, why ? why : "no vta_rtl_elaborate_cosim");
  }
  Selected& s = selected();
  s.elaborate = reinterpret_cast<void (*)()>(f);
  s.package = isa::generate_sv_package(c);
  s.design = fmt::format("config '{}' ({}), built on demand", c.name, c.source);
}

// One backend's handle on the process's co-simulated core.
class CoSimCore final : public Core {
 public:
  CoSimCore() : top_(CoSimTop::instance()), owner_(top_.attach()) {}
  sim::RunRecord run(const RunInputs& in) override { return top_.run(owner_, in); }
  std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) override {
    return top_.read_element(owner_, mem, index, bytes);
  }

 private:
  CoSimTop& top_;
  uint64_t owner_;
};

}  // namespace

std::unique_ptr<Core> make_cosim_core(const Config& c, const BackendOptions& o) {
  if (!o.wave_path.empty())
    fail(
        "systemc-rtl: --wave needs the verilator backend (the co-simulated core is built without tracing; "
        "-b verilator runs the same core with the same cycles)");
  Selected& s = selected();
  const PackageDiff d = compare_package(c, s.package);
  if (d.count != 0) {
    if (s.elaborated)
      fail(
          "systemc-rtl: this process's SystemC top level was elaborated with the co-simulated core of {}, and config "
          "'{}' ({}) differs from it in {} parameter{}, first: its {}. SystemC elaborates once per process: run this "
          "design's systemc-rtl backend in a process of its own (a separate `vta run`) before any other SystemC "
          "backend, or use -b verilator.",
          s.design, c.name, c.source, d.count, d.count == 1 ? "" : "s", d.first);
    if (!on_demand_enabled())
      fail(
          "systemc-rtl: the co-simulated RTL core is built for preset {} only, and config '{}' ({}) differs from it in "
          "{} parameter{}, first: its {}. Models on demand are off (VTA_RTL_ON_DEMAND=off): unset it to build this "
          "config's co-simulated model into the cache, or use -b verilator.",
          kCoSimPreset, c.name, c.source, d.count, d.count == 1 ? "" : "s", d.first);
    select_on_demand(c);
  }
  return std::make_unique<CoSimCore>();
}

CoSimTop::CoSimTop(sc_core::sc_module_name name) : sc_module(name), half_period_(0.5, sc_core::SC_NS) {
  Verilated::threadContextp(&context_);
  the_top = this;
  SC_HAS_PROCESS(CoSimTop);
  SC_THREAD(thread);
}

CoSimTop& CoSimTop::instance() {
  sim::Engine::instance();
  if (!the_top) fail("systemc-rtl: the co-simulated core is not part of this process's SystemC top level");
  return *the_top;
}

void CoSimTop::thread() {
  while (true) {
    wait(job_ev_);
    try {
      (*job_)();
    } catch (...) {  // rethrown by call(), outside the simulation: SystemC never sees it
      error_ = std::current_exception();
    }
    job_ = nullptr;
  }
}

void CoSimTop::call(const std::function<void()>& job) {
  job_ = &job;
  error_ = nullptr;
  Verilated::threadContextp(&context_);
  job_ev_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();  // the thread clocks the core until the job is done; then nothing is left to simulate
  restore_main_stack_bounds();
  if (job_) fail("systemc-rtl: the simulation stopped before the co-simulated core's job was done");
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CoSimTop::check_owner(uint64_t owner) const {
  if (owner != owner_)
    fail(
        "systemc-rtl: a newer systemc-rtl backend has taken over the co-simulated core (a process has one, in its one "
        "SystemC elaboration): use one systemc-rtl backend at a time");
}

uint64_t CoSimTop::attach() {
  ++owner_;
  call([this] { power_on(); });
  return owner_;
}

sim::RunRecord CoSimTop::run(uint64_t owner, const RunInputs& in) {
  check_owner(owner);
  sim::RunRecord out;
  call([&] { out = run_core(in); });
  return out;
}

std::vector<uint8_t> CoSimTop::read_element(uint64_t owner, int mem, uint32_t index, size_t bytes) {
  check_owner(owner);
  std::vector<uint8_t> out;
  call([&] { out = read_core(mem, index, bytes); });
  return out;
}

}  // namespace vta::rtl
