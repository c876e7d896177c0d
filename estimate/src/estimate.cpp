// The resource model: one row per component of the RTL core (sim/rtl/src),
// each priced from its shape with the costs of unit_costs.cpp.
#include "vta/estimate/estimate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fmax.h"
#include "memory_map.h"
#include "unit_costs.h"
#include "vta/isa/error.h"
#include "vta/isa/microarch.h"

namespace vta::estimate {

namespace {

// A count as text: whole numbers without decimals, halves (RAMB18) with one.
std::string count_text(double v) { return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v); }

int clog2(int64_t v) {
  int n = 0;
  while ((int64_t{1} << n) < v) ++n;
  return n;
}

// The family and device the options name (see EstimateOptions).
std::pair<Family, std::optional<Device>> resolve_target(const EstimateOptions& o) {
  std::optional<Device> dev;
  if (!o.device.empty()) dev = find_device(o.device);
  if (o.family.empty()) return {dev ? dev->family : Family::xc7, dev};
  Family f = parse_family(o.family);
  if (dev && dev->family != f)
    fail("device '{}' is of family {}, not {}", dev->name, family_name(dev->family), family_name(f));
  return {f, dev};
}

struct Builder {
  Builder(Family family, int64_t bus_bits, MapPolicy p) : f(family), dsp(dsp_costs(family, bus_bits)), policy(p) {}
  Family f;
  const LogicCosts& lc = logic_costs();
  DspCosts dsp;
  MapPolicy policy;
  std::vector<Component> rows;

  // LUT/FF of `k` for `instances` copies and `units` units, in the family's terms.
  Resources logic(const LogicCost& k, double instances, double units) const {
    Resources r;
    const double lut = k.lut.fixed * instances + k.lut.per_unit * units;
    const double ff = k.ff.fixed * instances + k.ff.per_unit * units;
    r.ff = ff;
    if (is_xilinx(f)) {
      r.lut = lut;
    } else if (is_lattice(f)) {
      const LatticeLogic ll = lattice_logic();
      r.lut = lut * ll.lut4_per_lut;
      r.ff = ff * ll.ff_per_ff;
    } else {
      const IntelLogic il = intel_logic();
      r.alm = std::max(lut / il.lut_per_alm, ff / il.ff_per_alm);
    }
    return r;
  }

  void add(std::string name, std::string detail, double units, std::string unit, Resources res, double lutram = 0) {
    rows.push_back({std::move(name), std::move(detail), units, std::move(unit), res, lutram});
  }

  void buffer(const std::string& name, const BufferShape& b) {
    MemoryMap m = map_buffer(b, f, policy);
    add(name, m.detail, static_cast<double>(b.width * b.depth * b.banks), "bits", m.res, m.lutram);
  }

  // A DMA engine whose SRAM-side data path is `bits` wide; load engines
  // also hold the address multiplies.
  void dma(const std::string& name, const std::string& what, int64_t elem_bytes, int64_t beat_bytes, bool load) {
    const int64_t bits = std::max(elem_bytes, beat_bytes) * 8;
    Resources r = logic(lc.dma, 1, static_cast<double>(bits));
    if (load) r.dsp = dsp.per_dma_engine;
    add(name, fmt::format("{}: {}-byte elements over a {}-byte beat", what, elem_bytes, beat_bytes),
        static_cast<double>(bits), "data-path bits", r);
  }
};

}  // namespace

