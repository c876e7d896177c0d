#pragma once
// The verilated C++ class V of one vta_core behind the Core interface: the
// shared Driver (verilator_driver.h) clocks it by evaluating it directly,
// and a run may write a bounded VCD waveform. Included only by the
// generated per-model translation units (verilator_model.cpp.in).
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <memory>

#include "verilator_driver.h"

namespace vta::rtl {

template <class V>
class Harness final : public Core {
 public:
  Harness() : ctx_(traced_context()), top_(std::make_unique<V>(ctx_.get(), "vta_core")), drive_(*top_, *this) {
    drive_.power_on();
  }
  ~Harness() override { top_->final(); }

  sim::RunRecord run(const RunInputs& in) override {
    Wave wave(*this, in);
    return drive_.run(in, [&wave](uint64_t c, unsigned phase) { wave.dump(c, phase); });
  }

  std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) override {
    return drive_.read_element(mem, index, bytes);
  }

  /// The Driver's settle step: evaluate the model with its new inputs.
  void settle() { top_->eval(); }

 private:
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

  static std::unique_ptr<VerilatedContext> traced_context() {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->traceEverOn(true);  // lets a run open a waveform; the model runs no slower
    return ctx;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
  Driver<V, Harness> drive_;
};

}  // namespace vta::rtl
