#include "channel.h"

#include <algorithm>
#include <bit>

namespace vta::sim::dram {

Channel::Channel(const Spec& s, const Options& o, uint32_t index, Stats& stats)
    : spec_(s),
      policy_(o.page_policy),
      index_(index),
      depth_(o.queue_depth),
      refresh_(o.refresh),
      stats_(stats),
      banks_(size_t{s.ranks} * s.banks()),
      ranks_(s.ranks),
      bounds_(s.ranks),
      slots_(o.queue_depth),
      active_((banks_.size() + 63) / 64, 0) {
  for (uint32_t r = 0; r < s.ranks; ++r) {
    Rank& k = ranks_[r];
    k.bg_act_ok.assign(s.bankgroups, 0);
    k.bg_rd_ok.assign(s.bankgroups, 0);
    k.bg_wr_ok.assign(s.bankgroups, 0);
    // Ranks refresh staggered over one tREFI, the first at tREFI.
    k.refresh_due = refresh_ ? s.t.refi + uint64_t{r} * s.t.refi / s.ranks : kNever;
    next_refresh_ = std::min(next_refresh_, k.refresh_due);
  }
  for (size_t i = 0; i < banks_.size(); ++i) {
    Bank& b = banks_[i];
    const auto flat = static_cast<uint32_t>(i);
    b.rank = flat / s.banks();
    b.group = flat % s.banks() / s.banks_per_group;
    b.in_group = flat % s.banks_per_group;
  }
  free_.reserve(depth_);
  for (uint32_t k = depth_; k-- > 0;) free_.push_back(k);
}

void Channel::push(const Burst& b) {
  if (head_ == waiting_.size()) {  // empty: reuse the ring's memory from the start
    waiting_.clear();
    head_ = 0;
  } else if (head_ >= 4096 && head_ * 2 >= waiting_.size()) {
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  const uint32_t bank = (b.at.rank * spec_.bankgroups + b.at.bankgroup) * spec_.banks_per_group + b.at.bank;
  waiting_.push_back(Item{b.request, b.arrive, 0, b.index, b.at.row, bank, b.write});
  // Its arrival may be the next event (a burst pushed behind others arrives
  // no earlier than they do, so this only ever lowers the bound).
  quiet_ = std::min(quiet_, b.arrive);
}

void Channel::admit() {
  const uint32_t s = free_.back();
  free_.pop_back();
  Item& q = slots_[s];
  q = waiting_[head_++];
  q.age = age_++;
  Bank& b = banks_[q.bank];
  q.prev = b.tail;
  q.next = kNone;
  (b.tail == kNone ? b.head : slots_[b.tail].next) = s;
  b.tail = s;
  if (b.known) {  // the youngest: a candidate only where its kind had none
    const int kind = b.open && b.row == q.row ? (q.write ? kWriteHit : kReadHit) : kOther;
    const bool hits = b.cand[kReadHit] != kNone || b.cand[kWriteHit] != kNone;
    if (kind != kOther) {
      set_cand(b, kOther, kNone);  // a row hit keeps the row open
      if (b.cand[kind] == kNone) set_cand(b, kind, s);
    } else if (!hits && b.cand[kOther] == kNone) {
      set_cand(b, kOther, s);
    }
  }
  active_[q.bank / 64] |= uint64_t{1} << (q.bank % 64);
  ++queued_;
}

// A bank's candidates: its oldest read and write hitting the open row, and
// its oldest other burst (a PRE, or an ACT when the bank is closed), unless
// a queued burst hits the open row (row hits first: the row stays open).
// Younger bursts of the same kind are legal no earlier and lose ties.
void Channel::candidates(Bank& b) {
  std::array<uint32_t, 3> cand{kNone, kNone, kNone};
  for (uint32_t s = b.head; s != kNone; s = slots_[s].next) {
    const Item& q = slots_[s];
    const int kind = b.open && b.row == q.row ? (q.write ? kWriteHit : kReadHit) : kOther;
    if (cand[kind] == kNone) cand[kind] = s;
  }
  if (cand[kReadHit] != kNone || cand[kWriteHit] != kNone) cand[kOther] = kNone;
  for (int kind = kReadHit; kind <= kOther; ++kind) set_cand(b, kind, cand[kind]);
  b.known = true;
}

void Channel::issue(Cmd c, uint32_t bank, uint32_t row, uint64_t at, bool automatic, std::vector<Command>* trace) {
  const Timings& t = spec_.t;
  Bank& b = banks_[bank];
  Rank& r = ranks_[b.rank];
  const uint32_t g = b.group;
  b.known = false;
  switch (c) {
    case Cmd::ACT:
      b.open = true;
      b.row = row;
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
      bus_rank_ = b.rank;
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
      bus_rank_ = b.rank;
      ++stats_.wr;
      stats_.write_bytes += spec_.burst_bytes();
      break;
    }
    case Cmd::REF: {
      const size_t first = size_t{b.rank} * spec_.banks();
      for (size_t k = 0; k < spec_.banks(); ++k) banks_[first + k].act_ok = at + t.rfc;
      r.refresh_due += t.refi;
      next_refresh_ = kNever;
      for (const Rank& k : ranks_) next_refresh_ = std::min(next_refresh_, k.refresh_due);
      ++stats_.ref;
      break;
    }
  }
  if (!automatic) cmd_ok_ = at + 1;
  if (trace) trace->push_back(Command{at, c, index_, b.rank, b.group, b.in_group, row, automatic});
}

// The refresh command of the earliest-ready rank whose refresh is due: a PRE
// for each open bank, then REF once every bank is closed and past tRP / tRC.
// Returns the cycle that command can issue (kNever: no refresh due).
uint64_t Channel::refresh_choice(Choice& best) const {
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
      if (w < best.when) best = Choice{w, Cmd::PRE, r, k};
    }
    if (!any_open && ref_at < best.when) best = Choice{ref_at, Cmd::REF, r, 0};
  }
  return best.when;
}

