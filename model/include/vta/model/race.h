#pragma once
// The race checker. The load, compute and store modules run concurrently and
// are ordered only by dependency tokens, so two instructions of different
// modules that touch the same SRAM element (at least one writing) with no
// token path between them race: their order, and so the result, depends on
// timing. Each model picks one legal order; a card may pick another.
//
// Happens-before comes from vector clocks carried on the tokens. Each module
// keeps a clock (per module, the highest instruction index known to have
// completed before it); an instruction that pops a token joins the clock the
// token carries, and a push carries a copy of the pusher's clock. Because a
// queue has one producer and one consumer, both in order, the k-th pop on a
// queue always matches the k-th push: the relation does not depend on the
// order the instructions are simulated in, so any model's order finds the
// same racing pairs. Each SRAM element keeps its last writer and, per
// module, its last reader since that write (as FastTrack does); the first
// access that is unordered with one of them is reported.
//
// DRAM bytes race too: a STORE and a LOAD (or two STOREs) of the same bytes
// with no token path between them. A program without a STORE cannot race
// in DRAM and pays nothing; otherwise each 4 KiB page keeps the byte ranges
// of the LOAD and STORE rows that touched it, and an access drops the ranges
// it covers of the same module and kind (an access unordered with the
// earlier one is unordered with the later one).
#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"
#include "vta/model/datapath.h"
#include "vta/model/program.h"

namespace vta::model {

/// A data race (RaceChecker's report): the program's fault, whatever the
/// backend. Bring-up tells it apart from the errors a program is meant to
/// raise identically on every backend.
class RaceError : public Error {
 public:
  using Error::Error;
};

class RaceChecker {
 public:
  RaceChecker(const Config& c, const isa::Layout& layout, const Program& prog);

  /// Records instruction `i` of `prog` (its pops, element accesses and
  /// pushes). Call once per instruction, in an order the tokens allow, after
  /// the datapath has checked the instruction's bounds; `uops` is the uop
  /// buffer as the instruction sees it. Throws vta::Error naming both
  /// instructions (index, disassembly, module), the buffer and the element
  /// at the first race.
  void record(uint32_t i, const std::vector<Uop>& uops);

 private:
  using Clock = std::array<uint32_t, 3>;  // per module: instruction index + 1, 0 for none
  struct Shadow {
    uint32_t write = 0;              // last writer: instruction index + 1, 0 for none
    std::array<uint32_t, 3> read{};  // per module, its last reader since that write
    bool operator==(const Shadow&) const = default;
  };
  enum Buf { kUop, kInp, kWgt, kAcc, kOut, kBufs };
  // The elements a GEMM or ALU loop nest touches, each once, in the order
  // it first touches them (sources, weights, destinations). A convolution's
  // nest visits each ACC element once per input channel block and kernel
  // position; the shadows need each element once. Kept per loop shape
  // until the next uop load (at most kMaxLoops of them).
  struct LoopKey {
    uint32_t bgn, end, io, ii, dfo, dfi, sfo, sfi, wfo, wfi, kind;
    bool operator==(const LoopKey&) const = default;
  };
  struct Footprint {
    std::vector<uint32_t> src, wgt, dst;
  };
  static constexpr size_t kMaxLoops = 256;
  const Footprint* footprint(const isa::Insn& insn, const std::vector<Uop>& uops);

  void read(Buf b, uint64_t e);
  void write(Buf b, uint64_t e);
  /// The DRAM rows of a LOAD (`writes` false) or STORE: y rows of x elements
  /// of `elem` bytes, `stride` elements apart, from element `base`.
  void dram_rows(uint64_t base, uint64_t y, uint64_t x, uint64_t stride, uint64_t elem, bool writes);
  void dram_range(uint64_t lo, uint64_t hi, bool writes);
  /// True when the access by instruction `earlier` (index + 1) is ordered
  /// before the current instruction.
  bool ordered(uint32_t earlier) const;
  [[noreturn]] void report(uint32_t earlier, bool earlier_writes, bool now_writes, Buf b, uint64_t e) const;
  [[noreturn]] void report_dram(uint32_t earlier, bool earlier_writes, bool now_writes, uint64_t addr) const;

  struct DramAccess {
    uint64_t lo, hi;  // bytes [lo, hi)
    uint32_t insn;    // instruction index + 1
    bool writes;
  };
  static constexpr unsigned kPageBits = 12;

  const isa::Layout& layout_;
  const Program& prog_;
  std::array<Clock, 3> clock_{};                                 // per module
  std::array<std::deque<Clock>, 4> tokens_;                      // the clocks in flight, per TokenQueue
  std::array<AlignedArray<Shadow>, kBufs> shadow_;               // zero pages until touched
  std::array<int64_t, 6> elem_bytes_{};                          // DRAM bytes per element, by MemId
  bool dram_ = false;                                            // the program has a STORE: DRAM is checked
  std::unordered_map<uint64_t, std::vector<DramAccess>> pages_;  // by DRAM page
  uint32_t now_ = 0;                                             // the instruction being recorded
  std::vector<std::pair<LoopKey, Footprint>> loops_;             // since the last uop load
  std::array<std::vector<uint32_t>, 3> seen_;                    // footprint(): source, weight, destination stamps
  uint32_t stamp_ = 0;
  size_t mod_ = 0;  // its module
};

/// Raises the first error the golden model would raise on `prog` (a bounds
/// error, a race when `races`, a deadlock), without computing tensors: it
/// walks the golden model's order with `checker` (Datapath::check; uop loads
/// are carried out, so `checker` should persist across runs as the uop
/// buffer does). The cycle models call it before they run, so that a program
/// with several errors reports the same one on every backend, whatever order
/// their timing gives the modules.
void check_in_golden_order(const Config& c, const Program& prog, const Dram& dram, Datapath& checker, bool races);

/// The race check alone, for a backend that raises the other errors itself
/// (OpenCL): walks the golden order like check_in_golden_order and throws
/// RaceError for a race met before any other error; at the first other error
/// it stops quietly (the backend's run raises that one).
void check_races_before_other_errors(const Config& c, const Program& prog, const Dram& dram, Datapath& checker);

/// Fetches the program `launch` from `dram` and checks it for races without
/// computing tensors: the golden model's order, each instruction's bounds
/// checks (uop loads are carried out, on a fresh uop buffer), then the race
/// checker. Throws RaceError for the first race, vta::Error for anything the golden
/// model would reject (bounds, deadlock). For callers that have a program but
/// no golden run (bring-up before comparing, compiler tests).
void check_races(const Config& c, const Dram& dram, const Launch& launch);

}  // namespace vta::model
