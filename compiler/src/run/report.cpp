#include "vta/compiler/run/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "vta/compiler/schedule/host_cost.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/isa/host_cpu.h"

namespace vta::compiler {

namespace {

std::string shape_text(const Shape& s) { return fmt::format("{}x{}x{}x{}", s.n, s.c, s.h, s.w); }

// The median of a non-empty list (the mean of the middle two of an even one).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

CostModelError cost_model_error(const std::vector<ReportRow>& rows) {
  CostModelError e;
  std::vector<double> errs;
  for (const auto& w : rows) {
    if (std::isnan(w.est_err_pct)) continue;
    const double a = std::abs(w.est_err_pct);
    errs.push_back(a);
    if (a >= e.worst_abs_pct) e.worst_abs_pct = a, e.worst_layer = w.layer;
  }
  e.layers = static_cast<int>(errs.size());
  if (!errs.empty()) e.median_abs_pct = median(std::move(errs));
  return e;
}

HostModelRatio host_model_ratio(const std::vector<ReportRow>& rows) {
  HostModelRatio h;
  std::vector<double> ratios;
  for (const auto& w : rows) {
    if (w.device != "host" || !w.copy.empty() || w.host_ms <= 0 || w.host_model_ms <= 0) continue;
    const double r = w.host_model_ms / w.host_ms;
    ratios.push_back(r);
    if (h.worst == 0 || std::abs(std::log(r)) > std::abs(std::log(h.worst))) h.worst = r, h.worst_layer = w.layer;
  }
  h.layers = static_cast<int>(ratios.size());
  if (!ratios.empty()) h.median = median(std::move(ratios));
  return h;
}

}  // namespace

Report make_report(const CompiledNetwork& net, const NetworkResult& res, const Config& c, const std::string& backend) {
  Report r;
  r.network = net.graph.name;
  r.config_name = c.name;
  r.config_hash = c.hash();
  r.concurrent_alu = c.alu.concurrent;
  r.backend = backend;
  r.compile_seconds = net.compile_seconds;
  r.run_seconds = res.wall_seconds;
  const double mac_per_cycle = static_cast<double>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out);
  const double bus = static_cast<double>(c.memory.bus_bits) / 8.0;
  uint64_t vta_macs = 0, vta_cycles = 0, vta_bound = 0;
  for (const auto& l : res.layers) {
    const Node& n = net.graph.at(l.node);
    ReportRow row;
    row.layer = n.name;
    row.op = op_name(n.op);
    row.device = device_name(n.device);
    row.in_shape = n.inputs.empty() ? "" : shape_text(net.graph.at(n.inputs[0]).out);
    row.out_shape = shape_text(n.out);
    row.macs = n.inputs.empty() ? 0 : n.macs(net.graph.at(n.inputs[0]).out);
    row.copy_bytes = l.copy_in_bytes;
    row.host_ms = l.host_seconds * 1e3;
    row.host_model_ms = host_model_us(net.graph, l.node, c) / 1e3;
    if (n.device == Device::Host) row.host_reason = host_reason(net.graph, n, c);
    if (n.op == Op::DeviceCopy)
      row.copy = fmt::format("{}->{}", device_name(net.graph.at(n.inputs.at(0)).device),
                             device_name(copy_target(net.graph, n)));
    if (auto it = net.layers.find(l.node); it != net.layers.end() && n.op != Op::Add) {
      row.tile = fmt::format("{}x{} oc{} ic{}", it->second.tile.th, it->second.tile.tw, it->second.tile.toc,
                             it->second.tile.tic);
      if (n.op == Op::Conv2d || n.op == Op::Dense) row.est_cycles = it->second.tile.est_cycles;
    }
    const Stats& s = l.stats;
    row.bytes_inp = s.get("dram.read_bytes.INP") + s.get("dram.read_bytes.ACC_8BIT");
    row.bytes_wgt = s.get("dram.read_bytes.WGT");
    row.bytes_acc = s.get("dram.read_bytes.ACC");
    row.bytes_uop = s.get("dram.read_bytes.UOP");
    row.bytes_out = s.get("dram.write_bytes.OUT");
    const double bytes =
        static_cast<double>(row.bytes_inp + row.bytes_wgt + row.bytes_acc + row.bytes_uop + row.bytes_out);
    row.roofline = static_cast<uint64_t>(std::max(static_cast<double>(row.macs) / mac_per_cycle, bytes / bus));
    row.timed = s.has("cycles.total");
    if (row.timed) {
      row.cycles = s.get("cycles.total");
      row.load = s.get("load.busy");
      row.gemm = s.get("gemm.active_cycles");
      row.alu = s.get("alu.active_cycles");
      row.store = s.get("store.busy");
      row.stall = s.get("compute.wait_token");
      row.time_us = static_cast<double>(row.cycles) / c.clock.mhz;
      row.util =
          row.cycles ? 100.0 * static_cast<double>(row.macs) / (static_cast<double>(row.cycles) * mac_per_cycle) : 0;
      row.gops = row.time_us > 0 ? 2.0 * static_cast<double>(row.macs) / (row.time_us * 1e3) : 0;
      if (n.device == Device::Vta) {
        vta_macs += static_cast<uint64_t>(row.macs), vta_cycles += row.cycles;
        vta_bound += std::max(row.roofline, c.alu.concurrent ? std::max(row.gemm, row.alu) : row.gemm + row.alu);
      }
      if (row.est_cycles >= 0 && row.cycles > 0)
        row.est_err_pct = 100.0 * (row.est_cycles - static_cast<double>(row.cycles)) / static_cast<double>(row.cycles);
    }
    ReportRow& t = r.total;
    t.macs += row.macs;
    t.cycles += row.cycles, t.load += row.load, t.gemm += row.gemm, t.alu += row.alu, t.store += row.store;
    t.stall += row.stall;
    t.bytes_inp += row.bytes_inp, t.bytes_wgt += row.bytes_wgt, t.bytes_acc += row.bytes_acc;
    t.bytes_uop += row.bytes_uop, t.bytes_out += row.bytes_out, t.copy_bytes += row.copy_bytes;
    t.roofline += row.roofline;
    t.host_ms += row.host_ms;
    t.host_model_ms += row.host_model_ms;
    t.timed = t.timed || row.timed;
    r.rows.push_back(std::move(row));
  }
  r.cost_model = cost_model_error(r.rows);
  r.host_ratio = host_model_ratio(r.rows);
  r.host_cpu = host_cpu_summary(c);
  r.device_runs = res.segments_run;
  r.syncs = res.syncs;
  ReportRow& t = r.total;
  t.layer = "total";
  t.time_us = static_cast<double>(t.cycles) / c.clock.mhz;
  t.util = vta_cycles ? 100.0 * static_cast<double>(vta_macs) / (static_cast<double>(vta_cycles) * mac_per_cycle) : 0;
  t.gops = t.time_us > 0 ? 2.0 * static_cast<double>(t.macs) / (t.time_us * 1e3) : 0;
  r.util_bound =
      vta_bound ? 100.0 * static_cast<double>(vta_macs) / (static_cast<double>(vta_bound) * mac_per_cycle) : 0;
  return r;
}

