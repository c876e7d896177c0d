#pragma once
// The accelerator's memory port on top of the DRAM model, in core cycles:
// what the SystemC model's port thread and the Verilator harness's
// MemoryPort both call with the DRAM model on, so that the beat timing rule
// exists once (docs/timing.md, "DRAM model", "Integration").
//
//  - read(c, addr, beats): an AXI read burst granted at core cycle c becomes
//    one DRAM request of beats x bus bytes. Beat k is available once every
//    DRAM burst holding its bytes is done (CorePort's core cycle); the read
//    data channel carries one beat per cycle, in grant order, so beat k is
//    delivered at max(available, previous delivered beat + 1), the previous
//    beat being this burst's k-1 or the last beat of the burst granted
//    before it.
//  - write(c, addr, beats): a write burst whose last W beat was taken at c
//    becomes one DRAM request at c; it is done (bvalid) when its DRAM bursts
//    are written.
//  - advance(c) then makes known every delivery and completion at or before
//    c. As for CorePort, the answers depend only on the calls to read() and
//    write() (their cycles and order).
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "vta/sim/dram/port.h"

namespace vta::sim::dram {

class AxiPort {
 public:
  /// `bus_bytes`: bytes per beat of the accelerator's port (memory.bus_bits / 8).
  AxiPort(const Spec& s, const Options& o, Freq core, uint32_t bus_bytes);

  uint64_t read(uint64_t c, uint64_t addr, uint32_t beats);
  uint64_t write(uint64_t c, uint64_t addr, uint32_t beats);
  void advance(uint64_t c);

  /// The core cycle read beat k of `id` is delivered; nullopt while unknown.
  std::optional<uint64_t> read_beat(uint64_t id, uint32_t k) const;
  /// No read beat not yet placed is delivered before this core cycle (beats
  /// leave in grant order, one per cycle): the cycle after the last placed
  /// beat, 0 before the first.
  uint64_t next_beat() const { return any_beat_ ? last_beat_ + 1 : 0; }
  /// The core cycle write `id` is done; nullopt while unknown.
  std::optional<uint64_t> write_done(uint64_t id) const;
  /// Forgets a request whose answers the caller has used (a read retired
  /// before its last beat is placed no longer holds the data channel).
  void retire(uint64_t id);

  CorePort& port() { return port_; }

 private:
  struct Req {
    uint64_t addr = 0;
    uint32_t beats = 0;
    bool write = false;
    bool live = false;                 // submitted and not retired
    std::vector<uint64_t> burst_done;  // core cycle per DRAM burst; 0 = not known yet
    uint32_t unknown = 0;              // bursts without a known time
    std::vector<uint64_t> beat_at;     // reads: delivery cycle per beat, of the first `placed`
    uint32_t placed = 0;
    uint64_t done = 0;  // writes: latest burst; reads: last beat
  };
  uint64_t add(uint64_t c, uint64_t addr, uint32_t beats, bool write);
  void deliver();  // extends the known deliveries of the oldest reads
  /// The live request `id`, or nullptr (retired, or never submitted).
  const Req* find(uint64_t id) const {
    if (id < first_ || id - first_ >= count_) return nullptr;
    const Req& r = ring_[id & (ring_.size() - 1)];
    return r.live ? &r : nullptr;
  }
  Req* find(uint64_t id) { return const_cast<Req*>(static_cast<const AxiPort*>(this)->find(id)); }

  CorePort port_;
  uint32_t bus_bytes_, burst_bytes_;
  // Requests first_ .. first_ + count_ - 1 (ids are consecutive), each at
  // ring_[id mod ring size]; retired ones stay until every older one is, and
  // their vectors keep their memory for the requests that reuse the place.
  std::vector<Req> ring_;
  uint64_t first_ = 0, count_ = 0;
  std::deque<uint64_t> reads_;  // reads whose beats are not all placed yet, in grant order
  uint64_t last_beat_ = 0;      // delivery cycle of the last placed beat
  bool any_beat_ = false;
  std::vector<BurstDone> buf_;
};

}  // namespace vta::sim::dram
