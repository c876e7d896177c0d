// The FPGA estimate (vta_estimate): monotonicity of the resource model,
// buffer mapping, device fit, Fmax calibration points, columns/JSON, energy
// and the `vta estimate` command.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "run_cli.h"
#include "vta/estimate/estimate.h"
#include "vta/isa/config.h"

namespace {

using namespace vta::estimate;

EstimateOptions target(const std::string& device, const std::string& family = "") {
  EstimateOptions o;
  o.device = device;
  o.family = family;
  return o;
}

vta::Config cfg(const std::vector<vta::Override>& ov = {}) {
  return vta::load_config(vta::resolve_config_path("vta-1x16x16"), ov);
}

// 1x16x16 with small buffers, so that any one buffer can grow and the
// instruction fields still fit 128 bits.
vta::Config small(std::vector<vta::Override> ov = {}) {
  std::vector<vta::Override> all = {
      {"buffers.inp", "4KiB"}, {"buffers.wgt", "32KiB"}, {"buffers.acc", "16KiB"}, {"buffers.uop", "4KiB"}};
  all.insert(all.end(), ov.begin(), ov.end());
  return cfg(all);
}

const Component& row(const Estimate& e, const std::string& name) {
  for (const auto& c : e.components)
    if (c.name == name) return c;
  throw std::runtime_error("no component " + name);
}

TEST(Estimate, MoreMacsMoreDsps) {
  double last = 0;
  for (const char* bo : {"4", "8", "16", "32", "64"}) {
    Estimate e = estimate(small({{"gemm.block_out", bo}, {"alu.lanes", "4"}}));
    EXPECT_GT(e.total.dsp, last) << "block_out " << bo;
    last = e.total.dsp;
  }
  last = 0;
  for (const char* b : {"1", "2", "4"}) {
    Estimate e = estimate(small({{"gemm.batch", b}}));
    EXPECT_GT(e.total.dsp, last) << "batch " << b;
    last = e.total.dsp;
  }
  Estimate narrow = estimate(small({{"gemm.block_in", "8"}}));
  Estimate wide = estimate(small({{"gemm.block_in", "32"}}));
  EXPECT_GT(wide.total.dsp, narrow.total.dsp);
  EXPECT_GT(wide.total.lut, narrow.total.lut);
}

TEST(Estimate, OneDspPerMacOn7Series) {
  // The synthesis count: an int8 MAC is one DSP48E1.
  Estimate e = estimate(cfg({{"gemm.batch", "4"}}));
  EXPECT_EQ(row(e, "mac_array").res.dsp, 4 * 16 * 16);
}

TEST(Estimate, PresetMatchesItsSynthesis) {
  // yosys synth_xilinx of vta-1x16x16 (sim/rtl/README.md): 324 DSP48E1 and
  // 146.5 BRAM36, 81 RAM32M. DSPs and RAM blocks are structural in the
  // model, so they match exactly; a change to either side shows here.
  Estimate e = estimate(cfg(), target("", "xc7"));
  EXPECT_EQ(e.total.dsp, 324);
  EXPECT_EQ(e.total.bram36, 146.5);
  EXPECT_EQ(e.lutram, 81 * 4);
}

TEST(Estimate, BiggerBuffersMoreBlockRam) {
  // Never fewer blocks for a bigger buffer, and more over a 32x range (a
  // block of 512 words holds a shallow buffer and its double alike).
  for (const char* key : {"buffers.inp", "buffers.wgt", "buffers.acc", "buffers.uop"}) {
    double first = -1, last = -1;
    for (const char* size : {"1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB"}) {
      if (std::string(key) == "buffers.acc" && std::string(size) == "1KiB") continue;  // 16 words: distributed RAM
      Estimate e = estimate(small({{key, size}}));
      EXPECT_GE(e.total.bram36, last) << key << " = " << size;
      if (first < 0) first = e.total.bram36;
      last = e.total.bram36;
    }
    EXPECT_GT(last, first) << key;
  }
}

TEST(Estimate, AccBufferIsBuiltOncePerReadPort) {
  Estimate e = estimate(cfg());
  // 2048 x 512 bit: 29 RAMB36 as 2Kx18 (or the same in RAMB18) per copy; two read ports.
  EXPECT_NEAR(row(e, "buf_acc").res.bram36, 2 * row(e, "buf_out").res.bram36 * 512 / 128, 3);
  EXPECT_NE(row(e, "buf_acc").detail.find("1W2R"), std::string::npos);
}

// alu.concurrent: the UOP copy of the GEMM pipe, which the scan reads
// through its write port (one copy), and one for the ALU pipe, its own pipeline registers,
// the ACC and OUT in two banks (the same bits), and the sequencer,
// forwarding, scan, scoreboard, pushes and bank muxes.
TEST(Estimate, ConcurrentAluCostsLogicAndUopCopies) {
  const Estimate off = estimate(cfg());
  const Estimate on = estimate(cfg({{"alu.concurrent", "true"}}));
  EXPECT_THROW(row(off, "concurrent_alu"), std::runtime_error);
  EXPECT_GT(row(on, "concurrent_alu").res.lut, 0);
  EXPECT_EQ(row(on, "buf_uop_alu").res.bram36, row(off, "buf_uop").res.bram36);
  // The uop scan reads the GEMM pipe's copy through its write port: one column.
  EXPECT_EQ(row(on, "buf_uop").res.bram36, row(off, "buf_uop").res.bram36);
  EXPECT_GT(row(on, "pipeline").res.ff, row(off, "pipeline").res.ff);
  EXPECT_GE(row(on, "buf_acc").res.bram36, row(off, "buf_acc").res.bram36);
  EXPECT_GT(on.total.lut, off.total.lut);
  EXPECT_GT(on.total.bram36, off.total.bram36);
  EXPECT_NE(on.assumptions.back().find("checked on yosys's synthesis of rtl-tiny"), std::string::npos);
}

// The knob's growth against yosys synth_xilinx (xc7) of rtl-tiny with and
// without it (estimate/README.md, "Concurrent ALU": +985 LUT, +977 FF, +4
// DSP, +1 BRAM36): LUT within 15 % (the estimate is 13 % high), FF
// within 5 %, DSP and BRAM exact.
TEST(Estimate, ConcurrentAluGrowthMatchesYosysOnRtlTiny) {
  const std::string tiny = std::string(VTA_SOURCE_DIR) + "/tests/configs/rtl-tiny.yaml";
  const Estimate off = estimate(vta::load_config(tiny));
  const Estimate on = estimate(vta::load_config(tiny, {{"alu.concurrent", "true"}}));
  EXPECT_NEAR(on.total.lut - off.total.lut, 985.0, 0.15 * 985.0);
  EXPECT_NEAR(on.total.ff - off.total.ff, 977.0, 0.05 * 977.0);
  EXPECT_EQ(on.total.dsp - off.total.dsp, 4.0);
  EXPECT_EQ(on.total.bram36 - off.total.bram36, 1.0);
}

TEST(Estimate, ShallowBuffersAreDistributedRam) {
  Estimate e = estimate(cfg({{"buffers.acc", "2KiB"}}));  // 32 deep
  EXPECT_EQ(row(e, "buf_acc").res.bram36, 0);
  EXPECT_GT(row(e, "buf_acc").lutram, 0);
  EXPECT_GE(e.total.lut, e.lutram);
}

TEST(Estimate, FitAgainstDeviceBudgets) {
  // At depth 5 (which meets its 100 MHz; depth 4 adds a clock problem).
  Estimate pynq = estimate(cfg({{"gemm.pipeline_depth", "5"}}), target("xc7z020"));
  // 324 DSP48E1 > 220 and 146.5 BRAM36 > 140 (as synthesized by yosys): one
  // problem line per resource over budget, naming it.
  EXPECT_FALSE(pynq.fits);
  ASSERT_EQ(pynq.problems.size(), 2u);
  EXPECT_EQ(pynq.problems[0], "needs 146.5 BRAM36, xc7z020 has 140 (105 %, limit 100 %)");
  EXPECT_EQ(pynq.problems[1], "needs 324 DSP, xc7z020 has 220 (147 %, limit 100 %)");
  EXPECT_GT(pynq.utilization.dsp, 100);
  EXPECT_LT(pynq.utilization.lut, 100);

  Estimate u250 = estimate(cfg(), target("XCU250"));  // case-insensitive
  EXPECT_TRUE(u250.fits);
  EXPECT_EQ(u250.family, Family::xcup);
  EXPECT_LT(u250.utilization.dsp, 100);

  // The same design with a 1 % utilization limit does not fit.
  EstimateOptions tight = target("xcu250");
  tight.max_utilization = 0.01;
  EXPECT_FALSE(estimate(cfg(), tight).fits);

  // A small design fits the Pynq.
  Estimate tiny =
      estimate(small({{"gemm.block_in", "8"}, {"gemm.block_out", "8"}, {"alu.lanes", "8"}}), target("xc7z020"));
  EXPECT_TRUE(tiny.fits) << (tiny.problems.empty() ? "" : tiny.problems.front());
  EXPECT_LE(tiny.utilization.dsp, 100);
}

TEST(Estimate, NoDeviceMeansNoBudget) {
  Estimate e = estimate(cfg());
  EXPECT_FALSE(e.device);
  EXPECT_TRUE(e.fits);
  EXPECT_EQ(e.utilization.lut, 0);
  EXPECT_EQ(e.family, Family::xc7);
}

TEST(Estimate, Int8PackingHalvesMacDspsOnUltraScalePlusOnly) {
  Estimate packed = estimate(cfg(), target("xczu7ev"));
  EstimateOptions off = target("xczu7ev");
  off.pack_int8 = false;
  Estimate unpacked = estimate(cfg(), off);
  EXPECT_EQ(row(packed, "mac_array").res.dsp * 2, row(unpacked, "mac_array").res.dsp);
  bool stated = false;
  for (const auto& a : packed.assumptions) stated |= a.find("WP486") != std::string::npos;
  EXPECT_TRUE(stated);
  EstimateOptions xc7 = target("", "xc7");
  xc7.pack_int8 = true;
  EXPECT_EQ(row(estimate(cfg(), xc7), "mac_array").res.dsp, 256);
}

TEST(Estimate, UramOnlyWhereTheDeviceHasItAndItIsDense) {
  // INP of 256 KiB is 16384 x 128 bit: 8 URAM288 on the ZCU104's xczu7ev;
  // BRAM on the Ultra96's xczu3eg, which has none.
  Estimate zcu = estimate(small({{"buffers.inp", "256KiB"}}), target("xczu7ev"));
  EXPECT_EQ(row(zcu, "buf_inp").res.uram, 8);
  EXPECT_EQ(row(zcu, "buf_inp").res.bram36, 0);
  Estimate u96 = estimate(small({{"buffers.inp", "256KiB"}}), target("xczu3eg"));
  EXPECT_EQ(u96.total.uram, 0);
  EXPECT_GT(row(u96, "buf_inp").res.bram36, 0);
  // WGT of 256 KiB is 1024 x 2048 bit: URAM would waste three quarters of
  // its depth, so it stays in block RAM; ACC (128 KiB, 2048 x 512, two read
  // ports) is below uram_min_bytes until that is lowered.
  Estimate shallow = estimate(cfg(), target("xczu7ev"));
  EXPECT_EQ(row(shallow, "buf_wgt").res.uram, 0);
  EXPECT_GT(row(shallow, "buf_wgt").res.bram36, 0);
  EXPECT_EQ(row(shallow, "buf_acc").res.uram, 0);
  EstimateOptions low = target("xczu7ev");
  low.uram_min_bytes = 128 * 1024;
  EXPECT_EQ(row(estimate(cfg(), low), "buf_acc").res.uram, 2 * 8);
}

TEST(Estimate, IntelFamiliesCountAlmsAndM20k) {
  Estimate e = estimate(cfg(), target("10ax115"));
  EXPECT_EQ(e.family, Family::arria10);
  EXPECT_GT(e.total.alm, 0);
  EXPECT_GT(e.total.m20k, 0);
  EXPECT_EQ(e.total.lut, 0);
  EXPECT_EQ(e.total.bram36, 0);
  EXPECT_EQ(row(e, "mac_array").res.dsp, 128);  // two 18x19 multipliers per block
  EXPECT_FALSE(e.fmax.calibrated);
}

TEST(Estimate, Ecp5CountsLut4Mult18AndEbr) {
  Estimate e = estimate(cfg(), target("lfe5u-85f"));
  EXPECT_EQ(e.family, Family::ecp5);
  EXPECT_GT(e.total.lut, 0);
  EXPECT_GT(e.total.ebr, 0);
  EXPECT_EQ(e.total.bram36, 0);
  EXPECT_EQ(e.total.alm, 0);
  EXPECT_EQ(e.total.m20k, 0);
  EXPECT_EQ(row(e, "mac_array").res.dsp, 256);  // one MULT18X18D per int8 MAC, no packing
  // 256 MACs need more MULT18X18D than the largest ECP5 has (156).
  EXPECT_FALSE(e.fits);
  bool named = false;
  for (const auto& p : e.problems) named |= p.find("DSP, lfe5u-85f has 156") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_TRUE(e.fmax.calibrated);
  // The family alone (no device) and the text report's ECP5 columns.
  Estimate f = estimate(cfg(), target("", "ecp5"));
  EXPECT_EQ(f.total.ebr, e.total.ebr);
  EXPECT_NE(to_text(e).find("MULT18"), std::string::npos);
  EXPECT_EQ(to_json(e)["total"]["ebr"].get<double>(), e.total.ebr);
}

// The ECP5 family against its place-and-route runs (estimate/calibration/
// ecp5.csv, ecp5_pnr.py: yosys synth_ecp5 + nextpnr-ecp5 on the LFE5U-85F,
// -6 grade). MULT18X18D and DP16KD are structural and match exactly; LUT4
// and Fmax within the fit's stated error (kEcp5Lut4Error, the Fmax band).
struct Ecp5Run {
  std::vector<vta::Override> overrides;
  double lut4, mult18, dp16kd, fmax_mhz;
};

TEST(Estimate, Ecp5MatchesItsPlaceAndRoute) {
  // e03: 1x4x4, 4 ALU lanes, a 32-bit bus, depth 6, small buffers; e06 the same without MUL.
  const std::vector<vta::Override> e03 = {
      {"gemm.block_in", "4"},  {"gemm.block_out", "4"}, {"alu.lanes", "4"},        {"buffers.wgt", "8KiB"},
      {"buffers.acc", "8KiB"}, {"buffers.inp", "2KiB"}, {"memory.bus_bits", "32"}, {"gemm.pipeline_depth", "6"}};
  std::vector<vta::Override> e06 = e03;
  e06.push_back({"isa.alu_mul", "false"});
  const std::vector<Ecp5Run> runs = {
      {{{"gemm.pipeline_depth", "8"}}, 19183, 98, 37, 38.78},  // e01
      {{{"gemm.pipeline_depth", "4"}}, 20247, 98, 37, 29.50},  // e02
      {e03, 16486, 38, 15, 38.32},                             // e03 (the RTL after the retire count's cut, 6c4d464)
      {e06, 16154, 26, 15, 48.24},                             // e06: e03 without MUL
      // Held out of the fit (placed and routed after it was written):
      {{{"gemm.block_in", "16"},
        {"gemm.block_out", "4"},
        {"alu.lanes", "4"},
        {"memory.bus_bits", "32"},
        {"gemm.pipeline_depth", "5"}},
       16109,
       86,
       38,
       37.71},  // e04
  };
  ASSERT_FALSE(runs.empty());
  for (const Ecp5Run& r : runs) {
    const vta::Config c =
        vta::load_config(std::string(VTA_SOURCE_DIR) + "/estimate/calibration/base.yaml", r.overrides);
    Estimate e = estimate(c, target("lfe5u-85f"));
    const std::string what = r.overrides.empty() ? "base" : r.overrides[0].first + "=" + r.overrides[0].second;
    EXPECT_EQ(e.total.dsp, r.mult18) << what;
    EXPECT_EQ(e.total.ebr, r.dp16kd) << what;
    // LUT4 positions of logic (LUT4 + 2 per CCU2C) without the shell's, the
    // model's logic without its distributed RAM: within the fit's worst
    // error on these runs (7.0 %, ecp5_fit.inc's kEcp5Lut4Error).
    EXPECT_NEAR(e.total.lut - e.lutram, r.lut4, r.lut4 * 0.075) << what;
    EXPECT_GE(r.fmax_mhz, e.fmax.low_mhz) << what;
    EXPECT_LE(r.fmax_mhz, e.fmax.high_mhz) << what;
  }
}

// The gemm.pipeline_depth the pipelined RTL needs (estimate/README.md, Fmax)
// for vta-1x16x16 to meet its published clocks: 100 MHz on the Zynq-7020
// (Pynq-Z1), 333 MHz on Zynq UltraScale+ (Ultra96 xczu3eg, ZCU104 xczu7ev).
constexpr int kDepthPynq = 5;
constexpr int kDepthUltra = 5;

// vta-1x16x16 at a depth and clock; another block_in keeps its INP and WGT
// buffer depths (so the instruction fields still fit).
Estimate at_depth(int depth, const char* mhz, const EstimateOptions& o, const char* block_in = "16") {
  const int bi = std::stoi(block_in);
  return estimate(cfg({{"gemm.pipeline_depth", std::to_string(depth)},
                       {"clock.mhz", mhz},
                       {"gemm.block_in", block_in},
                       {"buffers.inp", std::to_string(2 * bi) + "KiB"},
                       {"buffers.wgt", std::to_string(16 * bi) + "KiB"}}),
                  o);
}

TEST(Estimate, PublishedDesignsMeetTheirClocksAtTheirDepths) {
  EXPECT_TRUE(at_depth(kDepthPynq, "100", target("xc7z020")).clock_ok);
  EXPECT_FALSE(at_depth(kDepthPynq - 1, "100", target("xc7z020")).clock_ok);
  for (const char* d : {"xczu3eg", "xczu7ev"}) {
    EXPECT_TRUE(at_depth(kDepthUltra, "333", target(d)).clock_ok) << d;
    EXPECT_FALSE(at_depth(kDepthUltra - 1, "333", target(d)).clock_ok) << d;
  }
  // No family cap above the published clock: the floor is the ceiling.
  EXPECT_NEAR(at_depth(20, "100", target("", "xc7")).fmax.mhz, 100.0, 0.01);
  EXPECT_NEAR(at_depth(20, "100", target("", "xcup")).fmax.mhz, 333.0, 0.01);
}

// Fmax rises with gemm.pipeline_depth (never falls) until the GEMM stages are
// below the rest of the core, then stays at that floor. (block_in 8 and
// narrower are at the floor from depth 4 in the fit.)
TEST(Estimate, FmaxRisesWithDepthUntilTheFloor) {
  for (const char* bi : {"16", "32", "64"}) {
    double first = 0, last = 0;
    int floor_depth = 0;
    for (int p = 4; p <= 20; ++p) {
      const Estimate e = at_depth(p, "100", target("", "xcup"), bi);
      if (p == 4) first = e.fmax.mhz;
      EXPECT_GE(e.fmax.mhz, last) << "block_in " << bi << " depth " << p;
      if (floor_depth == 0 && e.fmax.mhz >= 333.0 - 1e-9) floor_depth = p;
      if (floor_depth != 0) {
        EXPECT_NEAR(e.fmax.mhz, 333.0, 1e-9) << "block_in " << bi << " depth " << p;
      }
      last = e.fmax.mhz;
    }
    EXPECT_GT(floor_depth, 4) << "block_in " << bi;
    EXPECT_LT(first, last) << "block_in " << bi;
  }
}

// The floor is the ALU's 32-bit multiply where isa.alu_mul builds it, the
// DMA engines' address multiplies without it (estimate/calibration/depth.csv:
// p17 and p18 are built without): a design past its GEMM's last cut clocks
// faster without MUL, on every family, and a shallow one (GEMM-bound) the same.
TEST(Estimate, AluMulSetsTheFloor) {
  for (const char* fam : {"xc7", "xcup", "ecp5"}) {
    const Estimate with = at_depth(12, "100", target("", fam));
    vta::Config c = cfg({{"gemm.pipeline_depth", "12"}, {"isa.alu_mul", "false"}});
    const Estimate without = estimate(c, target("", fam));
    EXPECT_LT(without.fmax.rest_path_ns, with.fmax.rest_path_ns) << fam;
    EXPECT_GT(without.fmax.mhz, with.fmax.mhz * 1.03) << fam;
    c = cfg({{"gemm.pipeline_depth", "4"}, {"isa.alu_mul", "false"}});
    EXPECT_DOUBLE_EQ(estimate(c, target("", fam)).fmax.mhz, at_depth(4, "100", target("", fam)).fmax.mhz) << fam;
  }
}

// At a fixed depth a wider reduction has more adder-tree levels per stage:
// Fmax falls with block_in until the floor.
TEST(Estimate, FmaxFallsWithBlockIn) {
  for (int p : {4, 5, 6}) {
    double last = 1e9;
    for (const char* bi : {"8", "16", "32", "64"}) {
      const Estimate e = at_depth(p, "100", target("", "xc7"), bi);
      EXPECT_LE(e.fmax.mhz, last) << "depth " << p << " block_in " << bi;
      last = e.fmax.mhz;
    }
  }
  EXPECT_LT(at_depth(4, "100", target("", "xc7"), "32").fmax.mhz, at_depth(4, "100", target("", "xc7"), "8").fmax.mhz);
  const Estimate wide = at_depth(4, "100", target("", "xc7"), "64");
  EXPECT_LT(wide.fmax.low_mhz, wide.fmax.mhz);
  EXPECT_GT(wide.fmax.high_mhz, wide.fmax.mhz);
}

// The Fmax model against the synthesized logic depth it is fitted to
// (estimate/calibration/depth.csv) and the element-width designs its width
// constants come from (depth_widths.csv): each design's GEMM path (its
// longest stage) within 15 % of the measurement (fitted designs within 5 %,
// held-out ones within 11 %, width designs within 9 %) and its other paths
// within 10 % (two constants, the floor with and without the ALU's 32-bit
// MUL), and the model orders the designs' GEMM paths as measured, across
// both sets.
TEST(Estimate, FmaxOrdersDesignsAsTheMeasuredDepth) {
  const std::string dir = std::string(VTA_SOURCE_DIR) + "/estimate/calibration/";
  std::string line, header;
  struct Row {
    std::string name;
    double gemm_ns, rest_ns, model_ns;
  };
  std::vector<Row> rows;
  for (const char* csv : {"depth.csv", "depth_widths.csv", "depth_concurrent.csv"}) {
    std::ifstream f(dir + csv);
    ASSERT_TRUE(f) << dir << csv;
    header.clear();
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (header.empty()) {
        header = line;
        ASSERT_EQ(header.rfind("name,overrides,critical_ns,fmax_mhz,gemm_ns,rest_ns,", 0), 0u) << header;
        continue;
      }
      // name,"k=v k=v",critical_ns,fmax_mhz,gemm_ns,rest_ns,...
      const size_t q1 = line.find('"'), q2 = line.find('"', q1 + 1);
      ASSERT_NE(q2, std::string::npos) << line;
      std::vector<vta::Override> ov;
      std::istringstream kvs(line.substr(q1 + 1, q2 - q1 - 1));
      for (std::string kv; kvs >> kv;) ov.push_back({kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1)});
      std::istringstream nums(line.substr(q2 + 2));
      Row r;
      r.name = line.substr(0, q1 - 1);
      char comma;
      double critical_ns, fmax_mhz;
      nums >> critical_ns >> comma >> fmax_mhz >> comma >> r.gemm_ns >> comma >> r.rest_ns;
      const Estimate e = estimate(vta::load_config(dir + "base.yaml", ov), target("", "xc7"));
      EXPECT_NEAR(e.fmax.gemm_path_ns, r.gemm_ns, 0.15 * r.gemm_ns) << r.name;
      EXPECT_NEAR(e.fmax.rest_path_ns, r.rest_ns, 0.10 * r.rest_ns) << r.name;  // a constant in the model
      EXPECT_NEAR(e.fmax.rtl_mhz, 1000.0 / std::max(e.fmax.gemm_path_ns, e.fmax.rest_path_ns), 1e-9) << r.name;
      r.model_ns = e.fmax.gemm_path_ns;
      rows.push_back(r);
    }
  }
  ASSERT_GE(rows.size(), 20u);
  for (const Row& a : rows) {
    for (const Row& b : rows) {
      if (a.gemm_ns > 1.10 * b.gemm_ns) {
        EXPECT_GT(a.model_ns, b.model_ns) << a.name << "'s GEMM path is measured longer than " << b.name << "'s";
      }
    }
  }
}

