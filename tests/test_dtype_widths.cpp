// Element widths as design knobs (docs/design.md, "Data types"): the one
// packing of values in DRAM (isa/elem_pack.h), and what the widths change in
// the resource and energy estimate (DSPs per MAC, fabric multipliers, lane
// logic, buffer bits, energy per MAC). The datapath at every width is tested
// against the independent reference by the Widths instantiation of
// RandomPrograms (test_golden_random.cpp) on every backend, and its DMA
// timing by TimingWidths (test_timing.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "test_support.h"
#include "vta/estimate/energy.h"
#include "vta/estimate/estimate.h"
#include "vta/isa/elem_pack.h"

namespace {

using vta::isa::pack_elems;
using vta::isa::packed_bytes;
using vta::isa::unpack_elems;
using vta::isa::wrap_bits;

TEST(ElemPack, FourBitValuesLowNibbleFirstSignExtended) {
  const std::vector<uint8_t> bytes = {0x7A, 0x81};  // values 0xA, 0x7, 0x1, 0x8
  std::vector<int16_t> v(4);
  unpack_elems(bytes.data(), 4, v.data(), 4);
  EXPECT_EQ(v, (std::vector<int16_t>{-6, 7, 1, -8}));
  std::vector<uint8_t> back(2, 0xFF);
  pack_elems(v.data(), 4, back.data(), 4);
  EXPECT_EQ(back, bytes);
}

TEST(ElemPack, SixteenAndThirtyTwoBitValuesAreLittleEndian) {
  const std::vector<uint8_t> bytes = {0x34, 0x12, 0x00, 0x80};
  std::vector<int32_t> v16(2), v32(1);
  unpack_elems(bytes.data(), 16, v16.data(), 2);
  EXPECT_EQ(v16, (std::vector<int32_t>{0x1234, -32768}));
  unpack_elems(bytes.data(), 32, v32.data(), 1);
  EXPECT_EQ(v32[0], static_cast<int32_t>(0x80001234u));
}

// Every width, including ones the config does not offer (the generic path):
// unpack then pack gives back the bytes, and packing keeps only the low bits.
TEST(ElemPack, RoundTripsAtEveryWidth) {
  std::mt19937 rng(7);
  for (int w : {1, 2, 3, 4, 5, 8, 12, 16, 32}) {
    SCOPED_TRACE(w);
    const size_t n = 24;
    std::vector<uint8_t> bytes(packed_bytes(w, n));
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    std::vector<int32_t> v(n);
    unpack_elems(bytes.data(), w, v.data(), n);
    for (int32_t x : v) {
      EXPECT_EQ(x, wrap_bits(x, w));  // sign-extended from w bits
    }
    std::vector<uint8_t> back(bytes.size(), 0);
    pack_elems(v.data(), w, back.data(), n);
    EXPECT_EQ(back, bytes);
  }
  const std::vector<int32_t> big = {0x1234, -1};
  std::vector<uint8_t> b(1, 0);
  pack_elems(big.data(), 4, b.data(), 2);
  EXPECT_EQ(b[0], 0xF4);
}

TEST(ElemPack, WrapBitsIsTheRegisterOfThatWidth) {
  EXPECT_EQ(wrap_bits(0x8000, 16), -32768);
  EXPECT_EQ(wrap_bits(40000, 16), 40000 - 65536);
  EXPECT_EQ(wrap_bits(-9, 4), 7);
  EXPECT_EQ(wrap_bits(123456789, 32), 123456789);
}

// ---------------------------------------------------------------- estimate

const vta::estimate::Component& row(const vta::estimate::Estimate& e, const std::string& name) {
  for (const auto& c : e.components)
    if (c.name == name) return c;
  throw std::runtime_error("no component " + name);
}

// vta-1x16x16 at other widths, with half its INP, WGT and ACC bytes: 4-bit
// inputs or weights and 16-bit accumulators make the preset's bytes deeper
// than its instruction fields address.
vta::Config design(std::vector<vta::Override> widths) {
  widths.insert(widths.begin(), {{"buffers.inp", "16KiB"}, {"buffers.wgt", "128KiB"}, {"buffers.acc", "64KiB"}});
  return vta::test::preset("vta-1x16x16", widths);
}

vta::estimate::Estimate estimate_of(const std::vector<vta::Override>& widths, const std::string& family) {
  vta::estimate::EstimateOptions o;
  o.family = family;
  return vta::estimate::estimate(design(widths), o);
}

// What yosys maps a dot product to at each width (unit_costs.cpp): on xc7 a
// product of 9 bits or more is one DSP48E1, a 4x4 product is fabric.
TEST(EstimateWidths, DspPerMacFollowsTheProductWidth) {
  const double macs = 256;
  EXPECT_EQ(row(estimate_of({}, "xc7"), "mac_array").res.dsp, macs);
  EXPECT_EQ(row(estimate_of({{"dtype.inp_bits", "16"}, {"dtype.wgt_bits", "16"}}, "xc7"), "mac_array").res.dsp, macs);
  EXPECT_EQ(row(estimate_of({{"dtype.wgt_bits", "4"}}, "xc7"), "mac_array").res.dsp, macs);
  const auto w4a4 = row(estimate_of({{"dtype.inp_bits", "4"}, {"dtype.wgt_bits", "4"}}, "xc7"), "mac_array");
  EXPECT_EQ(w4a4.res.dsp, 0);
  EXPECT_GT(w4a4.res.lut, row(estimate_of({}, "xc7"), "mac_array").res.lut + 30 * macs);
  // UltraScale+ packs two multiplies of up to 8 bits per DSP48E2, not 16-bit ones.
  EXPECT_EQ(row(estimate_of({}, "xcup"), "mac_array").res.dsp, macs / 2);
  EXPECT_EQ(row(estimate_of({{"dtype.inp_bits", "16"}}, "xcup"), "mac_array").res.dsp, macs);
  // ECP5: one MULT18X18D at every width.
  EXPECT_EQ(row(estimate_of({{"dtype.inp_bits", "4"}, {"dtype.wgt_bits", "4"}}, "ecp5"), "mac_array").res.dsp, macs);
}

TEST(EstimateWidths, NarrowAccumulatorsShrinkLanesBuffersAndTheAluMultiply) {
  const auto wide = estimate_of({}, "xc7");
  const auto narrow = estimate_of({{"dtype.acc_bits", "16"}}, "xc7");
  EXPECT_LT(row(narrow, "acc_lanes").res.lut, row(wide, "acc_lanes").res.lut);
  EXPECT_LT(row(narrow, "acc_lanes").res.dsp, row(wide, "acc_lanes").res.dsp);  // 16x16 multiply: 1 DSP, not 3
  EXPECT_EQ(row(narrow, "acc_lanes").res.dsp, 16);
  // The same buffers.acc bytes hold twice the elements at 16 bits: the same bits.
  EXPECT_EQ(row(narrow, "buf_acc").units, row(wide, "buf_acc").units);
  // OUT (8-bit) keeps ACC's depth: twice as deep at 16-bit accumulators.
  EXPECT_EQ(row(narrow, "buf_out").units, 2 * row(wide, "buf_out").units);
}

// Horowitz's scaling: multiply energy with the product of the widths, add
// energy with the accumulator's (energy.h, width_scale).
// Fmax by width (estimate/calibration/depth_widths.csv): at 16-bit
// accumulators the ALU's multiply is one DSP and leaves the floor to the
// load engines' multiplies (13.60 ns against 14.88), and the accumulate
// stage is shorter; a 4 x 4 product in LUTs makes the multiply stage longer
// (6.27 ns against the DSP's 5.70). ECP5 multiplies every width in a DSP.
TEST(EstimateWidths, FmaxFollowsTheAccumulatorAndTheMultiplier) {
  auto at = [](std::vector<vta::Override> w, const char* depth, const char* family = "xc7") {
    w.push_back({"gemm.pipeline_depth", depth});
    return estimate_of(w, family).fmax;
  };
  const auto deep = at({}, "8"), deep16 = at({{"dtype.acc_bits", "16"}}, "8");
  EXPECT_NEAR(deep.rest_path_ns, 14.88, 0.01);
  EXPECT_NEAR(deep16.rest_path_ns, 13.60, 0.01);
  EXPECT_GT(deep16.mhz, 1.09 * deep.mhz);
  EXPECT_NE(deep16.basis.find("the ALU's MUL is 16-bit"), std::string::npos) << deep16.basis;
  // One GEMM stage (depth 4): the 16-bit accumulate is 1.45 ns shorter.
  EXPECT_NEAR(at({}, "4").gemm_path_ns - at({{"dtype.acc_bits", "16"}}, "4").gemm_path_ns, 1.45, 1e-9);
  // The multiply stage alone (depth 8 on 1x16x16: 6 stages).
  const auto w4a4 = at({{"dtype.inp_bits", "4"}, {"dtype.wgt_bits", "4"}, {"dtype.acc_bits", "16"}}, "8");
  EXPECT_NEAR(w4a4.gemm_path_ns, 6.27, 0.01);
  EXPECT_NEAR(deep.gemm_path_ns, 5.73, 0.01);
  EXPECT_NEAR(
      at({{"dtype.inp_bits", "4"}, {"dtype.wgt_bits", "4"}, {"dtype.acc_bits", "16"}}, "8", "ecp5").gemm_path_ns, 5.73,
      0.01);
}

TEST(EstimateWidths, EnergyPerMacScalesWithTheWidths) {
  const auto scale = [](const std::vector<vta::Override>& ov) { return vta::estimate::width_scale(design(ov)); };
  EXPECT_DOUBLE_EQ(scale({}).mac, 1.0);
  EXPECT_DOUBLE_EQ(scale({}).alu, 1.0);
  EXPECT_DOUBLE_EQ(scale({{"dtype.inp_bits", "16"}, {"dtype.wgt_bits", "16"}}).mac, 2.0 / 3.0 * 4 + 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(scale({{"dtype.inp_bits", "4"}, {"dtype.wgt_bits", "4"}, {"dtype.acc_bits", "16"}}).mac,
                   2.0 / 3.0 / 4 + 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(scale({{"dtype.acc_bits", "16"}}).alu, 0.5);
  vta::estimate::Activity a;
  a.macs = 1000;
  const auto c16 = design({{"dtype.inp_bits", "16"}, {"dtype.wgt_bits", "16"}});
  const auto t = vta::estimate::default_tech();
  EXPECT_NEAR(vta::estimate::energy(a, t, c16, 0).mac_nj, 1000 * t.pj_per_mac * (3.0) * 1e-3, 1e-9);
}

}  // namespace
