#include "vta/sim/dram_port.h"

#include <algorithm>

#include "vta/sim/dram/config.h"

namespace vta::sim {

namespace {
dram::AxiPort make_axi(const Config& c, const Timing& t) {
  const dram::Setup s = dram::setup_of(c);
  return dram::AxiPort(s.spec, s.options, s.core, static_cast<uint32_t>(t.bus_bytes()));
}
}  // namespace

DramPort::DramPort(const Config& c, const Timing& t) : axi_(make_axi(c, t)), outstanding_(t.outstanding_reads()) {
  const dram::Timings& tm = axi_.port().controller().spec().t;
  min_done_ = std::min(tm.cl, tm.cwl) + tm.burst;
}

uint64_t DramPort::next_event(uint64_t c) {
  advance(c);
  uint64_t next = UINT64_MAX;
  const bool read_unknown = !reads_.empty() && !axi_.read_beat(reads_.back().id, reads_.back().beats - 1);
  if (read_unknown || !writes_.empty()) {
    const dram::ClockCrossing& x = axi_.port().crossing();
    const uint64_t dram = std::max(c + 1, x.to_core(x.to_ctrl(c) + min_done_));
    // A beat not placed yet leaves after every placed one; an acknowledgement
    // not given yet comes after the last one given.
    if (read_unknown) next = std::max(dram, axi_.next_beat());
    if (!writes_.empty()) next = std::min(next, std::max(dram, any_ack_ ? last_ack_ + 1 : 0));
  }
  if (!reads_.empty())
    if (const auto last = axi_.read_beat(reads_.front().id, reads_.front().beats - 1); last && *last + 1 > c)
      next = std::min(next, *last + 1);
  return next;
}

void DramPort::advance(uint64_t c) {
  if (any_advance_ && c <= advanced_) return;
  axi_.advance(c);
  advanced_ = c;
  any_advance_ = true;
  // Acknowledgements in issue order, at most one a cycle.
  while (!writes_.empty()) {
    const auto done = axi_.write_done(writes_.front());
    if (!done) break;
    const uint64_t a = any_ack_ ? std::max(*done, last_ack_ + 1) : *done;
    acked_[writes_.front()] = a;
    axi_.retire(writes_.front());
    last_ack_ = a;
    any_ack_ = true;
    writes_.pop_front();
  }
}

bool DramPort::can_grant(uint64_t c) {
  if (c > 0) advance(c - 1);
  // Beats are delivered in grant order, so the bursts done before c are a prefix.
  while (!reads_.empty()) {
    const auto last = axi_.read_beat(reads_.front().id, reads_.front().beats - 1);
    if (!last || *last >= c) break;
    axi_.retire(reads_.front().id);
    reads_.pop_front();
  }
  return reads_.size() < outstanding_;
}

uint64_t DramPort::read(uint64_t c, uint64_t addr, uint32_t beats) {
  const uint64_t id = axi_.read(c, addr, beats);
  reads_.push_back(Read{id, beats});
  return id;
}

uint64_t DramPort::write(uint64_t c, uint64_t addr, uint32_t beats) {
  const uint64_t id = axi_.write(c, addr, beats);
  writes_.push_back(id);
  return id;
}

std::optional<uint64_t> DramPort::beat(uint64_t now, uint64_t id, uint32_t k) {
  advance(now);
  return axi_.read_beat(id, k);
}

std::optional<uint64_t> DramPort::ack(uint64_t now, uint64_t id) {
  advance(now);
  const auto it = acked_.find(id);
  if (it == acked_.end()) return std::nullopt;
  return it->second;
}

}  // namespace vta::sim