TEST(Estimate, ClockAboveFmaxIsFlagged) {
  EXPECT_TRUE(at_depth(kDepthPynq, "100", target("xc7z020")).clock_ok);
  // vta-1x16x16 as configured (depth 4): its GEMM is one stage, far below 100 MHz.
  Estimate shallow = estimate(cfg(), target("xc7z020"));
  EXPECT_FALSE(shallow.clock_ok);
  Estimate fast = at_depth(kDepthPynq, "250", target("xc7z020"));
  EXPECT_FALSE(fast.clock_ok);
  bool named = false;
  for (const auto& p : fast.problems)
    named |= p.find("clock.mhz 250 is above the Fmax estimate 100 MHz") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Estimate, ColumnsAreNamedUniqueAndMatchTheEstimate) {
  Estimate e = estimate(cfg(), target("xczu7ev"));
  auto cols = columns(e);
  std::map<std::string, double> m;
  for (const auto& [k, v] : cols) EXPECT_TRUE(m.emplace(k, v).second) << "duplicate column " << k;
  for (const char* k : {"lut", "ff", "dsp", "bram36", "uram", "fmax_mhz", "fits", "clock_ok", "util_dsp", "max_util"})
    EXPECT_TRUE(m.count(k)) << k;
  EXPECT_EQ(m["dsp"], e.total.dsp);
  EXPECT_EQ(m["fits"], e.fits ? 1.0 : 0.0);
  EXPECT_EQ(m.count("energy_nj"), 0u);
  auto j = to_json(e);
  EXPECT_EQ(j["columns"].size(), cols.size());
  EXPECT_EQ(j["components"].size(), e.components.size());
  EXPECT_EQ(j["total"]["dsp"].get<double>(), e.total.dsp);
  EXPECT_EQ(j["device"]["name"], "xczu7ev");
}

