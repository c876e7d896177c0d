#include "vta/sim/dram/axi_port.h"

#include <algorithm>

#include "vta/isa/error.h"

namespace vta::sim::dram {

AxiPort::AxiPort(const Spec& s, const Options& o, Freq core, uint32_t bus_bytes)
    : port_(s, o, core), bus_bytes_(bus_bytes), burst_bytes_(s.burst_bytes()) {
  if (bus_bytes == 0) fail("memory.bus_bits: a port of 0 bytes per beat");
}

uint64_t AxiPort::add(uint64_t c, uint64_t addr, uint32_t beats, bool write) {
  if (beats == 0) fail("dram port: a burst of 0 beats at 0x{:x}", addr);
  const uint64_t bytes = uint64_t{beats} * bus_bytes_;
  const uint64_t id = port_.submit(c, write, addr, static_cast<uint32_t>(bytes));
  const uint32_t n = bursts_of(addr, 0, bytes, burst_bytes_).last + 1;
  reqs_.emplace(id, Req{addr, beats, write, std::vector<uint64_t>(n, 0), n, {}, 0});
  if (!write) reads_.push_back(id);
  return id;
}

uint64_t AxiPort::read(uint64_t c, uint64_t addr, uint32_t beats) { return add(c, addr, beats, false); }
uint64_t AxiPort::write(uint64_t c, uint64_t addr, uint32_t beats) { return add(c, addr, beats, true); }

void AxiPort::advance(uint64_t c) {
  port_.advance(c);
  buf_.clear();
  port_.take_done(buf_);
  for (const BurstDone& d : buf_) {
    auto it = reqs_.find(d.request);
    if (it == reqs_.end()) continue;  // retired before it was done
    Req& r = it->second;
    r.burst_done[d.burst] = d.done;
    --r.unknown;
    if (r.write) r.done = std::max(r.done, d.done);
  }
  deliver();
}

void AxiPort::deliver() {
  while (!reads_.empty()) {
    const auto it = reqs_.find(reads_.front());
    if (it == reqs_.end()) {  // retired early: its beats leave the channel free
      reads_.pop_front();
      continue;
    }
    Req& r = it->second;
    while (r.beat_at.size() < r.beats) {
      const uint64_t k = r.beat_at.size();
      const BurstSpan span = bursts_of(r.addr, k * bus_bytes_, bus_bytes_, burst_bytes_);
      uint64_t ready = 0;
      for (uint32_t b = span.first; b <= span.last; ++b) {
        if (r.burst_done[b] == 0) return;  // not known yet: neither is anything after it
        ready = std::max(ready, r.burst_done[b]);
      }
      const uint64_t at = any_beat_ ? std::max(ready, last_beat_ + 1) : ready;
      r.beat_at.push_back(at);
      last_beat_ = at;
      any_beat_ = true;
    }
    r.done = r.beat_at.back();
    reads_.pop_front();
  }
}

std::optional<uint64_t> AxiPort::read_beat(uint64_t id, uint32_t k) const {
  const auto it = reqs_.find(id);
  if (it == reqs_.end() || it->second.write || k >= it->second.beat_at.size()) return std::nullopt;
  return it->second.beat_at[k];
}

std::optional<uint64_t> AxiPort::write_done(uint64_t id) const {
  const auto it = reqs_.find(id);
  if (it == reqs_.end() || !it->second.write || it->second.unknown != 0) return std::nullopt;
  return it->second.done;
}

}  // namespace vta::sim::dram
