#include "vta/compiler/run/memory_split.h"

#include <fmt/format.h>

#include <string_view>
#include <variant>

#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

// Per layer cycles.total of a timing-only SystemC run of `net` on `c`.
std::vector<int64_t> layer_cycles(const NetworkResult& res) {
  std::vector<int64_t> out;
  out.reserve(res.layers.size());
  for (const auto& l : res.layers)
    out.push_back(l.stats.has("cycles.total") ? static_cast<int64_t>(l.stats.get("cycles.total")) : 0);
  return out;
}

// The same program on `c`, a variant of the memory it was compiled for (the
// program, tiles and addresses unchanged: only the port's timing differs).
std::vector<int64_t> run_variant(CompiledNetwork& net, const Config& c, const Tensor& input) {
  BackendOptions o;
  o.timing_only = true;
  auto backend = make_backend("systemc", c, o);
  net.config_hash = c.hash();
  return layer_cycles(run_network(net, *backend, input));
}

}  // namespace

bool memory_split_applies(const Config& c) { return c.memory.dram != "fixed"; }

void add_memory_split(Report& r, const CompiledNetwork& net, const Config& c, const NetworkResult& real,
                      const Tensor& input) {
  if (!memory_split_applies(c))
    fail("{}: the memory split needs a DRAM preset (memory.dram = fixed has no DRAM to split)", c.source);
  if (r.rows.size() != real.layers.size())
    fail("memory split: the report has {} rows for {} layers", r.rows.size(), real.layers.size());
  // The ideal port: the same AXI port (bus width, bursts, reads in flight)
  // with no DRAM latency; the DRAM model's own knobs back at their defaults
  // (the late memory.* knobs, as `fixed` requires: config.cpp).
  Config ideal = c, defaults;
  for (const auto& k : knobs()) {
    if (!k.late || std::string_view(k.section) != "memory" || std::string_view(k.name) == "dram") continue;
    std::visit([&](auto* dst) { *dst = *std::get<decltype(dst)>(k.ref(defaults)); }, k.ref(ideal));
  }
  ideal.memory.dram = "fixed";
  ideal.memory.read_latency = 0;
  ideal.memory.write_latency = 0;
  Config rows = c;
  rows.memory.dram_refresh = false;
  rows.memory.dram_row_timing = false;
  Config norefresh = c;
  norefresh.memory.dram_refresh = false;

  CompiledNetwork variant = net;
  const std::vector<int64_t> c0 = run_variant(variant, ideal, input);
  const std::vector<int64_t> c1 = run_variant(variant, rows, input);
  const std::vector<int64_t> c2 = c.memory.dram_refresh ? run_variant(variant, norefresh, input) : layer_cycles(real);
  const std::vector<int64_t> c3 = layer_cycles(real);
  ReportRow& t = r.total;
  t.mem_bw = t.mem_row = t.mem_refresh = 0;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    ReportRow& w = r.rows[i];
    if (!w.timed || !real.layers[i].stats.has("cycles.total")) continue;
    w.mem_bw = c1[i] - c0[i];
    w.mem_row = c2[i] - c1[i];
    w.mem_refresh = c3[i] - c2[i];
    t.mem_bw += w.mem_bw, t.mem_row += w.mem_row, t.mem_refresh += w.mem_refresh;
  }
  r.memory_basis = fmt::format(
      "{} at {} MHz ({} page{}{}) against an ideal port (memory.dram = fixed, no latency: the port's own "
      "beats); counterfactual timing-only SystemC runs: bandwidth and latency, then row misses "
      "(memory.dram_row_timing), then refresh (memory.dram_refresh)",
      c.memory.dram, c.clock.mhz, c.memory.page_policy, c.memory.dram_refresh ? "" : ", refresh off",
      c.memory.dram_row_timing ? "" : ", row timing off");
}

}  // namespace vta::compiler
