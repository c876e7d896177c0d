#pragma once
// The memory the verilated core is attached to: docs/timing.md rules 12-13
// and the write channel, as sim/rtl/README.md states them for the ports.
//
//  - Read grants: in cycle c a request is granted when fewer than
//    memory.outstanding_reads granted bursts still have a beat to deliver at
//    c. A burst of n beats granted at c delivers beats in [ds, ds + n) with
//    ds = max(c + read_latency, r_free); r_free = ds + n.
//  - Writes: each W beat goes to DRAM at once (with its byte strobes); the
//    burst is acknowledged (bvalid) in cycle (cycle of wlast) + write_latency.
//
// With a DRAM preset (memory.dram other than fixed) the grant limit, the
// beat cycles and the acknowledgements come from sim::DramPort instead, the
// same code as the SystemC model's port thread; the data moves as above.
//
// The harness calls, for each cycle c in order: grant() if arvalid and
// can_grant(c); beat(c) for the read channel; write() for a W beat; ack(c).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "vta/model/dram.h"
#include "vta/sim/dram_port.h"
#include "vta/sim/run_record.h"
#include "vta/sim/timing.h"

namespace vta::rtl {

class MemoryPort {
 public:
  /// `bursts`: where burst records go (nullptr: not recorded).
  MemoryPort(const Config& c, const sim::Timing& t, Dram& dram, std::vector<sim::BurstRecord>* bursts);

  bool can_grant(uint64_t c) {
    if (dram_port_) return dram_port_->can_grant(c);
    while (!inflight_.empty() && inflight_.front() <= c) inflight_.pop_front();
    return inflight_.size() < outstanding_;
  }
  /// Grants the burst requested by client `id` (0 fetch, 1 load, 2 compute).
  void grant(uint64_t c, unsigned id, uint64_t addr, uint32_t beats);

  /// The read beat of cycle c: false when none; else its client, whether it
  /// is its burst's last, and its bytes in `data` (bus_bytes; zero outside
  /// every DRAM allocation).
  bool beat(uint64_t c, unsigned& id, bool& last, uint8_t* data);

  /// A W beat: `first` starts a burst of `beats` at `addr`; `strobe` holds
  /// the byte enables, bit k of byte k/8 for data byte k.
  void write(uint64_t c, bool first, uint64_t addr, uint32_t beats, const uint8_t* data, const uint8_t* strobe,
             bool last);
  /// bvalid for cycle c.
  bool ack(uint64_t c);

  /// With a DRAM preset, its counters up to cycle `c` (DramPort::stats_at).
  std::optional<sim::dram::Stats> dram_stats_at(uint64_t c) {
    if (!dram_port_) return std::nullopt;
    return dram_port_->stats_at(c);
  }
  uint64_t read_beats() const { return read_beats_; }
  uint64_t write_beats() const { return write_beats_; }
  /// The first write-channel protocol violation seen (wlast not on the
  /// burst's last beat), or "".
  const std::string& protocol_error() const { return error_; }
  /// True while a granted burst has beats left or a write is unacknowledged.
  bool busy() const { return !reads_.empty() || !acks_.empty(); }

 private:
  struct Burst {
    unsigned id;
    uint64_t addr, data_start;  // data_start: fixed model only
    uint32_t beats, next = 0;
    uint64_t grant = 0, dram_id = 0;  // DRAM model: grant cycle and DramPort's id
  };
  // The cycle of beat `next` of `b`, or nullopt when not decided by cycle c.
  std::optional<uint64_t> beat_cycle(uint64_t c, const Burst& b);
  std::optional<sim::DramPort> dram_port_;  // engaged with a DRAM preset
  Dram& dram_;
  std::vector<sim::BurstRecord>* bursts_;
  uint64_t bus_bytes_, read_latency_, write_latency_, outstanding_;
  std::deque<uint64_t> inflight_;  // end (last beat + 1) of each granted burst
  std::deque<Burst> reads_;        // granted bursts with beats left, in grant order
  uint64_t r_free_ = 0;
  // The write burst in progress.
  uint64_t w_addr_ = 0, w_start_ = 0;
  uint32_t w_beats_ = 0, w_next_ = 0;
  std::deque<uint64_t> acks_;  // bvalid cycles (fixed model) or DramPort write ids, in burst order
  uint64_t read_beats_ = 0, write_beats_ = 0;
  std::string error_;
};

}  // namespace vta::rtl
