#include "verilator_memory.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "vta/sim/dram/config.h"

namespace vta::rtl {

MemoryPort::MemoryPort(const Config& c, const sim::Timing& t, Dram& dram, std::vector<sim::BurstRecord>* bursts)
    : dram_(dram),
      bursts_(bursts),
      bus_bytes_(t.bus_bytes()),
      read_latency_(t.read_latency()),
      write_latency_(t.write_latency()),
      outstanding_(t.outstanding_reads()) {
  if (sim::dram::enabled(c)) dram_port_.emplace(c, t);
}

void MemoryPort::grant(uint64_t c, unsigned id, uint64_t addr, uint32_t beats) {
  if (dram_port_) {
    Burst b{id, addr, 0, beats};
    b.grant = c;
    b.dram_id = dram_port_->read(c, addr, beats);
    reads_.push_back(b);
    return;
  }
  const uint64_t ds = std::max(c + read_latency_, r_free_);
  r_free_ = ds + beats;
  inflight_.push_back(r_free_);
  reads_.push_back(Burst{id, addr, ds, beats});
  if (bursts_) bursts_->push_back({static_cast<sim::Client>(id), false, c, ds, r_free_});
}

std::optional<uint64_t> MemoryPort::beat_cycle(uint64_t c, const Burst& b) {
  if (dram_port_) return dram_port_->beat(c, b.dram_id, b.next);
  return b.data_start + b.next;
}

bool MemoryPort::beat(uint64_t c, unsigned& id, bool& last, uint8_t* data) {
  if (reads_.empty()) return false;
  Burst& b = reads_.front();
  const auto at = beat_cycle(c, b);
  if (!at || *at != c) return false;
  if (dram_port_ && b.next == 0) b.data_start = c;
  const uint64_t addr = b.addr + b.next * bus_bytes_;
  if (const uint8_t* p = dram_.find(addr, bus_bytes_)) {
    std::memcpy(data, p, bus_bytes_);
  } else {  // a partial beat at the end of an allocation, or no allocation at all
    for (uint64_t k = 0; k < bus_bytes_; ++k) {
      const uint8_t* q = dram_.find(addr + k, 1);
      data[k] = q ? *q : 0;
    }
  }
  id = b.id;
  last = ++b.next == b.beats;
  if (last) {
    if (dram_port_ && bursts_)
      bursts_->push_back({static_cast<sim::Client>(b.id), false, b.grant, b.data_start, c + 1});
    reads_.pop_front();
  }
  ++read_beats_;
  return true;
}

void MemoryPort::write(uint64_t c, bool first, uint64_t addr, uint32_t beats, const uint8_t* data,
                       const uint8_t* strobe, bool last) {
  if (first) {
    w_addr_ = addr;
    w_beats_ = beats;
    w_next_ = 0;
    w_start_ = c;
  }
  const uint64_t at = w_addr_ + w_next_ * bus_bytes_;
  uint8_t* whole = dram_.find(at, bus_bytes_);
  for (uint64_t k = 0; k < bus_bytes_; ++k) {
    if (!(strobe[k / 8] >> (k % 8) & 1)) continue;
    uint8_t* q = whole ? whole + k : dram_.find(at + k, 1);
    if (q) *q = data[k];  // bytes outside every allocation are dropped
  }
  ++w_next_;
  ++write_beats_;
  if (last != (w_next_ == w_beats_) && error_.empty())
    error_ = fmt::format("cycle {}: W beat {} of a {}-beat burst at 0x{:x} has wlast {}", c, w_next_, w_beats_, w_addr_,
                         last ? 1 : 0);
  if (last) {
    acks_.push_back(dram_port_ ? dram_port_->write(c, w_addr_, w_beats_) : c + write_latency_);
    if (bursts_) bursts_->push_back({sim::Client::STORE, true, w_start_, w_start_, c + 1});
  }
}

bool MemoryPort::ack(uint64_t c) {
  if (acks_.empty()) return false;
  if (dram_port_) {
    const auto at = dram_port_->ack(c, acks_.front());
    if (!at || *at != c) return false;
    dram_port_->forget_write(acks_.front());
  } else if (acks_.front() != c) {
    return false;
  }
  acks_.pop_front();
  return true;
}

}  // namespace vta::rtl
