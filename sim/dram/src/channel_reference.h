#pragma once
// The channel scheduler as first written (Options::reference, for tests
// only): at every decision it looks at each queued burst afresh. channel.h's
// Channel must issue the same commands at the same cycles
// (tests/test_dram_golden.cpp compares the two on random traces); this copy
// is the specification it is checked against, kept unchanged.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "channel.h"

namespace vta::sim::dram {

class ReferenceChannel final : public ChannelModel {
 public:
  ReferenceChannel(const Spec& s, const Options& o, uint32_t index, Stats& stats);
  void push(const Burst& burst) override {
    Burst b = burst;
    b.bank = (b.at.rank * spec_.bankgroups + b.at.bankgroup) * spec_.banks_per_group + b.at.bank;
    waiting_.push_back(b);
  }
  void advance(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace) override;
  uint64_t drain(std::vector<BurstDone>& done, std::vector<Command>* trace) override;
  bool pending() const override { return !queue_.empty() || !waiting_.empty(); }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  struct Bank {
    uint64_t act_ok = 0, pre_ok = 0, col_ok = 0;  // earliest ACT, PRE, RD/WR (bank-level constraints)
    uint32_t row = 0;
    bool open = false;
    uint64_t hit_stamp = 0;  // == step_: a queued burst hits the open row
    // == step_: this step already has this bank's oldest read hit, write hit
    // or other burst as a candidate (younger ones of the same kind are
    // legal no earlier and lose ties, so they need no look).
    std::array<uint64_t, 3> seen{};
  };
  struct Rank {
    uint64_t act_ok = 0, rd_ok = 0, wr_ok = 0;            // rank-level: tRRD_S, tCCD_S / tWTR_S / turnaround
    std::vector<uint64_t> bg_act_ok, bg_rd_ok, bg_wr_ok;  // per bank group: tRRD_L, tCCD_L / tWTR_L
    std::array<uint64_t, 4> acts{};                       // the last four ACTs (tFAW), a ring
    uint32_t n_acts = 0, acts_head = 0;
    uint64_t refresh_due = 0;
  };
  struct Choice {
    uint64_t when = kNever;
    Cmd cmd = Cmd::ACT;
    size_t burst = 0;             // queue index (request commands)
    uint32_t rank = 0, bank = 0;  // bank: flat index within the rank (refresh commands)
  };

  /// One scheduling decision at t_: issues one command, or moves t_ to the
  /// next cycle anything can happen (at most `until`). False when t_ reached `until`.
  bool step(uint64_t until, std::vector<BurstDone>& done, std::vector<Command>* trace);
  Bank& bank(const Location& l) {
    return banks_[(l.rank * spec_.bankgroups + l.bankgroup) * spec_.banks_per_group + l.bank];
  }
  uint64_t earliest(Cmd c, const Location& l);
  void issue(Cmd c, const Location& l, uint64_t t, bool automatic, std::vector<Command>* trace);
  uint64_t refresh_choice(Choice& best);

  const Spec& spec_;
  PagePolicy policy_;
  uint32_t index_, depth_;
  bool refresh_;
  Stats& stats_;
  std::vector<Bank> banks_;  // rank-major, then bank group, then bank
  std::vector<Rank> ranks_;
  std::vector<Burst> queue_;   // what the scheduler sees, oldest first
  std::vector<Choice> cand_;   // step()'s candidates (kept to reuse its memory)
  std::deque<Burst> waiting_;  // submitted, not yet in the queue (future arrival or queue full)
  uint64_t t_ = 0;             // current cycle
  uint64_t cmd_ok_ = 0;        // command bus: one command per cycle
  uint64_t bus_free_ = 0;      // data bus: end of the last burst's data
  uint32_t bus_rank_ = 0;
  uint64_t step_ = 0;
};

}  // namespace vta::sim::dram
