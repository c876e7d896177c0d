#pragma once
// The golden functional model: bit-exact, untimed, fast. Load, compute and
// store run as three in-order instruction streams fed by fetch through
// bounded command queues and synchronised only by the four dependency-token
// queues, so a program with wrong tokens behaves as on hardware and one that
// can never finish is reported as a deadlock (module, instruction, queue).
//
// Scheduling: at each step the ready instruction with the lowest program
// index runs (ready = dispatched by fetch, its pops available, room for its
// pushes). For a correctly synchronised program every legal order gives the
// same result; this one equals upstream's sequential simulator where tokens
// allow it. A program that is not correctly synchronised is reported by the
// race checker (race.h), which runs unless BackendOptions::skip_race_check.
#include "vta/model/backend.h"
#include "vta/model/datapath.h"
#include "vta/model/program.h"

namespace vta::model {

class GoldenBackend : public Backend {
 public:
  /// Rejects timing_only, trace_path and wave_path: the golden model is untimed.
  GoldenBackend(const Config& c, const BackendOptions& options);
  std::string name() const override { return "golden"; }
  void run(const Launch& launch) override;
  std::vector<uint8_t> read_sram(isa::MemId mem, uint32_t index, uint32_t count) const override {
    return datapath_.read_sram(mem, index, count);
  }
  RunStats stats() const override { return stats_; }

 private:
  Datapath datapath_;
  bool race_check_;
  uint64_t max_steps_;
  RunStats stats_;
};

/// Raw counters of one run or region; published as named stats by publish().
struct Counters {
  uint64_t insns[5] = {};  // by opcode
  uint64_t loads_by_mem[6] = {};
  uint64_t dram_read_bytes[6] = {};  // by memory type
  uint64_t dram_write_bytes = 0;
  uint64_t gemm_uops = 0, alu_uops = 0;
  uint64_t macs = 0;
  uint64_t tokens_pushed[4] = {};
  // SRAM traffic by buffer (UOP, WGT, INP, ACC, OUT; indexed by MemId), in
  // bytes through the buffer's ports, and ALU lane operations: the activity
  // an energy estimate needs (estimate::activity_of reads them back).
  uint64_t sram_read_bytes[5] = {}, sram_write_bytes[5] = {};
  uint64_t alu_lane_ops = 0;
  void add(const Config& c, const isa::Insn& insn);
  void publish(Stats& s) const;
};

}  // namespace vta::model
