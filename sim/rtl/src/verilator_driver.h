#pragma once
// Drives one verilated vta_core cycle by cycle, per the port contract of
// sim/rtl/README.md. Shared by the two ways the core is clocked: the
// `verilator` backend evaluates the verilated C++ class directly
// (verilator_harness.h); the `systemc-rtl` co-simulation drives sc_signals
// bound to the SystemC-wrapped core from a SystemC thread (cosim.h).
//
// Driver<P, S>: P holds the core's ports under their Verilog names (the
// verilated C++ class itself, or a struct of sc_signals); PortIO<T> says how
// one port is read and written. S::settle() lets the model settle after its
// inputs changed (eval(), or half a clock period of SystemC time).
//
// One cycle c, after the edge that started it:
//   1. from the registered outputs (read/write requests), the memory model
//      computes the inputs of cycle c (arready, the read beat, bvalid);
//   2. clk falls and the model settles with those inputs: the dbg_* ports
//      now show cycle c completely (a retirement may follow an input
//      combinationally, e.g. the STORE that completes on bvalid);
//   3. the recorder reads dbg_* (and the checker runs on each issue);
//   4. clk rises: the edge that ends cycle c.
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "verilator_core.h"
#include "verilator_memory.h"
#include "verilator_record.h"
#include "vta/isa/error.h"

namespace vta::rtl {

/// How the driver reads and writes a port of type T. This primary template
/// serves the verilated C++ class, whose ports are plain members: CData ..
/// QData, or VlWide<N> (32-bit words, least significant first); cosim.h
/// specialises it for sc_signals.
template <class T>
struct PortIO {
  static_assert(std::is_trivially_copyable_v<T>, "a port type without a PortIO specialisation");
  static constexpr size_t bytes = sizeof(T);
  static T get(const T& p) { return p; }
  template <class U>
  static void set(T& p, U v) {
    p = static_cast<T>(v);
  }
  static uint32_t word(const T& p, unsigned i) { return p[i]; }
  static void to_bytes(const T& p, uint8_t* out, size_t n) { std::memcpy(out, static_cast<const void*>(&p), n); }
  static void from_bytes(T& p, const uint8_t* in, size_t n) { std::memcpy(static_cast<void*>(&p), in, n); }
};

// The driver's access to one port, whatever holds it.
template <class T>
using IO = PortIO<std::remove_cvref_t<T>>;
template <class T>
auto get(const T& p) {
  return IO<T>::get(p);
}
template <class T, class U>
void set(T& p, U v) {
  IO<T>::set(p, v);
}
template <class T>
uint32_t word(const T& p, unsigned i) {
  return IO<T>::word(p, i);
}
template <class T>
constexpr size_t port_bytes(const T&) {
  return IO<T>::bytes;
}
template <class T>
void to_bytes(const T& p, uint8_t* out, size_t n) {
  IO<T>::to_bytes(p, out, n);
}
template <class T>
void from_bytes(T& p, const uint8_t* in, size_t n) {
  IO<T>::from_bytes(p, in, n);
}

template <class P, class S>
class Driver {
 public:
  Driver(P& ports, S& sim) : t_(ports), sim_(sim) {}

  /// The reset of a new model: two cycles of rst, then an idle one.
  void power_on() {
    idle_inputs();
    set(t_.rst, 1);
    edge();
    edge();
    set(t_.rst, 0);
    edge();
  }

