#pragma once
// Drives one verilated vta_core (class V) from C++, cycle by cycle, per the
// port contract of sim/rtl/README.md. Included only by the generated
// per-model translation units (verilator_model.cpp.in).
//
// One cycle c, after the edge that started it:
//   1. from the registered outputs (read/write requests), the memory model
//      computes the inputs of cycle c (arready, the read beat, bvalid);
//   2. clk falls and the model settles with those inputs: the dbg_* ports
//      now show cycle c completely (a retirement may follow an input
//      combinationally, e.g. the STORE that completes on bvalid);
//   3. the recorder reads dbg_* (and the checker runs on each issue);
//   4. clk rises: the edge that ends cycle c.
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <array>
#include <cstring>
#include <memory>

#include "verilator_core.h"
#include "verilator_memory.h"
#include "verilator_record.h"
#include "vta/isa/error.h"

namespace vta::rtl {

template <class V>
class Harness final : public Core {
 public:
  Harness() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->traceEverOn(true);  // lets a run open a waveform; the model runs no slower
    top_ = std::make_unique<V>(ctx_.get(), "vta_core");
    idle_inputs();
    top_->rst = 1;
    edge();
    edge();
    top_->rst = 0;
    edge();
  }
  ~Harness() override { top_->final(); }

  sim::RunRecord run(const RunInputs& in) override {
    V& t = *top_;
    const Config& cfg = *in.config;
    const auto n = static_cast<uint32_t>(in.program->insns.size());
    const size_t bus = in.timing->bus_bytes();
    if (bus > sizeof(t.rdata) || bus > kMaxBus)
      fail("verilator: {}-byte beats do not fit the model's {}-byte data ports", bus, sizeof(t.rdata));
    Recorder rec(in);
    MemoryPort port(*in.timing, *in.dram, in.record_bursts ? &rec.record().bursts : nullptr);
    Wave wave(*this, in);

    // Reset the control (buffers keep their contents), then the start pulse.
    idle_inputs();
    t.rst = 1;
    edge();
    t.rst = 0;
    t.start = 1;
    t.insn_addr = in.insn_addr;
    t.insn_count = n;
    t.cfg_cmd_depth = static_cast<uint32_t>(cfg.queues.command_depth);
    t.cfg_token_depth = static_cast<uint32_t>(cfg.queues.token_depth);
    t.cfg_max_burst = static_cast<uint16_t>(cfg.memory.max_burst);
    t.cfg_ii_imm = static_cast<uint8_t>(cfg.alu.ii_imm);
    t.cfg_ii_vector = static_cast<uint8_t>(cfg.alu.ii_vector);
    t.cfg_round_robin = in.timing->round_robin();
    edge();
    t.start = 0;

    std::array<uint8_t, kMaxBus> data{}, strobe{};
    for (uint64_t c = 0;; ++c) {
      // 1. Memory inputs of cycle c.
      t.arready = 0;
      if (t.arvalid && port.can_grant(c)) {
        if (t.arid > 2) rec.fail_rtl(c, fmt::format("arid {}", static_cast<unsigned>(t.arid)));
        t.arready = 1;
        port.grant(c, t.arid, t.araddr, t.arbeats);
        rec.traffic(c);
      }
      unsigned id = 0;
      bool last = false;
      t.rvalid = port.beat(c, id, last, data.data());
      if (t.rvalid) {
        t.rid = static_cast<uint8_t>(id);
        t.rlast = last;
        std::memcpy(static_cast<void*>(&t.rdata), data.data(), bus);
        rec.traffic(c);
      }
      if (t.wvalid) {
        std::memcpy(data.data(), static_cast<const void*>(&t.wdata), bus);
        std::memcpy(strobe.data(), static_cast<const void*>(&t.wstrb), (bus + 7) / 8);
        port.write(c, t.awvalid, t.awaddr, t.awbeats, data.data(), strobe.data(), t.wlast);
        if (!port.protocol_error().empty()) rec.fail_rtl(c, port.protocol_error());
        rec.traffic(c);
      }
      t.bvalid = port.ack(c);
      // 2. Settle.
      t.clk = 0;
      t.eval();
      wave.dump(c, 0);
      // 3. Observe.
      if (t.dbg_dispatch) rec.dispatch(c, t.dbg_dispatch_idx);
      if (const unsigned issue = t.dbg_issue)
        for (unsigned m = 0; m < 3; ++m)
          if (issue >> m & 1) rec.issue(c, m, t.dbg_issue_idx[m]);
      if (const unsigned retire = t.dbg_retire)
        for (unsigned m = 0; m < 3; ++m)
          if (retire >> m & 1) rec.retire(c, m);
      rec.count_fetch(t.dbg_fetch_wait_mem, t.dbg_fetch_wait_queue);
      if (rec.finished()) {
        rise(wave, c);
        break;
      }
      const bool quiet = !(t.dbg_busy | t.dbg_issue | t.dbg_dispatch | t.dbg_fetch_wait_mem);
      if (rec.stuck(c, quiet)) fail_stuck(rec, c);
      // 4. The edge.
      rise(wave, c);
    }
    // Let the last cycle's writes settle; the core is idle from here on.
    idle_inputs();
    for (int k = 0; k < 4; ++k) edge();
    return rec.take(port.read_beats(), port.write_beats());
  }