std::string report_table(const Report& r) {
  std::string out = fmt::format("{} on {} ({}, config hash {}), backend {}, {}\n", r.network, r.config_name,
                                r.tool.empty() ? "vta-lab" : r.tool, r.config_hash, r.backend,
                                !r.check_text.empty() && r.check_text != "pass" && r.check_text != "FAIL"
                                    ? "output check " + r.check_text
                                : r.check_passed ? "output bit-exact with the integer reference"
                                                 : "OUTPUT MISMATCH");
  out += fmt::format(
      "{:<16} {:<15} {:<4} {:<16} {:>11} {:>10} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10} {:>6} "
      "{:>9} {:>7}\n",
      "layer", "op", "dev", "out", "MACs", "cycles", "load", "GEMM", "ALU", "store", "stall", "DRAM KiB", "copy KiB",
      "host ms", "model ms", "roofline", "util%", "time us", "GOPS");
  const bool energy = r.total.energy_uj >= 0;
  if (energy) out.insert(out.size() - 1, fmt::format(" {:>10}", "energy uJ"));
  const bool split = r.total.mem_split();
  if (split) out.insert(out.size() - 1, fmt::format(" {:>9} {:>8} {:>8}", "mem bw", "mem row", "refresh"));
  auto line = [&](const ReportRow& w) {
    const double kib =
        static_cast<double>(w.bytes_inp + w.bytes_wgt + w.bytes_acc + w.bytes_uop + w.bytes_out) / 1024.0;
    auto cyc = [&](uint64_t v) { return w.timed ? fmt::format("{}", v) : std::string("-"); };
    // a device copy's direction: h>v (host to VTA) or v>h
    const std::string dev = w.copy.empty() ? w.device : w.copy == "host->vta" ? "h>v" : "v>h";
    out += fmt::format(
        "{:<16} {:<15} {:<4} {:<16} {:>11} {:>10} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9.1f} {:>9.1f} {:>9.2f} {:>9.3f} "
        "{:>10} {:>6.1f} {:>9.1f} {:>7.1f}\n",
        w.layer.substr(0, 16), w.op, dev, w.out_shape, w.macs, cyc(w.cycles), cyc(w.load), cyc(w.gemm), cyc(w.alu),
        cyc(w.store), cyc(w.stall), kib, static_cast<double>(w.copy_bytes) / 1024.0, w.host_ms, w.host_model_ms,
        w.roofline, w.util, w.time_us, w.gops);
    if (energy)
      out.insert(out.size() - 1,
                 w.energy_uj >= 0 ? fmt::format(" {:>10.2f}", w.energy_uj) : fmt::format(" {:>10}", "-"));
    if (split)
      out.insert(out.size() - 1, w.mem_split() ? fmt::format(" {:>9} {:>8} {:>8}", w.mem_bw, w.mem_row, w.mem_refresh)
                                               : fmt::format(" {:>9} {:>8} {:>8}", "-", "-", "-"));
  };
  for (const auto& w : r.rows) line(w);
  line(r.total);
  out += fmt::format("compile {:.2f} s, run {:.2f} s (wall); GEMM-core utilisation over the VTA layers {:.1f} %",
                     r.compile_seconds, r.run_seconds, r.total.util);
  if (r.util_bound > 0)
    out += fmt::format(" (bound {:.1f} %: per layer max(roofline, {}))", r.util_bound,
                       r.concurrent_alu ? "GEMM, ALU" : "GEMM + ALU");
  out += "\n";
  double copy_ms = 0;
  int copies = 0;
  for (const auto& w : r.rows)
    if (!w.copy.empty()) copy_ms += w.host_model_ms, ++copies;
  out += fmt::format(
      "per inference: {} device run{}, {} host-device synchronisation{}, {} device cop{} ({:.1f} KiB); "
      "host model {:.3f} ms (copies {:.3f} ms; measured host {:.2f} ms); device {:.3f} ms; "
      "inference {:.3f} ms (device + host model)\n",
      r.device_runs, r.device_runs == 1 ? "" : "s", r.syncs, r.syncs == 1 ? "" : "s", copies, copies == 1 ? "y" : "ies",
      static_cast<double>(r.total.copy_bytes) / 1024.0, r.total.host_model_ms, copy_ms, r.total.host_ms,
      r.total.time_us / 1e3, r.inference_ms());
  for (const auto& w : r.rows)
    if (!w.host_reason.empty()) out += fmt::format("{} on the host: {}\n", w.layer, w.host_reason);
  if (!r.host_cpu.empty()) out += fmt::format("host model: {}\n", r.host_cpu);
  if (r.host_ratio.layers > 0)
    out += fmt::format(
        "host model against this machine's measured host time over {} host layer{}: model / measured median "
        "{:.2f}, worst {:.2f} ({})\n",
        r.host_ratio.layers, r.host_ratio.layers == 1 ? "" : "s", r.host_ratio.median, r.host_ratio.worst,
        r.host_ratio.worst_layer);
  if (energy) out += fmt::format("energy estimated from the layers' activity counters: {}\n", r.energy_basis);
  if (split) {
    const ReportRow& t = r.total;
    const int64_t lost = t.mem_bw + t.mem_row + t.mem_refresh;
    const double pct = t.cycles ? 100.0 * static_cast<double>(lost) / static_cast<double>(t.cycles) : 0.0;
    const ReportRow* worst = nullptr;
    for (const auto& w : r.rows)
      if (w.mem_split() &&
          (!worst || w.mem_bw + w.mem_row + w.mem_refresh > worst->mem_bw + worst->mem_row + worst->mem_refresh))
        worst = &w;
    out += fmt::format(
        "memory: {} of {} cycles ({:.1f} %) lost to the DRAM: bandwidth and latency {}, row misses {}, refresh {}{}; "
        "{}\n",
        lost, t.cycles, pct, t.mem_bw, t.mem_row, t.mem_refresh,
        worst ? fmt::format(" (most: {}, {})", worst->layer, worst->mem_bw + worst->mem_row + worst->mem_refresh)
              : std::string(),
        r.memory_basis);
  }
  if (r.cost_model.layers > 0)
    out += fmt::format(
        "tile cost model against the measured cycles over {} conv/dense layers: median error {:.1f} %, "
        "worst {:.1f} % ({})\n",
        r.cost_model.layers, r.cost_model.median_abs_pct, r.cost_model.worst_abs_pct, r.cost_model.worst_layer);
  return out;
}

