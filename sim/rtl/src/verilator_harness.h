#pragma once
// The verilated C++ class V of one vta_core behind the Core interface: the
// shared Driver (verilator_driver.h) clocks it by evaluating it directly,
// and a run may write a bounded VCD waveform. Included only by the
// generated per-model translation units (verilator_model.cpp.in).
#include <fcntl.h>
#include <unistd.h>
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "verilator_driver.h"
#include "vta/isa/io_guard.h"

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
    sim::RunRecord r = drive_.run(in, [&wave](uint64_t c, unsigned phase) { wave.dump(c, phase); });
    wave.finish();
    return r;
  }

  std::vector<uint8_t> read_element(int mem, uint32_t index, size_t bytes) override {
    return drive_.read_element(mem, index, bytes);
  }

  /// The Driver's settle step: evaluate the model with its new inputs.
  void settle() { top_->eval(); }

 private:
  // The VCD's file: Verilator's own stops the process on a failed write
  // (and with a full disk waits forever on a lock it holds), so this one
  // keeps the first error and lets the run finish; Wave::finish reports it.
  class CheckedFile final : public VerilatedVcdFile {
   public:
    bool open(const std::string& name) override {
      fd_ = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
      if (fd_ < 0) error_ = errno;
      return fd_ >= 0;
    }
    void close() override {
      if (fd_ >= 0 && ::close(fd_) != 0 && !error_) error_ = errno;
      fd_ = -1;
    }
    ssize_t write(const char* bufp, ssize_t len) override {
      for (ssize_t done = 0; done < len && fd_ >= 0 && !error_;) {
        const ssize_t n = ::write(fd_, bufp + done, static_cast<size_t>(len - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
          error_ = n < 0 ? errno : ENOSPC;
        else
          done += n;
      }
      return len;  // what could not be written is reported once, after the run
    }
    int error() const { return error_; }

   private:
    int fd_ = -1, error_ = 0;
  };

  // The optional waveform of one run: cycles [from, from + cycles).
  class Wave {
   public:
    Wave(Harness& h, const RunInputs& in)
        : from_(in.wave_from), to_(in.wave_from + in.wave_cycles), path_(in.wave_path) {
      if (in.wave_path.empty() || in.wave_cycles == 0) return;
      check_output(path_, "--wave");
      vcd_ = std::make_unique<VerilatedVcdC>(&file_);
      h.top_->trace(vcd_.get(), 99);
      vcd_->open(path_.c_str());
      if (!vcd_->isOpen()) fail("--wave {}: cannot write ({})", path_, std::strerror(file_.error()));
    }
    ~Wave() {
      if (vcd_) vcd_->close();
    }
    // Phase 0: clk low with the inputs of cycle c; phase 1: after its edge.
    void dump(uint64_t c, unsigned phase) {
      if (vcd_ && c >= from_ && c < to_) vcd_->dump(2 * c + phase);
    }
    // Closes the file; an error of any write on the way is the run's error.
    void finish() {
      if (!vcd_) return;
      vcd_->close();
      vcd_.reset();
      if (file_.error()) fail("--wave {}: cannot write ({})", path_, std::strerror(file_.error()));
    }

   private:
    uint64_t from_, to_;
    std::string path_;
    CheckedFile file_;
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
