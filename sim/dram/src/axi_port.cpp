#include "vta/sim/dram/axi_port.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "vta/isa/error.h"

namespace vta::sim::dram {

AxiPort::AxiPort(const Spec& s, const Options& o, Freq core, uint32_t bus_bytes)
    : port_(s, o, core), bus_bytes_(bus_bytes), burst_bytes_(s.burst_bytes()), ring_(64) {
  if (bus_bytes == 0) fail("memory.bus_bits: a port of 0 bytes per beat");
}

uint64_t AxiPort::add(uint64_t c, uint64_t addr, uint32_t beats, bool write) {
  if (beats == 0) fail("dram port: a burst of 0 beats at 0x{:x}", addr);
  const uint64_t bytes = uint64_t{beats} * bus_bytes_;
  const uint64_t id = port_.submit(c, write, addr, static_cast<uint32_t>(bytes));
  if (count_ == 0) first_ = id;
  if (id != first_ + count_) fail("dram port: request id {} after {} requests from {}", id, count_, first_);
  if (count_ == ring_.size()) {  // full: twice the places, each request at its id's
    std::vector<Req> bigger(ring_.size() * 2);
    for (uint64_t i = first_; i < first_ + count_; ++i)
      bigger[i & (bigger.size() - 1)] = std::move(ring_[i & (ring_.size() - 1)]);
    ring_.swap(bigger);
  }
  Req& r = ring_[id & (ring_.size() - 1)];
  const uint32_t n = bursts_of(addr, 0, bytes, burst_bytes_).last + 1;
  r.addr = addr;
  r.beats = beats;
  r.write = write;
  r.live = true;
  r.burst_done.assign(n, 0);
  r.unknown = n;
  if (!write && r.beat_at.size() < beats) r.beat_at.resize(beats);  // grows only: no zeroing per request
  r.placed = 0;
  r.done = 0;
  ++count_;
  if (!write) reads_.push_back(id);
  return id;
}

uint64_t AxiPort::read(uint64_t c, uint64_t addr, uint32_t beats) { return add(c, addr, beats, false); }
uint64_t AxiPort::write(uint64_t c, uint64_t addr, uint32_t beats) { return add(c, addr, beats, true); }

void AxiPort::retire(uint64_t id) {
  Req* r = find(id);
  if (!r) return;
  r->live = false;
  while (count_ != 0 && !ring_[first_ & (ring_.size() - 1)].live) {
    ++first_;
    --count_;
  }
}

void AxiPort::advance(uint64_t c) {
  port_.advance(c);
  buf_.clear();
  port_.take_done(buf_);
  for (const BurstDone& d : buf_) {
    Req* r = find(d.request);
    if (!r) continue;  // retired before it was done
    r->burst_done[d.burst] = d.done;
    --r->unknown;
    if (r->write) r->done = std::max(r->done, d.done);
  }
  deliver();
}

void AxiPort::deliver() {
  // Beat k holds bytes [k x bus, (k + 1) x bus) of the request, so DRAM
  // bursts (off + k x bus) / burst .. (off + (k + 1) x bus - 1) / burst, off
  // the request's offset in its first burst (bursts_of()). Beats that lie in
  // the same single burst are ready together, so after the first of them
  // they leave one per cycle: placed as a group.
  const bool pow2 = std::has_single_bit(burst_bytes_) && std::has_single_bit(bus_bytes_);
  const int shift = std::countr_zero(burst_bytes_), beat_shift = std::countr_zero(bus_bytes_);
  const auto burst_of = [&](uint64_t byte) { return pow2 ? byte >> shift : byte / burst_bytes_; };
  const auto beats_in = [&](uint64_t bytes) { return pow2 ? bytes >> beat_shift : bytes / bus_bytes_; };
  while (!reads_.empty()) {
    Req* r = find(reads_.front());
    if (!r) {  // retired early: its beats leave the channel free
      reads_.pop_front();
      continue;
    }
    const uint64_t off = pow2 ? r->addr & (burst_bytes_ - 1) : r->addr % burst_bytes_;
    while (r->placed < r->beats) {
      const uint64_t k = r->placed;
      const uint64_t lo = off + k * bus_bytes_;
      const uint64_t first = burst_of(lo), last = burst_of(lo + bus_bytes_ - 1);
      uint64_t ready = 0;
      for (uint64_t b = first; b <= last; ++b) {
        if (r->burst_done[b] == 0) return;  // not known yet: neither is anything after it
        ready = std::max(ready, r->burst_done[b]);
      }
      // Beats k .. end - 1 lie in burst `first` alone (or beat k spans several).
      uint64_t end = k + 1;
      if (first == last) end = std::min<uint64_t>(r->beats, beats_in((first + 1) * burst_bytes_ - off));
      const uint64_t at = any_beat_ ? std::max(ready, last_beat_ + 1) : ready;
      for (uint64_t j = k; j < end; ++j) r->beat_at[j] = at + (j - k);
      last_beat_ = at + (end - 1 - k);
      any_beat_ = true;
      r->placed = static_cast<uint32_t>(end);
    }
    r->done = r->beat_at[r->beats - 1];
    reads_.pop_front();
  }
}

std::optional<uint64_t> AxiPort::read_beat(uint64_t id, uint32_t k) const {
  const Req* r = find(id);
  if (!r || r->write || k >= r->placed) return std::nullopt;
  return r->beat_at[k];
}

std::optional<uint64_t> AxiPort::write_done(uint64_t id) const {
  const Req* r = find(id);
  if (!r || !r->write || r->unknown != 0) return std::nullopt;
  return r->done;
}

}  // namespace vta::sim::dram