bool Channel::step(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  if (quiet_known_ && t_ < quiet_) {  // decided before: nothing happens until quiet_
    t_ = std::min(quiet_, until);
    return t_ < until;
  }
  quiet_known_ = false;
  while (head_ != waiting_.size() && queued_ < depth_ && waiting_[head_].arrive <= t_) admit();
  Choice ref;
  if (next_refresh_ <= t_ && refresh_choice(ref) <= t_) {
    const uint32_t bank = ref.rank * spec_.banks() + ref.bank;
    issue(ref.cmd, bank, banks_[bank].row, t_, false, trace);
    ++t_;  // the command bus is taken for this cycle
    return true;
  }

  // Each bank's candidates' next command and the first cycle it is legal
  // (the rank's shared bound, then the bank's and its group's constraints).
  // Nothing but time changes until the earliest of them (T) or the next
  // event, so the scheduler moves straight to T and picks among the commands
  // legal then, as if it had looked at every cycle in between: FR-FCFS, the
  // oldest column command (a row hit), else the oldest ACT or PRE.
  const Timings& t = spec_.t;
  for (uint32_t r = 0; r < spec_.ranks; ++r) {
    const Rank& k = ranks_[r];
    const uint64_t now = std::max(cmd_ok_, t_);
    const uint64_t bus = bus_free_ + (r != bus_rank_ ? t.rtrs : 0);  // first cycle the data bus is free to r
    RankBound& e = bounds_[r];
    e.pre = now;
    e.act = std::max(now, k.act_ok);
    if (k.n_acts == 4) e.act = std::max(e.act, k.acts[k.acts_head] + t.faw);  // the oldest of the last four
    e.rd = std::max({now, k.rd_ok, bus > t.cl ? bus - t.cl : 0});
    e.wr = std::max({now, k.wr_ok, bus > t.cwl ? bus - t.cwl : 0});
  }
  uint64_t first = kNever;
  uint32_t col = kNone, any = kNone;  // slots of the picks among the commands legal at `first`
  uint64_t col_age = kNever, any_age = kNever;
  Cmd col_cmd = Cmd::RD, any_cmd = Cmd::ACT;
  for (size_t word = 0; word < active_.size(); ++word) {
    for (uint64_t bits = active_[word]; bits != 0; bits &= bits - 1) {
      Bank& b = banks_[word * 64 + static_cast<size_t>(std::countr_zero(bits))];
      const Rank& r = ranks_[b.rank];
      if (r.refresh_due <= t_) continue;  // its rank is being refreshed
      if (!b.known) candidates(b);
      const RankBound& e = bounds_[b.rank];
      for (int kind = kReadHit; kind <= kOther; ++kind) {
        if (b.cand[kind] == kNone) continue;
        Cmd c;
        uint64_t w;
        if (kind == kReadHit) {
          c = Cmd::RD;
          w = std::max({e.rd, b.col_ok, r.bg_rd_ok[b.group]});
        } else if (kind == kWriteHit) {
          c = Cmd::WR;
          w = std::max({e.wr, b.col_ok, r.bg_wr_ok[b.group]});
        } else if (b.open) {
          c = Cmd::PRE;
          w = std::max(e.pre, b.pre_ok);
        } else {
          c = Cmd::ACT;
          w = std::max({e.act, b.act_ok, r.bg_act_ok[b.group]});
        }
        if (w > first) continue;
        if (w < first) {
          first = w;
          col = any = kNone;
          col_age = any_age = kNever;
        }
        const uint64_t age = b.cand_age[kind];
        if (age < any_age) any = b.cand[kind], any_age = age, any_cmd = c;
        if (kind != kOther && age < col_age) col = b.cand[kind], col_age = age, col_cmd = c;
      }
    }
  }
  // Events that change the picture: an arrival the queue has room for, a
  // refresh falling due or becoming issuable, the caller's horizon.
  uint64_t event = ref.when;
  if (head_ != waiting_.size() && queued_ < depth_) event = std::min(event, waiting_[head_].arrive);
  if (next_refresh_ > t_) {
    event = std::min(event, next_refresh_);
  } else {
    for (const Rank& r : ranks_)
      if (r.refresh_due > t_) event = std::min(event, r.refresh_due);
  }
  if (first == kNever || event <= first || first >= until) {
    quiet_ = std::min(event, first);
    quiet_known_ = true;
    t_ = std::min(quiet_, until);
    return t_ < until;
  }
  const uint32_t s = col != kNone ? col : any;
  const Cmd cmd = col != kNone ? col_cmd : any_cmd;
  t_ = first;
  Item& q = slots_[s];
  if (!q.classified) {
    q.classified = true;
    ++(cmd == Cmd::ACT ? stats_.row_misses : cmd == Cmd::PRE ? stats_.row_conflicts : stats_.row_hits);
  }
  issue(cmd, q.bank, q.row, t_, false, trace);
  if (cmd == Cmd::RD || cmd == Cmd::WR) {
    done.push_back(BurstDone{q.request, q.index, t_ + (q.write ? t.cwl : t.cl) + t.burst});
    const uint32_t bi = q.bank, row = q.row;
    const bool write = q.write;
    Bank& b = banks_[bi];
    const uint32_t after = q.next;
    (q.prev == kNone ? b.head : slots_[q.prev].next) = q.next;
    (q.next == kNone ? b.tail : slots_[q.next].prev) = q.prev;
    if (b.head == kNone) active_[bi / 64] &= ~(uint64_t{1} << (bi % 64));
    free_.push_back(s);
    --queued_;
    // The bank's candidates without s (its row still open): the next burst
    // of s's kind is younger than s; with no hit left, the oldest burst.
    const int kind = write ? kWriteHit : kReadHit;
    set_cand(b, kind, kNone);
    for (uint32_t k = after; k != kNone; k = slots_[k].next) {
      const Item& n = slots_[k];
      if (n.write == write && n.row == row) {
        set_cand(b, kind, k);
        break;
      }
    }
    if (b.cand[kReadHit] == kNone && b.cand[kWriteHit] == kNone && b.head != kNone) set_cand(b, kOther, b.head);
    b.known = true;
    if (policy_ == PagePolicy::closed) {
      bool hit = false;
      for (uint32_t k = b.head; k != kNone; k = slots_[k].next) hit |= slots_[k].row == row;
      if (!hit) issue(Cmd::PRE, bi, row, b.pre_ok, true, trace);  // auto-precharge (RDA / WRA)
    }
  }
  ++t_;  // the command bus is taken for this cycle
  return true;
}

void Channel::advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) {
  if (!pending()) {  // idle: only a refresh can happen
    const uint64_t due = next_refresh_;
    if (due > t_ && due >= until) {
      t_ = std::max(t_, until);
      return;
    }
  }
  while (t_ < until) step(until, done, trace);
}

uint64_t Channel::drain(std::vector<BurstDone>& done, std::vector<Command>* trace) {
  while (pending()) step(kNever, done, trace);
  return t_;
}

}  // namespace vta::sim::dram
