#pragma once
// Hand-built request sequences for the DRAM model's tests: a controller
// with a command trace, and a toy device whose timings are distinct round
// numbers, so that each test can name the one constraint that binds.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "vta/sim/dram/controller.h"
#include "vta/sim/dram/spec.h"

namespace dram_rig {

using namespace vta::sim::dram;

inline Options no_refresh() {
  Options o;
  o.refresh = false;
  return o;
}

/// DDR4-2400's organisation (2 bank groups x 4 banks) with timings chosen so
/// that no two constraints coincide.
inline Spec toy() {
  Spec s = resolve(preset("ddr4-2400"));
  s.name = "toy";
  Timings& t = s.t;
  t.cl = 10, t.cwl = 8, t.rcd = 12, t.rp = 14, t.ras = 30, t.rc = 50;
  t.rrd_s = 4, t.rrd_l = 6, t.faw = 40, t.ccd_s = 4, t.ccd_l = 7;
  t.wr = 15, t.wtr_s = 3, t.wtr_l = 9, t.rtp = 8, t.rtrs = 2, t.burst = 4;
  t.refi = 2000, t.rfc = 200;
  return s;
}

inline Location at(uint32_t bg, uint32_t bank, uint32_t row, uint32_t col = 0, uint32_t rank = 0) {
  return Location{0, rank, bg, bank, row, col};
}

struct Rig {
  Spec s;
  Controller c;
  std::vector<Command> trace;
  std::vector<BurstDone> done;

  explicit Rig(const Spec& spec, const Options& o = no_refresh()) : s(spec), c(s, o) { c.trace(&trace); }

  uint64_t read(const Location& l, uint64_t arrive = 0) {
    return c.submit(Request{c.mapping().address(l), s.burst_bytes(), false, arrive});
  }
  uint64_t write(const Location& l, uint64_t arrive = 0) {
    return c.submit(Request{c.mapping().address(l), s.burst_bytes(), true, arrive});
  }
  /// Runs until every burst is known.
  void run() {
    c.drain();
    c.take_done(done);
  }
  /// Cycle of the n-th command of kind k (in issue order), optionally in one bank.
  uint64_t when(Cmd k, size_t n = 0, const Location* in = nullptr) const {
    std::vector<uint64_t> hits;
    for (const Command& m : trace)
      if (m.cmd == k && (!in || (m.rank == in->rank && m.bankgroup == in->bankgroup && m.bank == in->bank)))
        hits.push_back(m.cycle);
    std::sort(hits.begin(), hits.end());
    if (n >= hits.size()) {
      ADD_FAILURE() << "no " << cmd_name(k) << " #" << n;
      return UINT64_MAX;
    }
    return hits[n];
  }
  size_t count(Cmd k) const {
    return static_cast<size_t>(std::count_if(trace.begin(), trace.end(), [k](const Command& m) { return m.cmd == k; }));
  }
  uint64_t done_of(uint64_t request) const {
    uint64_t d = 0;
    for (const BurstDone& b : done)
      if (b.request == request) d = std::max(d, b.done);
    return d;
  }
};

}  // namespace dram_rig
