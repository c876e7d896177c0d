#pragma once
// The `systemc-rtl` co-simulation: vta_core verilated as a SystemC
// module (for one preset, VTA_RTL_COSIM_PRESET) and instantiated in the
// SystemC model's top level beside the engine. SystemC elaborates once per
// process (sim/systemc/src/engine.h), so the co-simulated core is a
// process-wide singleton like the engine; each backend attaches to it.
//
// CoSim<V> binds an sc_signal to every port of the SystemC-wrapped core V;
// one SystemC thread plays the clock and the memory side with the shared
// Driver (verilator_driver.h: the memory timing model, recorder, checker and
// watchdog of the `verilator` backend), half a clock period per phase (a
// cycle is one SystemC nanosecond, as in the engine). There is no
// free-running clock: the thread clocks the core only while it has a job (a
// run, a debug read, the power-on reset), so sc_start() returns, by
// starvation, when the job is done. Nothing calls sc_stop(): later runs, and
// the engine's own runs, go on in the same process.
#include <systemc.h>
#include <verilated.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <type_traits>
#include <utility>

#include "verilator_driver.h"

namespace vta::rtl {

/// Ports of the SystemC-wrapped core: sc_signals of bool, uint32_t and
/// uint64_t (up to 64 bits) ...
template <class T>
struct PortIO<sc_core::sc_signal<T>> {
  static constexpr size_t bytes = sizeof(T);
  static T get(const sc_core::sc_signal<T>& s) { return s.read(); }
  template <class U>
  static void set(sc_core::sc_signal<T>& s, U v) {
    s.write(static_cast<T>(v));
  }
  static void to_bytes(const sc_core::sc_signal<T>& s, uint8_t* out, size_t n) {
    const T v = s.read();
    std::memcpy(out, &v, n);
  }
  static void from_bytes(sc_core::sc_signal<T>& s, const uint8_t* in, size_t n) {
    T v{};
    std::memcpy(&v, in, n);
    s.write(v);
  }
};

/// ... and sc_bv<W> (wider; 32-bit words, least significant first).
template <int W>
struct PortIO<sc_core::sc_signal<sc_dt::sc_bv<W>>> {
  using Signal = sc_core::sc_signal<sc_dt::sc_bv<W>>;
  static constexpr size_t bytes = W / 8;
  static uint32_t word(const Signal& s, unsigned i) { return s.read().get_word(static_cast<int>(i)); }
  static void to_bytes(const Signal& s, uint8_t* out, size_t n) {
    const sc_dt::sc_bv<W>& v = s.read();
    for (size_t k = 0; k < n; k += 4) {
      const uint32_t w = v.get_word(static_cast<int>(k / 4));
      std::memcpy(out + k, &w, std::min<size_t>(4, n - k));
    }
  }
  static void from_bytes(Signal& s, const uint8_t* in, size_t n) {
    sc_dt::sc_bv<W> v;
    for (size_t k = 0; k < n; k += 4) {
      uint32_t w = 0;
      std::memcpy(&w, in + k, std::min<size_t>(4, n - k));
      v.set_word(static_cast<int>(k / 4), w);
    }
    s.write(v);
  }
};

// Every port of vta_core (sim/rtl/README.md), by name.
// clang-format off
#define VTA_CORE_PORTS(X) \
  X(clk) X(rst) X(start) X(insn_addr) X(insn_count) X(running) X(done) X(cycles) X(cfg_cmd_depth)     \
  X(cfg_token_depth) X(cfg_max_burst) X(cfg_ii_imm) X(cfg_ii_vector) X(cfg_round_robin) X(arvalid)    \
  X(arready) X(araddr) X(arbeats) X(arid) X(rvalid) X(rdata) X(rid) X(rlast) X(awvalid) X(awaddr)     \
  X(awbeats) X(wvalid) X(wdata) X(wstrb) X(wlast) X(bvalid) X(dbg_dispatch) X(dbg_dispatch_idx)       \
  X(dbg_issue) X(dbg_issue_idx) X(dbg_retire) X(dbg_retire_alu) X(dbg_busy) X(dbg_fetch_wait_mem)     \
  X(dbg_fetch_wait_queue) X(dbg_head_valid) X(dbg_head_idx) X(dbg_tokens) X(dbg_fetched) X(dbg_rd_en) \
  X(dbg_rd_mem) X(dbg_rd_addr) X(dbg_rd_data)
// clang-format on

/// The process's co-simulated core: the part that does not depend on the
/// model's class. Its methods are called from outside the simulation; each
/// hands a job to the thread and runs SystemC until the job is done.
class CoSimTop : public sc_core::sc_module {
 public:
  /// The one instance (the first call elaborates SystemC: sim::Engine).
  static CoSimTop& instance();