Estimate estimate(const Config& c, const EstimateOptions& o) {
  // Not a structured binding: lambdas below capture `device` (clang 14, the
  // fuzz preset's compiler, cannot capture a structured binding).
  const auto target = resolve_target(o);
  const Family family = target.first;
  const std::optional<Device>& device = target.second;
  const bool xcup_uram = family == Family::xcup && (!device || device->budget.uram > 0);
  Builder b(family, c.memory.bus_bits, {o.use_uram && xcup_uram, o.uram_min_bytes});

  const int64_t batch = c.gemm.batch, bi = c.gemm.block_in, bo = c.gemm.block_out;
  const int64_t n = batch * bo;  // accumulator lanes
  const int64_t macs = batch * bi * bo;
  const int64_t beat = c.memory.bus_bits / 8;
  const auto& d = c.derived;

  // GEMM: MACs at the operand widths; the block_in products of one output
  // chain through the DSP cascade, so DSPs scale with MACs and fabric only
  // with outputs, unless the products are too narrow for a DSP
  // (unit_costs.cpp, mac_cost).
  {
    const MacCost mc = mac_cost(family, c.dtype.inp_bits, c.dtype.wgt_bits, o.pack_int8);
    Resources r = b.logic(b.lc.mac_array, 0, static_cast<double>(macs));
    r.dsp = static_cast<double>(macs) * mc.dsp;
    const double fabric = static_cast<double>(macs) * mc.lut;
    if (is_xilinx(family) || is_lattice(family))
      r.lut += fabric;
    else
      r.alm += fabric / intel_logic().lut_per_alm;
    b.add("mac_array",
          fmt::format("{} x {} x {} MACs of int{} x int{}{}", batch, bi, bo, c.dtype.inp_bits, c.dtype.wgt_bits,
                      mc.dsp == 0 ? " in fabric" : ""),
          static_cast<double>(macs), "MACs", r);
  }
  // Per accumulator lane: accumulate, ALU, forwarding, write-back select. The
  // RTL builds min(alu.lanes, lanes) ALUs (vta_alu.sv), so the ALU's
  // multipliers follow alu.lanes; the fabric per lane is fitted on designs
  // that built an ALU per lane (estimate/README.md) with 32-bit
  // accumulators, and taken as proportional to dtype.acc_bits (an
  // assumption: every part of a lane is as wide as its accumulator).
  {
    const int64_t alus = std::min(c.alu.lanes, n);
    const double width = static_cast<double>(c.dtype.acc_bits) / 32.0;
    Resources r = b.logic(b.lc.acc_lanes, 0, static_cast<double>(n) * width);
    if (c.isa.alu_mul) r.dsp = static_cast<double>(alus) * alu_mul_dsp(family, c.dtype.acc_bits);
    b.add("acc_lanes",
          fmt::format("{} lanes x {} bit: accumulate, forwarding, {} ALU lanes{}", n, c.dtype.acc_bits, alus,
                      c.isa.alu_mul ? " with MUL" : ""),
          static_cast<double>(n), "lanes", r);
  }
  // Pipeline registers: stages 2..D-1 of the address/valid shift registers,
  // shared by the two pipelines; with alu.concurrent each pipe has its own.
  {
    const int64_t depth = std::max(c.gemm.pipeline_depth, c.alu.latency);
    const int64_t lanes = std::min(c.alu.lanes, n);
    const int64_t groups = (n + lanes - 1) / lanes;
    const int64_t stage_bits = 1 + d.log_acc_depth + 32 + d.log_wgt_depth + (groups > 1 ? clog2(groups) : 1);
    const int64_t stages =
        c.alu.concurrent ? std::max<int64_t>(0, c.gemm.pipeline_depth - 2) + std::max<int64_t>(0, c.alu.latency - 2)
                         : std::max<int64_t>(0, depth - 2);
    const int64_t bits = stages * stage_bits;
    b.add("pipeline",
          fmt::format("{} stages x {} bits{}", stages, stage_bits, c.alu.concurrent ? ", one set per pipe" : ""),
          static_cast<double>(bits), "register bits", b.logic(b.lc.pipeline, 0, static_cast<double>(bits)));
  }
  // Buffers, as the RTL builds them.
  {
    const int64_t uop_banks = beat > 4 ? beat / 4 : 1;
    // alu.concurrent (sim/rtl/src/vta_concurrent.sv): the issue stage's uop
    // scan reads the GEMM pipe's copy through its DMA write port (one
    // true dual-port column, vta_ram P1W), and the ALU pipe reads its own copy.
    b.buffer("buf_uop",
             {32, d.uop_depth / uop_banks, static_cast<int>(uop_banks), 1, c.buffers.uop, false, c.alu.concurrent});
    if (c.alu.concurrent)
      b.buffer("buf_uop_alu", {32, d.uop_depth / uop_banks, static_cast<int>(uop_banks), 1, c.buffers.uop});
    b.buffer("buf_inp", {d.inp_elem_bytes * 8, d.inp_depth, 1, 1, c.buffers.inp});
    b.buffer("buf_wgt", {d.wgt_elem_bytes * 8, d.wgt_depth, 1, 1, c.buffers.wgt});
    // ACC is written under a mask of 32-bit lanes (ALU groups), OUT of bytes.
    // alu.concurrent: kConcurrentAccBanks banks of the same ports, the same bits.
    const int acc_banks = c.alu.concurrent ? static_cast<int>(kConcurrentAccBanks) : 1;
    b.buffer("buf_acc", {d.acc_elem_bytes * 8, d.acc_depth / acc_banks, acc_banks, 2, c.buffers.acc, n > 1});
    b.buffer("buf_out", {d.out_elem_bytes * 8, d.out_depth / acc_banks, acc_banks, 1, buffer_bytes(c)[4], n > 1});
    const int64_t fetch_depth = std::max<int64_t>(1, c.memory.max_burst * beat / 16);
    b.buffer("fetch_buffer", {128, fetch_depth, 1, 1, fetch_depth * 16});
    b.buffer("cmd_queues", {160, c.queues.command_depth, 3, 1, c.queues.command_depth * 20});
  }
  // DMA engines: five loads (two in load, three in compute) and the store.
  b.dma("dma_inp", "LOAD INP", d.inp_elem_bytes, beat, true);
  b.dma("dma_wgt", "LOAD WGT", d.wgt_elem_bytes, beat, true);
  b.dma("dma_uop", "LOAD UOP", d.uop_elem_bytes, beat, true);
  b.dma("dma_acc", "LOAD ACC", d.acc_elem_bytes, beat, true);
  b.dma("dma_acc8", "LOAD ACC_8BIT", d.out_elem_bytes, beat, true);
  b.dma("dma_store", "STORE OUT", d.out_elem_bytes, beat, false);
  b.add("control", "fetch, queue and token control, run control, read arbiter, sequencer", 1, "instance",
        b.logic(b.lc.control, 1, 0));
  // alu.concurrent (docs/timing.md, "Concurrent ALU"; sim/rtl/src/
  // vta_concurrent.sv): the ALU pipe's own loop sequencer (19 registers of
  // 32 bits, as vta_seq.sv's), its forwarding register (an ACC element, its
  // lane mask and index), the uop scan (four bank indices, the uop counter)
  // and the hull's loop offsets (four multiplies of a loop count by a
  // factor), the bank scoreboard, the in-order pushes (vta_core.sv: six
  // 32-bit counts), and per bank a 2:1 mux of the pipes on the ACC and OUT
  // write data and the ACC addresses. A flip-flop per register bit, the
  // LUTs of the register bits priced as pipeline bits, the muxes at one LUT
  // per bit, a DSP48 per multiply (two Intel blocks of two 18x19): yosys's
  // growth on rtl-tiny within 13 % on LUT, 1 % on FF (estimate/README.md).
  if (c.alu.concurrent) {
    const int64_t lanes = c.gemm.batch * c.gemm.block_out;
    const int64_t regs =
        19 * 32 + (d.acc_elem_bytes * 8 + lanes + d.log_acc_depth + 1) + 4 * d.log_acc_depth + 16 + 6 * 32;
    Resources r = b.logic(b.lc.pipeline, 0, static_cast<double>(regs));
    r.ff = static_cast<double>(regs);
    const int64_t mux_bits =
        static_cast<int64_t>(kConcurrentAccBanks) * (d.acc_elem_bytes * 8 + d.out_elem_bytes * 8 + 3 * d.log_acc_depth);
    if (is_xilinx(family))
      r.lut += static_cast<double>(mux_bits);
    else if (is_lattice(family))
      r.lut += static_cast<double>(mux_bits) * lattice_logic().lut4_per_lut;
    else
      r.alm += static_cast<double>(mux_bits) / intel_logic().lut_per_alm;
    r.dsp = is_xilinx(family) || is_lattice(family) ? 4.0 : 2.0;
    b.add("concurrent_alu",
          fmt::format("second sequencer, uop scan, bank scoreboard, {} bank muxes ({} bits)", kConcurrentAccBanks,
                      mux_bits),
          static_cast<double>(regs), "register bits", r);
  }

  Estimate e;
  e.config_name = c.name;
  e.config_hash = c.hash();
  e.family = family;
  e.device = device;
  e.components = std::move(b.rows);
  for (const Component& k : e.components) {
    e.total += k.res;
    e.lutram += k.lutram;
  }
  e.fmax = estimate_fmax(c, family);
  e.clock_mhz = c.clock.mhz;
  e.clock_ok = c.clock.mhz <= e.fmax.mhz;
  if (!e.clock_ok)
    e.problems.push_back(fmt::format("clock.mhz {:g} is above the Fmax estimate {:.0f} MHz ({:.0f}-{:.0f})",
                                     c.clock.mhz, e.fmax.mhz, e.fmax.low_mhz, e.fmax.high_mhz));

  if (device) {
    const Resources& cap = device->budget;
    auto check = [&](const char* what, double need, double have, double& util) {
      if (have <= 0) {
        if (need > 0) {
          e.fits = false;
          e.problems.push_back(fmt::format("needs {} {}, {} has none", count_text(need), what, device->name));
        }
        return;
      }
      util = 100.0 * need / have;
      if (need > have * o.max_utilization) {
        e.fits = false;
        e.problems.push_back(fmt::format("needs {} {}, {} has {} ({:.0f} %, limit {:.0f} %)", count_text(need), what,
                                         device->name, count_text(have), util, o.max_utilization * 100));
      }
    };
    if (is_xilinx(family)) {
      check("LUT", e.total.lut, cap.lut, e.utilization.lut);
      check("BRAM36", e.total.bram36, cap.bram36, e.utilization.bram36);
      check("URAM", e.total.uram, cap.uram, e.utilization.uram);
    } else if (is_lattice(family)) {
      check("LUT4", e.total.lut, cap.lut, e.utilization.lut);
      check("EBR", e.total.ebr, cap.ebr, e.utilization.ebr);
    } else {
      check("ALM", e.total.alm, cap.alm, e.utilization.alm);
      check("M20K", e.total.m20k, cap.m20k, e.utilization.m20k);
    }
    check("FF", e.total.ff, cap.ff, e.utilization.ff);
    check("DSP", e.total.dsp, cap.dsp, e.utilization.dsp);
  }

  const int64_t ib = c.dtype.inp_bits, wb = c.dtype.wgt_bits;
  if (family == Family::xcup && ib + wb >= 9)
    e.assumptions.push_back(o.pack_int8 && ib <= 8 && wb <= 8
                                ? "two multiplies of operands up to 8 bits sharing an operand packed per DSP48E2 "
                                  "(Xilinx WP486)"
                                : "one multiply per DSP48E2 (no packing)");
  if (is_lattice(family))
    e.assumptions.push_back(fmt::format(
        "one MULT18X18D per int{} x int{} MAC, the products summed in fabric adder trees (as yosys synth_ecp5 maps "
        "the RTL)",
        ib, wb));
  else if (is_xilinx(family) && ib + wb < 9)
    e.assumptions.push_back(fmt::format(
        "int{} x int{} products in fabric, {:.0f} LUT6 per MAC with its adder tree (yosys synth_xilinx of a "
        "16-term dot product; no DSP takes a product under 9 bits)",
        ib, wb, mac_cost(family, ib, wb, false).lut));
  else
    e.assumptions.push_back(fmt::format(
        "int{} x int{} MAC products summed in the DSP cascade (one DSP per MAC unpacked, as yosys maps the RTL)", ib,
        wb));
  if (nondefault_widths(c) != "")
    e.assumptions.push_back(fmt::format(
        "element widths {}: DSP per MAC as yosys maps a dot product at those widths, lane logic in proportion to "
        "dtype.acc_bits; not yet calibrated on synthesis of the whole RTL at those widths",
        nondefault_widths(c)));
  e.assumptions.push_back(
      fmt::format("the RTL builds {} ALU lanes for {} accumulator lanes (vta_alu.sv)", std::min(c.alu.lanes, n), n));
  e.assumptions.push_back(
      "LUT and FF per unit fitted to yosys synth_xilinx (xc7) of the RTL "
      "(estimate/calibration); Vivado or Quartus usually map tighter");
  if (is_lattice(family))
    e.assumptions.push_back(fmt::format(
        "LUT4 and FF scaled from the xc7 fit by {:.2f} and {:.2f}, fitted to yosys synth_ecp5 + nextpnr-ecp5 runs "
        "(estimate/calibration/ecp5.csv; LUT4 within {:.0f} % on them)",
        lattice_logic().lut4_per_lut, lattice_logic().ff_per_ff, lattice_logic().lut4_error * 100));
  else if (!is_xilinx(family))
    e.assumptions.push_back("ALMs converted from the Xilinx fit as max(LUT / 1.6, FF / 4): not calibrated");
  if (b.policy.use_uram)
    e.assumptions.push_back(fmt::format("buffers of {} or more in URAM288", format_size(o.uram_min_bytes)));
  e.assumptions.push_back("Fmax: " + e.fmax.basis);
  if (c.alu.concurrent)
    e.assumptions.push_back(
        "alu.concurrent: its logic is priced from the RTL's registers and muxes (sequencer, forwarding, scan, "
        "scoreboard, in-order pushes, bank muxes), checked on yosys's synthesis of rtl-tiny only; Fmax does not "
        "count the bank mux's LUT level on the ACC/OUT write path");

  if (o.activity) {
    const double static_w = o.tech.static_w >= 0 ? o.tech.static_w : device ? device->static_w : 0.0;
    e.energy = energy(*o.activity, o.tech, c, static_w);
    e.assumptions.push_back(fmt::format("energy: {}; static {:g} W", o.tech.source, static_w));
  }
  return e;
}

}  // namespace vta::estimate