TEST(Estimate, EnergyFromActivity) {
  Activity a;
  a.cycles = 1000000;
  a.macs = 256000000;
  a.wgt_read_bytes = 1 << 20;
  a.dram_read_bytes = 1 << 20;
  EstimateOptions o = target("xc7z020");
  o.activity = a;
  Estimate e = estimate(cfg(), o);
  ASSERT_TRUE(e.energy);
  EXPECT_NEAR(e.energy->mac_nj, 256e6 * 0.3e-3, 1e-6);
  // 0.15 W for 1e6 cycles at 100 MHz = 10 ms: 1.5 mJ.
  EXPECT_NEAR(e.energy->static_nj, 1.5e6, 1e-3);
  EXPECT_NEAR(e.energy->total_nj,
              e.energy->mac_nj + e.energy->alu_nj + e.energy->sram_nj + e.energy->dram_nj + e.energy->static_nj, 1e-6);
  a.macs *= 2;
  o.activity = a;
  EXPECT_GT(estimate(cfg(), o).energy->total_nj, e.energy->total_nj);
  // A larger weight buffer costs more per byte.
  EXPECT_GT(estimate(cfg(), o).energy->sram_nj, estimate(cfg({{"buffers.wgt", "64KiB"}}), o).energy->sram_nj);
  std::set<std::string> names;
  for (const auto& [k, v] : columns(e)) names.insert(k);
  EXPECT_TRUE(names.count("energy_nj"));
}

