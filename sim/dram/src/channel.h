#pragma once
// One channel of the controller: its request queue, FR-FCFS scheduler,
// banks, ranks, command bus and data bus (controller.h states the contract,
// docs/timing.md the rules).
//
// The scheduler decides as if it looked at every queued burst in every
// cycle; its work follows commands, not cycles or queue length:
//  - time jumps straight to the next cycle at which a command is legal, a
//    request arrives or a refresh falls due, and that cycle is remembered,
//    so advancing to an earlier cycle costs nothing;
//  - each bank keeps its queued bursts in age order (a list through the
//    pool, so taking one out costs nothing) and, until its state
//    or its bursts change, its candidates (the oldest read hit, write hit
//    and other burst): a decision looks at three bursts per bank at most;
//  - bursts live in a fixed pool of queue_depth slots and a ring of waiting
//    ones, so the steady state allocates nothing.
// ReferenceChannel (channel_reference.h, Options::reference) is the first
// implementation, which rescanned the queue at every decision; the tests
// require both to give the same commands at the same cycles.
#include <array>
#include <cstdint>
#include <vector>

#include "vta/sim/dram/controller.h"

namespace vta::sim::dram {

struct Burst {
  uint64_t request;
  uint32_t index;
  bool write;
  bool classified = false;  // counted as hit, miss or conflict
  uint64_t arrive;
  Location at;
  uint32_t bank = 0;  // flat index into the channel's banks (push() sets it)
};

/// What Controller asks of a channel.
class ChannelModel {
 public:
  virtual ~ChannelModel() = default;
  virtual void push(const Burst& b) = 0;
  /// Issues every command before `until`, appending known data times to `done`.
  virtual void advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) = 0;
  /// Issues commands until no burst is left; returns the cycle after the last command.
  virtual uint64_t drain(std::vector<BurstDone>& done, std::vector<Command>* trace) = 0;
  virtual bool pending() const = 0;
};

class Channel final : public ChannelModel {
 public:
  Channel(const Spec& s, const Options& o, uint32_t index, Stats& stats);
  void push(const Burst& b) override;
  void advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) override;
  uint64_t drain(std::vector<BurstDone>& done, std::vector<Command>* trace) override;
  bool pending() const override { return queued_ != 0 || head_ != waiting_.size(); }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr uint32_t kNone = UINT32_MAX;
  enum Kind : uint8_t { kReadHit, kWriteHit, kOther };  // a bank's candidates

  struct Item {  // a burst, waiting or queued
    uint64_t request;
    uint64_t arrive;                      // waiting: the cycle it reaches the scheduler
    uint64_t age = 0;                     // queued: queue order (push order)
    uint32_t index, row, bank;            // bank: flat index into banks_
    bool write, classified = false;       // classified: counted as hit, miss or conflict
    uint32_t prev = kNone, next = kNone;  // queued: its bank's list, oldest first
  };
  struct Bank {
    uint64_t act_ok = 0, pre_ok = 0, col_ok = 0;  // earliest ACT, PRE, RD/WR (bank-level constraints)
    uint32_t row = 0;
    bool open = false;
    bool known = false;  // cand is up to date
    uint32_t rank = 0, group = 0, in_group = 0;
    std::array<uint32_t, 3> cand{kNone, kNone, kNone};  // slot of the oldest burst of each Kind
    std::array<uint64_t, 3> cand_age{};                 // and its age
    uint32_t head = kNone, tail = kNone;                // its queued bursts, oldest first (Item::next)
  };
  struct Rank {
    uint64_t act_ok = 0, rd_ok = 0, wr_ok = 0;            // rank-level: tRRD_S, tCCD_S / tWTR_S / turnaround
    std::vector<uint64_t> bg_act_ok, bg_rd_ok, bg_wr_ok;  // per bank group: tRRD_L, tCCD_L / tWTR_L
    std::array<uint64_t, 4> acts{};                       // the last four ACTs (tFAW), a ring
    uint32_t n_acts = 0, acts_head = 0;
    uint64_t refresh_due = 0;
  };
  /// The first cycle >= t_ each command may issue in a rank by the
  /// constraints its banks share (command bus, rank, data bus, tFAW).
  struct RankBound {
    uint64_t act, pre, rd, wr;
  };
  struct Choice {
    uint64_t when = kNever;
    Cmd cmd = Cmd::ACT;
    uint32_t rank = 0, bank = 0;  // bank: flat index within the rank
  };

  /// One scheduling decision at t_: issues one command, or moves t_ to the
  /// next cycle anything can happen (at most `until`). False when t_ reached `until`.
  bool step(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace);
  void admit();              // the oldest waiting burst into the queue
  void candidates(Bank& b);  // b.cand from the bank's bursts and the open row
  void set_cand(Bank& b, int kind, uint32_t slot) {
    b.cand[kind] = slot;
    b.cand_age[kind] = slot == kNone ? kNever : slots_[slot].age;
  }
  void issue(Cmd c, uint32_t bank, uint32_t row, uint64_t t, bool automatic, std::vector<Command>* trace);
  uint64_t refresh_choice(Choice& best) const;

  const Spec& spec_;
  PagePolicy policy_;
  uint32_t index_, depth_;
  bool refresh_;
  Stats& stats_;
  std::vector<Bank> banks_;  // rank-major, then bank group, then bank
  std::vector<Rank> ranks_;
  std::vector<RankBound> bounds_;  // step()'s, per rank
  std::vector<Item> slots_;        // the queue: queue_depth places
  std::vector<uint32_t> free_;     // unused places
  std::vector<uint64_t> active_;   // a bit per bank with queued bursts
  uint32_t queued_ = 0;            // bursts the scheduler sees (at most queue_depth)
  uint64_t age_ = 0;               // next burst's queue order
  std::vector<Item> waiting_;      // submitted, not yet in the queue, from head_ (future arrival or queue full)
  size_t head_ = 0;
  uint64_t next_refresh_ = kNever;  // the earliest of the ranks\' refresh_due
  uint64_t t_ = 0;                  // current cycle
  uint64_t quiet_ = 0;              // when quiet_known_: nothing can happen before this cycle
  bool quiet_known_ = false;
  uint64_t cmd_ok_ = 0;    // command bus: one command per cycle
  uint64_t bus_free_ = 0;  // data bus: end of the last burst's data
  uint32_t bus_rank_ = 0;
};

}  // namespace vta::sim::dram
