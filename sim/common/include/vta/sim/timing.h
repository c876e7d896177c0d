#pragma once
// The timing rules of docs/timing.md as plain functions of the config and an
// instruction. The SystemC model and the RTL harness both use these, so a
// rule exists once; docs/timing.md states them as equations.
#include <cstdint>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/isa/microarch.h"  // kConcurrentAccBanks

namespace vta::model {
struct Uop;
}

namespace vta::sim {

/// DMA clients of the memory port, in fixed-priority order.
enum class Client : uint8_t { FETCH = 0, LOAD = 1, COMPUTE = 2, STORE = 3 };
const char* client_name(Client c);

/// One burst on the memory port: its first byte in DRAM and its beats.
struct Burst {
  uint64_t addr;
  uint32_t beats;
  bool operator==(const Burst&) const = default;
};

class Timing {
 public:
  explicit Timing(const Config& c);

  uint64_t bus_bytes() const { return bus_bytes_; }
  uint64_t read_latency() const { return read_latency_; }
  uint64_t write_latency() const { return write_latency_; }
  uint64_t outstanding_reads() const { return outstanding_; }
  bool round_robin() const { return round_robin_; }

  /// GEMM: pipeline fill plus one uop iteration per cycle.
  uint64_t gemm_cycles(const isa::Insn& insn) const;
  /// ALU: latency plus, per uop iteration, ceil(lanes of ACC / alu lanes)
  /// groups at the immediate or vector initiation interval.
  uint64_t alu_cycles(const isa::Insn& insn) const;
  /// ALU busy cycles without the latency (for the "ALU active" stat).
  uint64_t alu_active_cycles(const isa::Insn& insn) const;
  /// With alu.concurrent: the banks (bit k: bank k) a GEMM or ALU touches:
  /// those its destination range (ACC and OUT) and, for a vector ALU op, its
  /// source range reach; each range is the hull [min uop index, max uop index
  /// + the loops' last offset]. No bank for an instruction of no iteration.
  /// `uops` is the uop buffer as the instruction will read it.
  uint32_t acc_banks(const isa::Insn& insn, const std::vector<model::Uop>& uops) const;
  /// With alu.concurrent: cycles the issue stage spends reading a GEMM's or
  /// ALU's uops to find its banks (one uop a cycle; none for no iteration).
  uint64_t scan_cycles(const isa::Insn& insn) const;
  /// LOAD: cycles spent zero-filling pad elements before the DMA starts.
  uint64_t pad_cycles(const isa::Insn& insn) const;
  /// The bursts that move a LOAD/STORE's rows: each row is split into bursts
  /// of at most max_burst beats. Row y starts at byte (dram_base + y x
  /// x_stride) x E(m), a burst max_burst x B bytes after the previous one of
  /// its row, as the RTL's DMA engines address them.
  std::vector<Burst> bursts(const isa::Insn& insn) const;
  /// The bursts that fetch `count` instructions from byte `addr` on.
  std::vector<Burst> fetch_bursts(uint64_t addr, uint64_t count) const;
  /// Instructions fetched per request (one maximal burst).
  uint64_t insns_per_fetch() const { return insns_per_fetch_; }

 private:
  void split(uint64_t addr, uint64_t bytes, std::vector<Burst>& out) const;
  const Config& cfg_;
  uint64_t bus_bytes_, max_burst_, read_latency_, write_latency_, outstanding_, insns_per_fetch_;
  uint64_t alu_groups_;
  bool round_robin_;
};

}  // namespace vta::sim
