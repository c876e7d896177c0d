#include "channel.h"

#include <algorithm>

namespace vta::sim::dram {

Channel::Channel(const Spec& s, const Options& o, uint32_t index, Stats& stats)
    : spec_(s),
      policy_(o.page_policy),
      index_(index),
      depth_(o.queue_depth),
      refresh_(o.refresh),
      stats_(stats),
      banks_(size_t{s.ranks} * s.banks()),
      ranks_(s.ranks) {
  for (uint32_t r = 0; r < s.ranks; ++r) {
    Rank& k = ranks_[r];
    k.bg_act_ok.assign(s.bankgroups, 0);
    k.bg_rd_ok.assign(s.bankgroups, 0);
    k.bg_wr_ok.assign(s.bankgroups, 0);
    // Ranks refresh staggered over one tREFI, the first at tREFI.
    k.refresh_due = refresh_ ? s.t.refi + uint64_t{r} * s.t.refi / s.ranks : kNever;
  }
}

uint64_t Channel::earliest(Cmd c, const Location& l) {
  const Timings& t = spec_.t;
  const Bank& b = bank(l);
  const Rank& r = ranks_[l.rank];
  uint64_t e = cmd_ok_;
  const uint64_t bus = bus_free_ + (l.rank != bus_rank_ ? t.rtrs : 0);  // first cycle the data bus is free to l.rank
  switch (c) {
    case Cmd::ACT:
      e = std::max({e, b.act_ok, r.act_ok, r.bg_act_ok[l.bankgroup]});
      if (r.n_acts == 4) e = std::max(e, r.acts[r.acts_head] + t.faw);  // the oldest of the last four
      break;
    case Cmd::PRE: e = std::max(e, b.pre_ok); break;
    case Cmd::RD:
      e = std::max({e, b.col_ok, r.rd_ok, r.bg_rd_ok[l.bankgroup]});
      if (bus > t.cl) e = std::max(e, bus - t.cl);
      break;
    case Cmd::WR:
      e = std::max({e, b.col_ok, r.wr_ok, r.bg_wr_ok[l.bankgroup]});
      if (bus > t.cwl) e = std::max(e, bus - t.cwl);
      break;
    case Cmd::REF: break;  // refresh_choice() times REF
  }
  return e;
}

void Channel::issue(Cmd c, const Location& l, uint64_t at, bool automatic, std::vector<Command>* trace) {
  const Timings& t = spec_.t;
  Bank& b = bank(l);
  Rank& r = ranks_[l.rank];
  const uint32_t g = l.bankgroup;
  switch (c) {
    case Cmd::ACT:
      b.open = true;
      b.row = l.row;
      b.act_ok = at + t.rc;
      b.col_ok = at + t.rcd;
      b.pre_ok = std::max(b.pre_ok, at + t.ras);
      r.act_ok = std::max(r.act_ok, at + t.rrd_s);
      r.bg_act_ok[g] = std::max(r.bg_act_ok[g], at + t.rrd_l);
      r.acts[r.acts_head] = at;
      r.acts_head = (r.acts_head + 1) % 4;
      r.n_acts = std::min(4u, r.n_acts + 1);
      ++stats_.act;
      break;
    case Cmd::PRE:
      b.open = false;
      b.act_ok = std::max(b.act_ok, at + t.rp);
      ++stats_.pre;
      break;
    case Cmd::RD: {
      r.rd_ok = std::max(r.rd_ok, at + t.ccd_s);
      r.bg_rd_ok[g] = std::max(r.bg_rd_ok[g], at + t.ccd_l);
      // Read to write, same rank: RL + BL/2 + 2 - WL (JESD79-3F / JESD79-4B).
      const uint64_t turn = at + t.cl + t.burst + 2;
      r.wr_ok = std::max({r.wr_ok, at + t.ccd_s, turn > t.cwl ? turn - t.cwl : 0});
      r.bg_wr_ok[g] = std::max(r.bg_wr_ok[g], at + t.ccd_l);
      b.pre_ok = std::max(b.pre_ok, at + t.rtp);
      bus_free_ = at + t.cl + t.burst;
      bus_rank_ = l.rank;
      ++stats_.rd;
      stats_.read_bytes += spec_.burst_bytes();
      break;
    }
    case Cmd::WR: {
      const uint64_t end = at + t.cwl + t.burst;  // end of the write data
      r.wr_ok = std::max(r.wr_ok, at + t.ccd_s);
      r.bg_wr_ok[g] = std::max(r.bg_wr_ok[g], at + t.ccd_l);
      r.rd_ok = std::max({r.rd_ok, at + t.ccd_s, end + t.wtr_s});
      r.bg_rd_ok[g] = std::max(r.bg_rd_ok[g], end + t.wtr_l);
      b.pre_ok = std::max(b.pre_ok, end + t.wr);
      bus_free_ = end;
      bus_rank_ = l.rank;
      ++stats_.wr;
      stats_.write_bytes += spec_.burst_bytes();
      break;
    }
    case Cmd::REF: {
      const size_t first = size_t{l.rank} * spec_.banks();
      for (size_t k = 0; k < spec_.banks(); ++k) banks_[first + k].act_ok = at + t.rfc;
      r.refresh_due += t.refi;
      ++stats_.ref;
      break;
    }
  }
  if (!automatic) cmd_ok_ = at + 1;
  if (trace) trace->push_back(Command{at, c, index_, l.rank, l.bankgroup, l.bank, l.row, automatic});
}

// The refresh command of the earliest-ready rank whose refresh is due: a PRE
// for each open bank, then REF once every bank is closed and past tRP / tRC.
// Returns the cycle that command can issue (kNever: no refresh due).
uint64_t Channel::refresh_choice(Choice& best) {
  for (uint32_t r = 0; r < spec_.ranks; ++r) {
    if (ranks_[r].refresh_due > t_) continue;
    const size_t first = size_t{r} * spec_.banks();
    bool any_open = false;
    uint64_t ref_at = cmd_ok_;
    for (uint32_t k = 0; k < spec_.banks(); ++k) {
      const Bank& b = banks_[first + k];
      ref_at = std::max(ref_at, b.act_ok);
      if (!b.open) continue;
      any_open = true;
      const uint64_t w = std::max(b.pre_ok, cmd_ok_);
      if (w < best.when) best = Choice{w, Cmd::PRE, 0, r, k};
    }
    if (!any_open && ref_at < best.when) best = Choice{ref_at, Cmd::REF, 0, r, 0};
  }
  return best.when;
}

bool Channel::step(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  ++step_;
  while (!waiting_.empty() && queue_.size() < depth_ && waiting_.front().arrive <= t_) {
    queue_.push_back(waiting_.front());
    waiting_.pop_front();
  }
  uint64_t next = kNever;

  Choice ref;
  if (refresh_choice(ref) <= t_) {
    const uint32_t per_group = spec_.banks_per_group;
    const Location l{index_, ref.rank, ref.bank / per_group, ref.bank % per_group, banks_[size_t{ref.rank} * spec_.banks() + ref.bank].row, 0};
    issue(ref.cmd, l, t_, false, trace);
    return true;
  }
  next = std::min(next, ref.when);

  // Banks whose open row a queued burst hits keep it open (row hits first).
  for (const Burst& q : queue_) {
    Bank& b = bank(q.at);
    if (b.open && b.row == q.at.row && ranks_[q.at.rank].refresh_due > t_) b.hit_stamp = step_;
  }
  Choice col, other;
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Burst& q = queue_[i];
    if (ranks_[q.at.rank].refresh_due <= t_) continue;  // its rank is being refreshed
    const Bank& b = bank(q.at);
    Cmd c;
    if (b.open && b.row == q.at.row) {
      c = q.write ? Cmd::WR : Cmd::RD;
    } else if (b.open) {
      if (b.hit_stamp == step_) continue;
      c = Cmd::PRE;
    } else {
      c = Cmd::ACT;
    }
    const uint64_t w = earliest(c, q.at);
    if (w > t_) {
      next = std::min(next, w);
      continue;
    }
    if (c == Cmd::RD || c == Cmd::WR) {
      col = Choice{w, c, i, 0, 0};
      break;
    }
    if (other.when == kNever) other = Choice{w, c, i, 0, 0};
  }
  const Choice& pick = col.when != kNever ? col : other;
  if (pick.when != kNever) {
    Burst& q = queue_[pick.burst];
    if (!q.classified) {
      q.classified = true;
      ++(pick.cmd == Cmd::ACT ? stats_.row_misses : pick.cmd == Cmd::PRE ? stats_.row_conflicts : stats_.row_hits);
    }
    issue(pick.cmd, q.at, t_, false, trace);
    if (pick.cmd == Cmd::RD || pick.cmd == Cmd::WR) {
      done.push_back(BurstDone{q.request, q.index, t_ + (q.write ? spec_.t.cwl : spec_.t.cl) + spec_.t.burst});
      const Location at = q.at;
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(pick.burst));
      if (policy_ == PagePolicy::closed) {
        bool hit = false;
        for (const Burst& r : queue_)
          hit |= r.at.rank == at.rank && r.at.bankgroup == at.bankgroup && r.at.bank == at.bank && r.at.row == at.row;
        if (!hit) issue(Cmd::PRE, at, bank(at).pre_ok, true, trace);  // auto-precharge (RDA / WRA)
      }
    }
    return true;
  }
  if (!waiting_.empty() && queue_.size() < depth_) next = std::min(next, waiting_.front().arrive);
  for (const Rank& r : ranks_)
    if (r.refresh_due > t_) next = std::min(next, r.refresh_due);
  t_ = std::min(next, until);
  return t_ < until;
}

void Channel::advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  while (t_ < until) step(until, done, trace);
}

uint64_t Channel::drain(std::vector<BurstDone>& done, std::vector<Command>* trace) {
  while (pending()) step(kNever, done, trace);
  return t_;
}

}  // namespace vta::sim::dram
