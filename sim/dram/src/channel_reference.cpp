#include "channel_reference.h"

#include <algorithm>

namespace vta::sim::dram {

ReferenceChannel::ReferenceChannel(const Spec& s, const Options& o, uint32_t index, Stats& stats)
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

uint64_t ReferenceChannel::earliest(Cmd c, const Location& l) {
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
    case Cmd::PRE:
      e = std::max(e, b.pre_ok);
      break;
    case Cmd::RD:
      e = std::max({e, b.col_ok, r.rd_ok, r.bg_rd_ok[l.bankgroup]});
      if (bus > t.cl) e = std::max(e, bus - t.cl);
      break;
    case Cmd::WR:
      e = std::max({e, b.col_ok, r.wr_ok, r.bg_wr_ok[l.bankgroup]});
      if (bus > t.cwl) e = std::max(e, bus - t.cwl);
      break;
    case Cmd::REF:
      break;  // refresh_choice() times REF
  }
  return e;
}

void ReferenceChannel::issue(Cmd c, const Location& l, uint64_t at, bool automatic, std::vector<Command>* trace) {
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
uint64_t ReferenceChannel::refresh_choice(Choice& best) {
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

bool ReferenceChannel::step(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  ++step_;
  while (!waiting_.empty() && queue_.size() < depth_ && waiting_.front().arrive <= t_) {
    queue_.push_back(waiting_.front());
    waiting_.pop_front();
  }
  Choice ref;
  if (refresh_choice(ref) <= t_) {
    const uint32_t per_group = spec_.banks_per_group;
    const Location l{index_,
                     ref.rank,
                     ref.bank / per_group,
                     ref.bank % per_group,
                     banks_[size_t{ref.rank} * spec_.banks() + ref.bank].row,
                     0};
    issue(ref.cmd, l, t_, false, trace);
    ++t_;  // the command bus is taken for this cycle
    return true;
  }

  // Banks whose open row a queued burst hits keep it open (row hits first).
  for (const Burst& q : queue_) {
    Bank& b = banks_[q.bank];
    if (b.open && b.row == q.at.row) b.hit_stamp = step_;
  }
  // Each queued burst's next command and the first cycle it is legal. Nothing
  // but time changes until the earliest of them (T) or the next event, so
  // the scheduler moves straight to T and picks among the commands legal
  // then, as if it had looked at every cycle in between.
  uint64_t first = kNever;
  cand_.clear();
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Burst& q = queue_[i];
    if (ranks_[q.at.rank].refresh_due <= t_) continue;  // its rank is being refreshed
    Bank& b = banks_[q.bank];
    const bool hit = b.open && b.row == q.at.row;
    if (!hit && b.open && b.hit_stamp == step_) continue;
    const int kind = hit ? (q.write ? 1 : 0) : 2;
    if (b.seen[kind] == step_) continue;
    b.seen[kind] = step_;
    const Cmd c = hit ? (q.write ? Cmd::WR : Cmd::RD) : b.open ? Cmd::PRE : Cmd::ACT;
    const uint64_t w = std::max(earliest(c, q.at), t_);
    cand_.push_back(Choice{w, c, i, 0, 0});
    first = std::min(first, w);
  }
  // Events that change the picture: an arrival the queue has room for, a
  // refresh falling due or becoming issuable, the caller's horizon.
  uint64_t event = ref.when;
  if (!waiting_.empty() && queue_.size() < depth_) event = std::min(event, waiting_.front().arrive);
  for (const Rank& r : ranks_)
    if (r.refresh_due > t_) event = std::min(event, r.refresh_due);
  if (first == kNever || event <= first || first >= until) {
    t_ = std::min({event, first, until});
    return t_ < until;
  }
  // FR-FCFS among the commands legal at `first`: the oldest column command
  // (a row hit), else the oldest ACT or PRE.
  const Choice* pick = nullptr;
  for (const Choice& k : cand_) {
    if (k.when != first) continue;
    if (k.cmd == Cmd::RD || k.cmd == Cmd::WR) {
      pick = &k;
      break;
    }
    if (!pick) pick = &k;
  }
  t_ = first;
  const Cmd cmd = pick->cmd;
  Burst& q = queue_[pick->burst];
  if (!q.classified) {
    q.classified = true;
    ++(cmd == Cmd::ACT ? stats_.row_misses : cmd == Cmd::PRE ? stats_.row_conflicts : stats_.row_hits);
  }
  issue(cmd, q.at, t_, false, trace);
  if (cmd == Cmd::RD || cmd == Cmd::WR) {
    done.push_back(BurstDone{q.request, q.index, t_ + (q.write ? spec_.t.cwl : spec_.t.cl) + spec_.t.burst});
    const Location at = q.at;
    const uint32_t bi = q.bank;
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(pick->burst));
    if (policy_ == PagePolicy::closed) {
      bool hit = false;
      for (const Burst& r : queue_) hit |= r.bank == bi && r.at.row == at.row;
      if (!hit) issue(Cmd::PRE, at, banks_[bi].pre_ok, true, trace);  // auto-precharge (RDA / WRA)
    }
  }
  ++t_;  // the command bus is taken for this cycle
  return true;
}

void ReferenceChannel::advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  if (queue_.empty() && waiting_.empty()) {  // idle: only a refresh can happen
    uint64_t due = kNever;
    for (const Rank& r : ranks_) due = std::min(due, r.refresh_due);
    if (due > t_ && due >= until) {
      t_ = std::max(t_, until);
      return;
    }
  }
  while (t_ < until) step(until, done, trace);
}

uint64_t ReferenceChannel::drain(std::vector<BurstDone>& done, std::vector<Command>* trace) {
  while (pending()) step(kNever, done, trace);
  return t_;
}

}  // namespace vta::sim::dram
