#pragma once
// What a cycle model records about one run, and the two things made from it:
// the named stats (totals and per region) and the Chrome/Perfetto trace.
// Shared by the SystemC and RTL backends so that they report alike.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/model/program.h"
#include "vta/model/stats.h"
#include "vta/sim/dram/controller.h"
#include "vta/sim/timing.h"

namespace vta::sim {

/// Cycle times of one instruction, relative to the run's start.
struct InsnRecord {
  uint64_t avail = 0;        // dispatched into its module's command queue
  uint64_t start = 0;        // issued (tokens popped)
  uint64_t end = 0;          // completed (tokens pushed)
  uint64_t wait_token = 0;   // at the head of its queue, waiting for tokens
  uint64_t wait_memory = 0;  // DMA cycles not moving its own data (latency, other clients)
  // alu.concurrent, compute: cycles at the head of the queue before the token
  // check, for the uop scan, its pipe and the bank scoreboard (or, for another
  // compute instruction, the two pipes draining).
  uint64_t wait_hazard = 0;
};

/// One burst on the memory port (recorded only when tracing).
struct BurstRecord {
  Client client;
  bool write;
  uint64_t grant, data_start, data_end;
};

struct RunRecord {
  uint64_t cycles = 0;  // the run's length: the last instruction's end
  std::vector<InsnRecord> insns;
  std::vector<BurstRecord> bursts;
  uint64_t read_beats = 0, write_beats = 0;
  uint64_t fetch_wait_memory = 0;  // fetch waiting for instruction data
  uint64_t fetch_wait_queue = 0;   // fetch stalled by a full command queue
  uint64_t fetch_end = 0;          // the last dispatch
  // With a DRAM preset (memory.dram): the DRAM model's counters up to the
  // run's last cycle (DramPort::stats_at(cycles)).
  std::optional<dram::Stats> dram;
};

/// Publishes the golden counters plus cycles, per-module busy / wait_token /
/// wait_memory / idle, GEMM and ALU active cycles, memory-port beats and
/// utilisation, host-link cycles, and the same per region; with a DRAM
/// preset also the DRAM model's counters (memory.dram.*, totals only).
void publish_run(const Config& c, const Timing& t, const model::Program& prog, const RunRecord& r, RunStats& out);

/// Writes a Chrome/Perfetto trace JSON: a track per module and for the memory
/// port, a slice per instruction (named by its disassembly), counters for the
/// token and command queues. At most `limit` events; the file says when cut.
void write_trace(const std::string& path, const Config& c, const isa::Layout& layout, const model::Program& prog,
                 const RunRecord& r, uint64_t limit);

}  // namespace vta::sim