  /// Core::run. `sample(c, phase)` is called on the settled model of each
  /// cycle: phase 0 with clk low and the inputs of cycle c, 1 after its edge.
  template <class Sample>
  sim::RunRecord run(const RunInputs& in, Sample&& sample) {
    const Config& cfg = *in.config;
    const auto n = static_cast<uint32_t>(in.program->insns.size());
    const size_t bus = in.timing->bus_bytes();
    if (bus > port_bytes(t_.rdata) || bus > kMaxBus)
      fail("verilator: {}-byte beats do not fit the model's {}-byte data ports", bus, port_bytes(t_.rdata));
    Recorder rec(in);
    MemoryPort port(cfg, *in.timing, *in.dram, in.record_bursts ? &rec.record().bursts : nullptr);

    // Reset the control (buffers keep their contents), then the start pulse.
    idle_inputs();
    set(t_.rst, 1);
    edge();
    set(t_.rst, 0);
    set(t_.start, 1);
    set(t_.insn_addr, in.insn_addr);
    set(t_.insn_count, n);
    set(t_.cfg_cmd_depth, cfg.queues.command_depth);
    set(t_.cfg_token_depth, cfg.queues.token_depth);
    set(t_.cfg_max_burst, cfg.memory.max_burst);
    set(t_.cfg_ii_imm, cfg.alu.ii_imm);
    set(t_.cfg_ii_vector, cfg.alu.ii_vector);
    set(t_.cfg_round_robin, in.timing->round_robin());
    edge();
    set(t_.start, 0);

    std::array<uint8_t, kMaxBus> data{}, strobe{};
    for (uint64_t c = 0;; ++c) {
      // 1. Memory inputs of cycle c.
      bool granted = false;
      if (get(t_.arvalid) && port.can_grant(c)) {
        const auto id = static_cast<unsigned>(get(t_.arid));
        if (id > 2) rec.fail_rtl(c, fmt::format("arid {}", id));
        granted = true;
        port.grant(c, id, get(t_.araddr), get(t_.arbeats));
        rec.traffic(c);
      }
      set(t_.arready, granted);
      unsigned id = 0;
      bool last = false;
      const bool beat = port.beat(c, id, last, data.data());
      set(t_.rvalid, beat);
      if (beat) {
        set(t_.rid, id);
        set(t_.rlast, last);
        from_bytes(t_.rdata, data.data(), bus);
        rec.traffic(c);
      }
      if (get(t_.wvalid)) {
        to_bytes(t_.wdata, data.data(), bus);
        to_bytes(t_.wstrb, strobe.data(), (bus + 7) / 8);
        port.write(c, get(t_.awvalid), get(t_.awaddr), get(t_.awbeats), data.data(), strobe.data(), get(t_.wlast));
        if (!port.protocol_error().empty()) rec.fail_rtl(c, port.protocol_error());
        rec.traffic(c);
      }
      set(t_.bvalid, port.ack(c));
      // 2. Settle.
      set(t_.clk, 0);
      sim_.settle();
      sample(c, 0u);
      // 3. Observe.
      if (get(t_.dbg_dispatch)) rec.dispatch(c, get(t_.dbg_dispatch_idx));
      const auto issue = static_cast<unsigned>(get(t_.dbg_issue));
      if (issue)
        for (unsigned m = 0; m < 3; ++m)
          if (issue >> m & 1) rec.issue(c, m, word(t_.dbg_issue_idx, m));
      if (const auto retire = static_cast<unsigned>(get(t_.dbg_retire)))
        for (unsigned m = 0; m < 3; ++m)
          if (retire >> m & 1) rec.retire(c, m);
      if (get(t_.dbg_retire_alu)) rec.retire_alu(c);
      const bool wait_mem = get(t_.dbg_fetch_wait_mem);
      rec.count_fetch(wait_mem, get(t_.dbg_fetch_wait_queue));
      if (rec.finished()) {
        rise(sample, c);
        break;
      }
      const bool quiet = !(get(t_.dbg_busy) || issue || get(t_.dbg_dispatch) || wait_mem);
      if (rec.stuck(c, quiet)) fail_stuck(rec, c);
      // 4. The edge.
      rise(sample, c);
    }
    // Let the last cycle's writes settle; the core is idle from here on.
    idle_inputs();
    for (int k = 0; k < 4; ++k) edge();
    sim::RunRecord r = rec.take(port.read_beats(), port.write_beats());
    r.dram = port.dram_stats_at(r.cycles);
    return r;
  }

  /// Core::read_element, through the debug read port.
  std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) {
    if (bytes > port_bytes(t_.dbg_rd_data)) fail("verilator: {}-byte elements exceed the debug read port", bytes);
    set(t_.dbg_rd_en, 1);
    set(t_.dbg_rd_mem, mem);
    set(t_.dbg_rd_addr, index);
    edge();
    set(t_.dbg_rd_en, 0);
    std::vector<uint8_t> out(bytes);
    to_bytes(t_.dbg_rd_data, out.data(), bytes);
    return out;
  }

 private:
  static constexpr size_t kMaxBus = 512;  // bytes: memory.bus_bits is at most 4096

  template <class Sample>
  void rise(Sample& sample, uint64_t c) {
    set(t_.clk, 1);
    sim_.settle();
    sample(c, 1u);
  }
  void edge() {
    set(t_.clk, 0);
    sim_.settle();
    set(t_.clk, 1);
    sim_.settle();
  }
  void idle_inputs() {
    set(t_.start, 0);
    set(t_.arready, 0);
    set(t_.rvalid, 0);
    set(t_.rlast, 0);
    set(t_.bvalid, 0);
    set(t_.dbg_rd_en, 0);
  }
  [[noreturn]] void fail_stuck(const Recorder& rec, uint64_t c) {
    const auto valid = static_cast<unsigned>(get(t_.dbg_head_valid));
    std::array<int64_t, 3> heads{};
    for (unsigned m = 0; m < 3; ++m) heads[m] = (valid >> m & 1) ? int64_t{word(t_.dbg_head_idx, m)} : -1;
    model::TokenCounts tokens{};
    for (unsigned q = 0; q < 4; ++q) tokens[q] = word(t_.dbg_tokens, q);
    rec.fail_stuck(c, heads, tokens, get(t_.dbg_fetched), get(t_.dbg_busy));
  }

  P& t_;
  S& sim_;
};

}  // namespace vta::rtl
