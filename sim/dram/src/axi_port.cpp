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
  r.beat_at.clear();
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
  // the request's offset in its first burst (bursts_of()).
  const bool pow2 = std::has_single_bit(burst_bytes_);
  const int shift = std::countr_zero(burst_bytes_);
  const auto burst_of = [&](uint64_t byte) { return pow2 ? byte >> shift : byte / burst_bytes_; };
  while (!reads_.empty()) {
    Req* r = find(reads_.front());
    if (!r) {  // retired early: its beats leave the channel free
      reads_.pop_front();
      continue;
    }
    const uint64_t off = r->addr % burst_bytes_;
    while (r->beat_at.size() < r->beats) {
      const uint64_t lo = off + r->beat_at.size() * bus_bytes_;
      const uint64_t first = burst_of(lo), last = burst_of(lo + bus_bytes_ - 1);
      uint64_t ready = 0;
      for (uint64_t b = first; b <= last; ++b) {
        if (r->burst_done[b] == 0) return;  // not known yet: neither is anything after it
        ready = std::max(ready, r->burst_done[b]);
      }
      const uint64_t at = any_beat_ ? std::max(ready, last_beat_ + 1) : ready;
      r->beat_at.push_back(at);
      last_beat_ = at;
      any_beat_ = true;
    }
    r->done = r->beat_at.back();
    reads_.pop_front();
  }
}

std::optional<uint64_t> AxiPort::read_beat(uint64_t id, uint32_t k) const {
  const Req* r = find(id);
  if (!r || r->write || k >= r->beat_at.size()) return std::nullopt;
  return r->beat_at[k];
}

std::optional<uint64_t> AxiPort::write_done(uint64_t id) const {
  const Req* r = find(id);
  if (!r || !r->write || r->unknown != 0) return std::nullopt;
  return r->done;
}

}  // namespace vta::sim::dram
