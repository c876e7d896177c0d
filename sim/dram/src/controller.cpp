#include "vta/sim/dram/controller.h"

#include <algorithm>

#include "channel.h"
#include "channel_reference.h"
#include "vta/isa/error.h"

namespace vta::sim::dram {

const char* cmd_name(Cmd c) {
  switch (c) {
    case Cmd::ACT:
      return "ACT";
    case Cmd::PRE:
      return "PRE";
    case Cmd::RD:
      return "RD";
    case Cmd::WR:
      return "WR";
    case Cmd::REF:
      return "REF";
  }
  return "?";
}

BurstSpan bursts_of(uint64_t addr, uint64_t offset, uint64_t bytes, uint32_t burst_bytes) {
  const uint64_t base = addr / burst_bytes;
  const uint64_t lo = addr + offset, hi = addr + offset + std::max<uint64_t>(bytes, 1) - 1;
  return BurstSpan{static_cast<uint32_t>(lo / burst_bytes - base), static_cast<uint32_t>(hi / burst_bytes - base)};
}

Controller::Controller(const Spec& s, const Options& o) : spec_(s), opt_(o), mapping_(spec_, o.mapping) {
  for (uint32_t c = 0; c < spec_.channels; ++c) {
    if (opt_.reference)
      channels_.push_back(std::make_unique<ReferenceChannel>(spec_, opt_, c, stats_));
    else
      channels_.push_back(std::make_unique<Channel>(spec_, opt_, c, stats_));
  }
}

Controller::~Controller() = default;

uint64_t Controller::submit(const Request& r) {
  if (r.bytes == 0) fail("dram request {} at 0x{:x}: 0 bytes", next_id_, r.addr);
  if (r.arrive < now_ || r.arrive < last_arrive_)
    fail("dram request {} at 0x{:x}: arrives at cycle {}, before the model's time {} or the previous request's {}",
         next_id_, r.addr, r.arrive, now_, last_arrive_);
  last_arrive_ = r.arrive;
  const uint64_t bb = spec_.burst_bytes();
  const uint64_t base = r.addr / bb * bb;
  const uint64_t n = (r.addr + r.bytes - base + bb - 1) / bb;
  for (uint64_t i = 0; i < n; ++i) {
    const Location l = mapping_.map(base + i * bb);
    channels_[l.channel]->push(Burst{next_id_, static_cast<uint32_t>(i), r.write, false, r.arrive, l});
  }
  return next_id_++;
}

void Controller::note_done(size_t from) {
  for (size_t i = from; i < done_.size(); ++i) last_done_ = std::max(last_done_, done_[i].done);
}

void Controller::advance(uint64_t until) {
  if (until <= now_) return;
  const size_t from = done_.size();
  for (auto& c : channels_) c->advance(until, done_, trace_);
  now_ = until;
  note_done(from);
}

void Controller::take_done(std::vector<BurstDone>& out) {
  const auto before = [](const BurstDone& a, const BurstDone& b) {
    return a.done != b.done ? a.done < b.done : a.request != b.request ? a.request < b.request : a.burst < b.burst;
  };
  if (!std::is_sorted(done_.begin(), done_.end(), before)) std::sort(done_.begin(), done_.end(), before);
  out.insert(out.end(), done_.begin(), done_.end());
  done_.clear();
}

bool Controller::pending() const {
  return std::any_of(channels_.begin(), channels_.end(), [](const auto& c) { return c->pending(); });
}

uint64_t Controller::drain() {
  const size_t from = done_.size();
  uint64_t end = now_;
  for (auto& c : channels_) end = std::max(end, c->drain(done_, trace_));
  for (auto& c : channels_) c->advance(end, done_, trace_);
  now_ = end;
  note_done(from);
  return last_done_;
}

}  // namespace vta::sim::dram