  /// Hands the core to a new backend: the state of a newly built model
  /// (every register and buffer zero, as a new `verilator` model has), then
  /// its reset. Returns the new owner's token for run() and read_element(),
  /// which throw vta::Error for an older owner.
  uint64_t attach();
  sim::RunRecord run(uint64_t owner, const RunInputs& in);
  std::vector<uint8_t> read_element(uint64_t owner, int mem, uint32_t index, size_t bytes);

  /// The Driver's settle step (in the thread): half a clock period.
  void settle() { wait(half_period_); }

 protected:
  explicit CoSimTop(sc_core::sc_module_name name);
  // The jobs, run in the thread.
  virtual void power_on() = 0;
  virtual sim::RunRecord run_core(const RunInputs& in) = 0;
  virtual std::vector<uint8_t> read_core(int mem, uint32_t index, size_t bytes) = 0;

 private:
  void thread();
  void call(const std::function<void()>& job);  // throws the job's exception
  void check_owner(uint64_t owner) const;

  // The model's own Verilator context, current in its constructor (which,
  // in SystemC mode, takes the thread's current one: possibly a deleted
  // `verilator` model's) and in every job.
  VerilatedContext context_;
  const sc_core::sc_time half_period_;
  sc_core::sc_event job_ev_;
  const std::function<void()>* job_ = nullptr;  // set while a job is pending or running
  std::exception_ptr error_;
  uint64_t owner_ = 0;
};

/// The co-simulation of the SystemC-wrapped model class V.
template <class V>
class CoSim final : public CoSimTop {
 public:
  /// `power_on_state` returns a model to the state of a newly constructed
  /// one (cosim_model.cpp.in).
  CoSim(sc_core::sc_module_name name, void (*power_on_state)(V&))
      : CoSimTop(name), core_("vta_core"), power_on_state_(power_on_state), drive_(ports_, *this) {
#define VTA_BIND(port) core_.port(ports_.port);
    VTA_CORE_PORTS(VTA_BIND)
#undef VTA_BIND
  }

 private:
  // The signal bound to a port of V (an sc_in<T>& or sc_out<T>& member).
  template <class Port>
  using Signal = sc_core::sc_signal<typename std::remove_reference_t<Port>::data_type>;
  struct Ports {
#define VTA_SIGNAL(port) Signal<decltype(std::declval<V&>().port)> port;
    VTA_CORE_PORTS(VTA_SIGNAL)
#undef VTA_SIGNAL
  };

  void power_on() override {
    set(ports_.clk, 0);  // a new model's state has clk low
    settle();
    power_on_state_(core_);
    drive_.power_on();
  }
  sim::RunRecord run_core(const RunInputs& in) override {
    return drive_.run(in, [](uint64_t, unsigned) {});
  }
  std::vector<uint8_t> read_core(int mem, uint32_t index, size_t bytes) override {
    return drive_.read_element(mem, index, bytes);
  }

  Ports ports_;
  V core_;
  void (*power_on_state_)(V&);
  Driver<Ports, CoSimTop> drive_;
};

/// From the generated translation unit of the co-simulated model
/// (cosim_model.cpp.in): its preset, the text of the package it was built
/// from, and the function that constructs its CoSim in the top level.
extern const char* const kCoSimPreset;
extern const char* const kCoSimPackage;
void elaborate_cosim();

}  // namespace vta::rtl