std::string report_csv(const Report& r) {
  std::string out = fmt::format("# {} on {} (config hash {}), backend {}, {}\n", r.network, r.config_name,
                                r.config_hash, r.backend, r.tool);
  out +=
      "layer,op,device,in,out,tile,macs,cycles,load,gemm,alu,store,stall,bytes_inp,bytes_wgt,bytes_acc,bytes_uop,"
      "bytes_out,copy_bytes,roofline,util_pct,time_us,gops,host_ms,host_model_ms,energy_uj,mem_bw,mem_row,mem_"
      "refresh\n";
  auto line = [&](const ReportRow& w) {
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.2f},{:.3f},{:.3f},{:.3f},{:.6f}\n",
                    w.layer, w.op, w.device, w.in_shape, w.out_shape, w.tile, w.macs, w.cycles, w.load, w.gemm, w.alu,
                    w.store, w.stall, w.bytes_inp, w.bytes_wgt, w.bytes_acc, w.bytes_uop, w.bytes_out, w.copy_bytes,
                    w.roofline, w.util, w.time_us, w.gops, w.host_ms, w.host_model_ms);
    out.insert(out.size() - 1, w.energy_uj >= 0 ? fmt::format(",{:.4f}", w.energy_uj) : std::string(","));
    out.insert(out.size() - 1,
               w.mem_split() ? fmt::format(",{},{},{}", w.mem_bw, w.mem_row, w.mem_refresh) : std::string(",,,"));
  };
  for (const auto& w : r.rows) line(w);
  line(r.total);
  return out;
}

