#pragma once
// The DRAM timing model: a memory controller with one FR-FCFS scheduler per
// channel in front of JEDEC-timed banks (docs/timing.md, "DRAM model").
//
// Contract:
//  - Time is the controller's clock (tCK cycles of Spec::clock()). Callers in
//    another clock go through CorePort (port.h).
//  - A request (read or write, byte address, length) is split into bursts of
//    Spec::burst_bytes() at burst-aligned boundaries; each burst goes to the
//    channel, rank, bank and row its address maps to (mapping.h).
//  - submit() takes requests in non-decreasing arrival order, never earlier
//    than now(); advance(until) decides every command issued before `until`.
//    A burst's data time (BurstDone::done) is known from the cycle its column
//    command issues. What the model computes depends only on the sequence of
//    submitted requests (their order and arrival cycles), never on how
//    advance() is called: calling it every cycle or once gives the same
//    commands at the same cycles (tests/test_dram.cpp, "Determinism").
//  - Ties are broken deterministically: refresh commands first, then the
//    oldest ready column command (row hit), then the oldest ready ACT or PRE;
//    "oldest" is submission order, then burst index.
#include <cstdint>
#include <memory>
#include <vector>

#include "vta/sim/dram/mapping.h"
#include "vta/sim/dram/spec.h"

namespace vta::sim::dram {

struct Request {
  uint64_t addr = 0;
  uint32_t bytes = 0;
  bool write = false;
  uint64_t arrive = 0;  ///< controller cycle from which the scheduler sees it
};

/// One burst whose data time is known.
struct BurstDone {
  uint64_t request;  ///< the id submit() returned
  uint32_t burst;    ///< index within the request, from its lowest address
  uint64_t done;     ///< cycle after its last data transfer (read data in, write data written)
  bool operator==(const BurstDone&) const = default;
};

/// The bursts (indices within a request at `addr`, as BurstDone::burst
/// counts them) holding bytes [offset, offset + bytes) of the request: a
/// caller's bus beat is available once every one of them is done.
struct BurstSpan {
  uint32_t first, last;
};
BurstSpan bursts_of(uint64_t addr, uint64_t offset, uint64_t bytes, uint32_t burst_bytes);

enum class Cmd : uint8_t { ACT, PRE, RD, WR, REF };
const char* cmd_name(Cmd c);

/// One command on a channel's command bus (or an auto-precharge, which is
/// not on the bus: `automatic`).
struct Command {
  uint64_t cycle;
  Cmd cmd;
  uint32_t channel, rank, bankgroup, bank, row;
  bool automatic;
  bool operator==(const Command&) const = default;
};

struct Stats {
  uint64_t act = 0, pre = 0, rd = 0, wr = 0, ref = 0;
  uint64_t row_hits = 0;                     ///< bursts whose first command was RD/WR
  uint64_t row_misses = 0;                   ///< bursts that found their bank closed
  uint64_t row_conflicts = 0;                ///< bursts that found another row open
  uint64_t read_bytes = 0, write_bytes = 0;  ///< whole bursts moved
};

class ChannelModel;

class Controller {
 public:
  /// `o` as for resolve(); the Error of a bad mapping names memory.dram_mapping.
  Controller(const Spec& s, const Options& o = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Queues a request; returns its id (0, 1, 2, ... in submission order).
  /// An Error when bytes is 0 or arrive is before now() or before the
  /// previous request's arrival.
  uint64_t submit(const Request& r);
  /// Issues every command before cycle `until` (a no-op when until <= now()).
  void advance(uint64_t until);
  uint64_t now() const { return now_; }
  /// Moves the bursts whose data time became known since the last call into
  /// `out`, sorted by (done, request, burst).
  void take_done(std::vector<BurstDone>& out);
  /// True while some submitted burst has no known data time yet.
  bool pending() const;
  /// Advances until nothing is pending; returns the latest data time of all
  /// bursts so far (0 if none).
  uint64_t drain();

  const Spec& spec() const { return spec_; }
  const Mapping& mapping() const { return mapping_; }
  const Stats& stats() const { return stats_; }
  /// Records every command into `out` (nullptr: stop recording).
  void trace(std::vector<Command>* out) { trace_ = out; }

 private:
  Spec spec_;
  Options opt_;
  Mapping mapping_;
  std::vector<std::unique_ptr<ChannelModel>> channels_;
  std::vector<BurstDone> done_;
  std::vector<Command>* trace_ = nullptr;
  Stats stats_;
  uint64_t now_ = 0, last_arrive_ = 0, next_id_ = 0, last_done_ = 0;
  void note_done(size_t from);  // last_done_ over done_[from..]
};

}  // namespace vta::sim::dram