  std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) override {
    V& t = *top_;
    if (bytes > sizeof(t.dbg_rd_data)) fail("verilator: {}-byte elements exceed the debug read port", bytes);
    t.dbg_rd_en = 1;
    t.dbg_rd_mem = static_cast<uint8_t>(mem);
    t.dbg_rd_addr = index;
    edge();
    t.dbg_rd_en = 0;
    std::vector<uint8_t> out(bytes);
    std::memcpy(out.data(), static_cast<const void*>(&t.dbg_rd_data), bytes);
    return out;
  }

 private:
  static constexpr size_t kMaxBus = 512;  // bytes: memory.bus_bits is at most 4096

  // The optional waveform of one run: cycles [from, from + cycles).
  class Wave {
   public:
    Wave(Harness& h, const RunInputs& in) : from_(in.wave_from), to_(in.wave_from + in.wave_cycles) {
      if (in.wave_path.empty() || in.wave_cycles == 0) return;
      vcd_ = std::make_unique<VerilatedVcdC>();
      h.top_->trace(vcd_.get(), 99);
      vcd_->open(in.wave_path.c_str());
      if (!vcd_->isOpen()) fail("--wave {}: cannot write", in.wave_path);
    }
    ~Wave() {
      if (vcd_) vcd_->close();
    }
    // Phase 0: clk low with the inputs of cycle c; phase 1: after its edge.
    void dump(uint64_t c, unsigned phase) {
      if (vcd_ && c >= from_ && c < to_) vcd_->dump(2 * c + phase);
    }

   private:
    uint64_t from_, to_;
    std::unique_ptr<VerilatedVcdC> vcd_;
  };

  void rise(Wave& wave, uint64_t c) {
    top_->clk = 1;
    top_->eval();
    wave.dump(c, 1);
  }
  void edge() {
    top_->clk = 0;
    top_->eval();
    top_->clk = 1;
    top_->eval();
  }
  void idle_inputs() {
    V& t = *top_;
    t.start = 0;
    t.arready = 0;
    t.rvalid = 0;
    t.rlast = 0;
    t.bvalid = 0;
    t.dbg_rd_en = 0;
  }
  [[noreturn]] void fail_stuck(const Recorder& rec, uint64_t c) {
    const V& t = *top_;
    std::array<int64_t, 3> heads{};
    for (unsigned m = 0; m < 3; ++m) heads[m] = (t.dbg_head_valid >> m & 1) ? int64_t{t.dbg_head_idx[m]} : -1;
    model::TokenCounts tokens{};
    for (unsigned q = 0; q < 4; ++q) tokens[q] = t.dbg_tokens[q];
    rec.fail_stuck(c, heads, tokens, t.dbg_fetched, t.dbg_busy);
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
};

}  // namespace vta::rtl