nlohmann::ordered_json report_json(const Report& r) {
  auto row = [](const ReportRow& w) {
    nlohmann::ordered_json j{{"layer", w.layer},         {"op", w.op},
                             {"device", w.device},       {"in", w.in_shape},
                             {"out", w.out_shape},       {"tile", w.tile},
                             {"macs", w.macs},           {"timed", w.timed},
                             {"cycles", w.cycles},       {"load", w.load},
                             {"gemm", w.gemm},           {"alu", w.alu},
                             {"store", w.store},         {"stall", w.stall},
                             {"bytes_inp", w.bytes_inp}, {"bytes_wgt", w.bytes_wgt},
                             {"bytes_acc", w.bytes_acc}, {"bytes_uop", w.bytes_uop},
                             {"bytes_out", w.bytes_out}, {"copy_bytes", w.copy_bytes},
                             {"roofline", w.roofline},   {"util_pct", w.util},
                             {"time_us", w.time_us},     {"gops", w.gops},
                             {"host_ms", w.host_ms},     {"host_model_ms", w.host_model_ms}};
    if (!w.copy.empty()) j["copy"] = w.copy;
    if (!w.host_reason.empty()) j["host_reason"] = w.host_reason;
    if (w.energy_uj >= 0) j["energy_uj"] = w.energy_uj;
    if (w.est_cycles >= 0) j["est_cycles"] = w.est_cycles;
    if (!std::isnan(w.est_err_pct)) j["est_err_pct"] = w.est_err_pct;
    if (w.mem_split())
      j["memory_split"] = {{"bandwidth", w.mem_bw}, {"row_miss", w.mem_row}, {"refresh", w.mem_refresh}};
    return j;
  };
  nlohmann::ordered_json j;
  j["tool"] = r.tool;
  j["network"] = r.network;
  j["config"] = r.config_name;
  j["config_hash"] = r.config_hash;
  j["backend"] = r.backend;
  j["check"] = !r.check_text.empty() ? r.check_text : r.check_passed ? "pass" : "FAIL";
  j["compile_seconds"] = r.compile_seconds;
  j["run_seconds"] = r.run_seconds;
  if (r.total.energy_uj >= 0) j["energy_basis"] = r.energy_basis;
  j["layers"] = nlohmann::ordered_json::array();
  for (const auto& w : r.rows) j["layers"].push_back(row(w));
  j["total"] = row(r.total);
  j["device_runs"] = r.device_runs;
  j["syncs"] = r.syncs;
  j["host_model_ms"] = r.total.host_model_ms;
  j["inference_ms"] = r.inference_ms();
  if (!r.memory_basis.empty()) j["memory_split_basis"] = r.memory_basis;
  if (!r.host_cpu.empty()) j["host_cpu"] = r.host_cpu;
  if (r.host_ratio.layers > 0)
    j["host_model_vs_measured"] = {{"layers", r.host_ratio.layers},
                                   {"median_ratio", r.host_ratio.median},
                                   {"worst_ratio", r.host_ratio.worst},
                                   {"worst_layer", r.host_ratio.worst_layer}};
  if (r.cost_model.layers > 0)
    j["cost_model"] = {{"layers", r.cost_model.layers},
                       {"median_abs_err_pct", r.cost_model.median_abs_pct},
                       {"worst_abs_err_pct", r.cost_model.worst_abs_pct},
                       {"worst_layer", r.cost_model.worst_layer}};
  return j;
}

}  // namespace vta::compiler
