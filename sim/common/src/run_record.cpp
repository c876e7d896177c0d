#include "vta/sim/run_record.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "vta/isa/error.h"
#include "vta/isa/write_file.h"
#include "vta/model/golden.h"

namespace vta::sim {

using isa::Member;
using isa::Opcode;
using model::Module;

namespace {

// Host-link cycles of one copy of `bytes` (zero for an edge SoC's shared DRAM).
uint64_t host_copy_cycles(const Config& c, uint64_t bytes) {
  if (c.host.link != "pcie" || bytes == 0) return 0;
  const double seconds = c.host.setup_us * 1e-6 + static_cast<double>(bytes) / (c.host.bandwidth_gbps * 1e9);
  return static_cast<uint64_t>(std::ceil(seconds * c.clock.mhz * 1e6));
}

// Per-module sums over a set of instructions.
struct ModuleSums {
  uint64_t busy[3] = {}, wait_token[3] = {}, wait_memory[3] = {}, insns[3] = {};
  uint64_t gemm_active = 0, alu_active = 0, wait_hazard = 0;
  uint64_t first_start = UINT64_MAX, last_end = 0;
  void add(const Config& c, const Timing& t, const model::Program& prog, uint32_t i, const InsnRecord& r) {
    const auto m = static_cast<size_t>(prog.module[i]);
    busy[m] += r.end - r.start;
    wait_token[m] += r.wait_token;
    wait_memory[m] += r.wait_memory;
    wait_hazard += r.wait_hazard;
    ++insns[m];
    const auto op = prog.insns[i].opcode();
    if (op == Opcode::GEMM) gemm_active += model::work_of(c, prog.insns[i]).uop_iters;
    if (op == Opcode::ALU) alu_active += t.alu_active_cycles(prog.insns[i]);
    first_start = std::min(first_start, r.start);
    last_end = std::max(last_end, r.end);
  }
  void publish(Stats& s, uint64_t span, bool concurrent) const {
    s.set("cycles.total", span);
    for (int m = 0; m < 3; ++m) {
      const std::string n = model::module_name(static_cast<Module>(m));
      s.set(n + ".busy", busy[m]);
      s.set(n + ".wait_token", wait_token[m]);
      s.set(n + ".wait_memory", wait_memory[m]);
      s.set(n + ".idle", span > busy[m] + wait_token[m] ? span - busy[m] - wait_token[m] : 0);
    }
    s.set("gemm.active_cycles", gemm_active);
    s.set("alu.active_cycles", alu_active);
    if (concurrent) s.set("compute.wait_hazard", wait_hazard);  // only then: other runs keep their stat list
  }
};

}  // namespace

void publish_run(const Config& c, const Timing& t, const model::Program& prog, const RunRecord& r, RunStats& out) {
  out = RunStats{};
  model::Counters total;
  ModuleSums sums;
  std::vector<model::Counters> rc(prog.regions.size());
  std::vector<ModuleSums> rs(prog.regions.size());
  for (uint32_t i = 0; i < prog.insns.size(); ++i) {
    total.add(c, prog.insns[i]);
    sums.add(c, t, prog, i, r.insns[i]);
    if (prog.region[i] != model::Program::kNoRegion) {
      rc[prog.region[i]].add(c, prog.insns[i]);
      rs[prog.region[i]].add(c, t, prog, i, r.insns[i]);
    }
  }
  // Tokens pushed: replay the pushes.
  model::TokenCounts tokens{};
  for (uint32_t i = 0; i < prog.insns.size(); ++i) {
    model::TokenCounts before = tokens;
    model::push_tokens(prog, i, tokens, total.tokens_pushed);
    if (prog.region[i] != model::Program::kNoRegion)
      for (size_t q = 0; q < 4; ++q) rc[prog.region[i]].tokens_pushed[q] += tokens[q] - before[q];
  }
  Stats& s = out.total;
  sums.publish(s, r.cycles, c.alu.concurrent);
  s.set("time_ns", static_cast<uint64_t>(std::llround(static_cast<double>(r.cycles) * 1000.0 / c.clock.mhz)));
  s.set("fetch.busy", r.fetch_end);
  s.set("fetch.wait_memory", r.fetch_wait_memory);
  s.set("fetch.wait_queue", r.fetch_wait_queue);
  s.set("memory.read_beats", r.read_beats);
  s.set("memory.write_beats", r.write_beats);
  s.set("memory.read_utilization_permille", r.cycles ? r.read_beats * 1000 / r.cycles : 0);
  s.set("memory.write_utilization_permille", r.cycles ? r.write_beats * 1000 / r.cycles : 0);
  if (r.dram) {  // DRAM commands and what each burst found in its bank
    s.set("memory.dram.activates", r.dram->act);
    s.set("memory.dram.precharges", r.dram->pre);
    s.set("memory.dram.read_bursts", r.dram->rd);
    s.set("memory.dram.write_bursts", r.dram->wr);
    s.set("memory.dram.refreshes", r.dram->ref);
    s.set("memory.dram.row_hits", r.dram->row_hits);
    s.set("memory.dram.row_misses", r.dram->row_misses);
    s.set("memory.dram.row_conflicts", r.dram->row_conflicts);
  }
  total.publish(s);
  uint64_t dram_bytes = 0;
  for (const auto& [k, v] : s.items())
    if (k == "dram.read_bytes") dram_bytes = v;
  s.set("host.to_device_cycles", host_copy_cycles(c, dram_bytes));
  s.set("host.from_device_cycles", host_copy_cycles(c, s.get("dram.write_bytes.OUT")));
  for (size_t g = 0; g < prog.regions.size(); ++g) {
    Stats rsx;
    const uint64_t span =
        rs[g].last_end > rs[g].first_start && rs[g].first_start != UINT64_MAX ? rs[g].last_end - rs[g].first_start : 0;
    rs[g].publish(rsx, span, c.alu.concurrent);
    rc[g].publish(rsx);
    out.regions.emplace_back(prog.regions[g].name, std::move(rsx));
  }
}

void write_trace(const std::string& path, const Config& c, const isa::Layout& layout, const model::Program& prog,
                 const RunRecord& r, uint64_t limit) {
  using nlohmann::ordered_json;
  ordered_json events = ordered_json::array();
  uint64_t dropped = 0;
  auto emit = [&](ordered_json e) {
    if (events.size() >= limit)
      ++dropped;
    else
      events.push_back(std::move(e));
  };
  const char* tracks[] = {"fetch", "load", "compute", "store", "memory port"};
  for (int t = 0; t < 5; ++t)
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", t}, {"args", {{"name", tracks[t]}}}});
  // Queue occupancy changes: (time, queue, delta). Pops at issue, pushes at completion.
  struct Change {
    uint64_t time;
    int queue;  // 0..3 token queues, 4..6 command queues
    int delta;
  };
  std::vector<Change> changes;
  for (uint32_t i = 0; i < prog.insns.size(); ++i) {
    const InsnRecord& ir = r.insns[i];
    const int m = static_cast<int>(prog.module[i]);
    emit({{"name", layout.disasm(prog.insns[i])},
          {"ph", "X"},
          {"pid", 1},
          {"tid", m + 1},
          {"ts", ir.start},
          {"dur", std::max<uint64_t>(ir.end - ir.start, 1)},
          {"args", {{"index", i}, {"wait_token", ir.wait_token}, {"wait_memory", ir.wait_memory}}}});
    changes.push_back({ir.avail, 4 + m, +1});
    changes.push_back({ir.start, 4 + m, -1});
    model::TokenCounts pops{}, pushes{};
    model::pop_tokens(prog, i, pops);  // from zero: a popped queue shows as non-zero
    model::push_tokens(prog, i, pushes);
    for (int q = 0; q < 4; ++q) {
      if (pops[q] != 0) changes.push_back({ir.start, q, -1});
      if (pushes[q] != 0) changes.push_back({ir.end, q, +1});
    }
  }
  for (const auto& b : r.bursts)
    emit({{"name", fmt::format("{} {}", client_name(b.client), b.write ? "write" : "read")},
          {"ph", "X"},
          {"pid", 1},
          {"tid", 4},
          {"ts", b.data_start},
          {"dur", std::max<uint64_t>(b.data_end - b.data_start, 1)},
          {"args", {{"granted", b.grant}}}});
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.time < b.time; });
  const char* qnames[] = {"tokens load->compute",  "tokens compute->load", "tokens compute->store",
                          "tokens store->compute", "cmd queue load",       "cmd queue compute",
                          "cmd queue store"};
  int level[7] = {};
  for (const auto& ch : changes) {
    level[ch.queue] += ch.delta;
    emit({{"name", qnames[ch.queue]},
          {"ph", "C"},
          {"pid", 1},
          {"ts", ch.time},
          {"args", {{"entries", level[ch.queue]}}}});
  }
  ordered_json doc;
  doc["traceEvents"] = events;
  doc["displayTimeUnit"] = "ns";
  doc["otherData"] = {{"tool", "vta-lab"},         {"config", c.name},
                      {"config_hash", c.hash()},   {"time_unit", "1 trace microsecond = 1 clock cycle"},
                      {"cycles", r.cycles},        {"truncated", dropped > 0},
                      {"dropped_events", dropped}, {"event_limit", limit}};
  write_file(path, doc.dump() + "\n", "--trace");
}

}  // namespace vta::sim
