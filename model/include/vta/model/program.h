#pragma once
// A program as every backend sees it: the instructions fetched from DRAM,
// decoded once with the config's layout, checked statically (opcodes, memory
// types, dependency flags against the module that runs them, extensions,
// FINISH last) and assigned to the load / compute / store modules.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/fields.h"
#include "vta/model/backend.h"

namespace vta::model {

enum class Module : uint8_t { LOAD = 0, COMPUTE = 1, STORE = 2 };
const char* module_name(Module m);

/// The four dependency-token queues, named by producer -> consumer.
enum class TokenQueue : uint8_t { L2C = 0, C2L = 1, C2S = 2, S2C = 3 };
const char* queue_name(TokenQueue q);

/// Which module runs `insn` (as upstream's fetch dispatches it).
Module module_of(const isa::Insn& insn);

/// The queue module `m` pops from (pop_prev: next=false, pop_next: next=true)
/// and pushes to; false when the module has no such neighbour.
bool pop_queue(Module m, bool next, TokenQueue& q);
bool push_queue(Module m, bool next, TokenQueue& q);

struct Program {
  std::vector<isa::Insn> insns;
  std::vector<Module> module;    // per instruction
  std::vector<uint16_t> region;  // per instruction: index into regions, or kNoRegion
  std::vector<Region> regions;
  static constexpr uint16_t kNoRegion = 0xffff;
};

/// Fetches and decodes `launch` from `dram` and checks it statically.
/// Throws vta::Error naming the instruction index and its disassembly.
Program fetch_program(const Config& c, const isa::Layout& layout, const Dram& dram, const Launch& launch);

/// Steps of one instruction for the run-time budget: 1 + its uop
/// iterations + the SRAM elements it moves (work_of).
uint64_t steps_of(const Config& c, const isa::Insn& insn);
/// Throws vta::Error naming the first instruction (in program order) by which
/// `prog` exceeds `max_steps` steps (BackendOptions::max_steps), before
/// anything runs: a loop count of 2^28 per instruction is refused up front,
/// not simulated for hours.
void check_step_budget(const Config& c, const isa::Layout& layout, const Program& prog, uint64_t max_steps);

/// Data-independent work of one instruction (used for stats and timing).
struct InsnWork {
  uint64_t uop_iters = 0;   // GEMM/ALU: iter_out * iter_in * (uop_end - uop_bgn)
  uint64_t dram_elems = 0;  // LOAD/STORE: y_size * x_size
  uint64_t sram_elems = 0;  // LOAD: elements written incl. padding
  uint64_t dram_bytes = 0;  // LOAD/STORE: bytes moved to/from DRAM
};
InsnWork work_of(const Config& c, const isa::Insn& insn);

/// Occupancy of the four dependency-token queues, indexed by TokenQueue.
using TokenCounts = std::array<uint64_t, 4>;

/// True when instruction `i` cannot issue with these token counts: it pops an
/// empty queue (`is_pop`) or pushes to a full one (`token_depth` entries).
/// `q` is the queue it waits on. Every model uses this one rule.
bool blocked_on_tokens(const Program& prog, uint32_t i, const TokenCounts& tokens, uint64_t token_depth, TokenQueue& q,
                       bool& is_pop);
/// Pops instruction `i`'s tokens (call when it issues).
void pop_tokens(const Program& prog, uint32_t i, TokenCounts& tokens);
/// Pushes instruction `i`'s tokens (call when it completes); adds to `pushed`
/// (per queue) when given.
void push_tokens(const Program& prog, uint32_t i, TokenCounts& tokens, uint64_t* pushed = nullptr);

/// Throws the deadlock report every model gives: for each module whose
/// command queue is not empty, its head instruction (`heads[m]`, -1 when
/// empty) and the queue it waits on; and fetch, when instructions from
/// `fetched` on could not be dispatched.
[[noreturn]] void fail_deadlock(const Config& c, const isa::Layout& layout, const Program& prog, uint32_t done,
                                const std::array<int64_t, 3>& heads, const TokenCounts& tokens, uint32_t fetched);

/// The order in which the golden model's rule runs a program: fetch
/// dispatches in program order into the three command queues (each
/// `queues.command_depth` deep), and at each step the ready queue head with
/// the lowest program index runs (ready: its pops available, room for its
/// pushes). The order depends only on the instructions, never on data, so
/// every model (and the OpenCL host) computes it once up front.
struct Schedule {
  std::vector<uint32_t> order;  // instruction indices in execution order
  /// True when the program stalls after `order`: the state fail_deadlock
  /// reports (queue heads, token counts, first instruction not fetched).
  bool deadlock = false;
  std::array<int64_t, 3> heads{-1, -1, -1};
  TokenCounts tokens{};
  uint32_t fetched = 0;
};
Schedule schedule(const Config& c, const Program& prog);
/// Throws the deadlock report of `s` (see fail_deadlock) when it deadlocked;
/// call it after running the instructions of `s.order`, as the models do.
void check_deadlock(const Config& c, const isa::Layout& layout, const Program& prog, const Schedule& s);

/// "instruction 12 (GEMM uop_bgn=0 ...)" for messages.
std::string insn_label(const isa::Layout& layout, const isa::Insn& insn, int64_t index);

}  // namespace vta::model