TEST(Estimate, TechTableIsReplaceable) {
  TechTable t = tech_from_json(nlohmann::json{{"pj_per_mac", 1.0}, {"static_w", 0.0}, {"source", "mine"}});
  EXPECT_EQ(t.pj_per_mac, 1.0);
  EXPECT_EQ(t.static_w, 0.0);
  EXPECT_EQ(t.pj_per_dram_byte, default_tech().pj_per_dram_byte);
  Activity a;
  a.macs = 1000;
  a.cycles = 1000;
  EstimateOptions o = target("xc7z020");
  o.activity = a;
  o.tech = t;
  Estimate e = estimate(cfg(), o);
  EXPECT_NEAR(e.energy->total_nj, 1.0, 1e-9);
}

TEST(Estimate, DeviceTableIsComplete) {
  for (const char* name : {"xc7z020", "xczu3eg", "xczu7ev", "xcvu9p", "xcu250", "10ax115", "1sg280", "lfe5u-25f",
                           "lfe5u-45f", "lfe5u-85f", "lfe5um-85f"}) {
    const Device& d = find_device(name);
    EXPECT_GT(d.budget.ff, 0) << name;
    EXPECT_GT(d.budget.dsp, 0) << name;
    if (is_lattice(d.family))
      EXPECT_GT(d.budget.lut * d.budget.ebr, 0) << name;
    else if (is_xilinx(d.family))
      EXPECT_GT(d.budget.lut * d.budget.bram36, 0) << name;
    else
      EXPECT_GT(d.budget.alm * d.budget.m20k, 0) << name;
  }
}

TEST(EstimateCli, TableAndJson) {
  auto r = vta::test::run_vta("estimate --config vta-1x16x16 --device xc7z020");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("mac_array"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does NOT fit"), std::string::npos) << r.out;
  auto j = vta::test::run_vta("estimate --config vta-1x16x16 --set gemm.block_out=32 --device xcu250 --json");
  ASSERT_EQ(j.code, 0) << j.out;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["fits"], true);
  EXPECT_EQ(doc["components"][0]["resources"]["dsp"].get<double>(), 16 * 32 / 2.0);  // packed on xcup
  auto list = vta::test::run_vta("estimate --list-devices");
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("xczu3eg    xcup      Ultra96"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("lfe5um-85f ecp5      ECP5 85K with SERDES"), std::string::npos) << list.out;
}

}  // namespace
