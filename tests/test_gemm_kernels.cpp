// The datapath's GEMM loop nests (model/src/gemm_kernels.h) against a plain
// reference on unpacked weights: every fixed SIMD shape and generic ones,
// batch 1..4, random loop nests with the extreme operands (-128 x -128, and
// -32768 x -32768 at 16 bits, in every lane, which pmaddwd's pairs must not
// saturate) and accumulators that wrap around, at the element widths of
// docs/design.md "Data types" (16- and 32-bit accumulators, 4- to 16-bit
// operands and outputs). Built three times: for the build machine (the widest
// registers it has), for AVX2 and for SSE2, so that every kernel the
// simulators can be built with is checked here.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gemm_kernels.h"

namespace {

using vta::model::Uop;
namespace gemm = vta::model::gemm;

struct Shape {
  int64_t batch, bi, bo;
};

struct Widths {
  int inp = 8, wgt = 8, acc = 32, out = 8;
};

// `v` as a w-bit two's complement register holds it.
int64_t wrap(int64_t v, int w) {
  const int64_t m = int64_t{1} << w;
  v = ((v % m) + m) % m;
  return v >= m / 2 ? v - m : v;
}

// A random GEMM loop nest over small buffers, run by the kernel and by the
// reference; ACC and OUT must agree bit for bit.
void check(const Shape& s, uint32_t seed, bool extreme, Widths wd = {}) {
  std::mt19937 rng(seed);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto value = [&](int w) {
    return static_cast<int16_t>(extreme ? -(1 << (w - 1)) : pick(-(1 << (w - 1)), (1 << (w - 1)) - 1));
  };
  const int depth = 64, wgt_depth = 16;
  std::vector<int16_t> inp(static_cast<size_t>(depth * s.batch * s.bi)),
      wgt(static_cast<size_t>(wgt_depth * s.bo * s.bi));
  for (auto& v : inp) v = value(wd.inp);
  for (auto& v : wgt) v = value(wd.wgt);
  std::vector<int32_t> acc(static_cast<size_t>(depth * s.batch * s.bo));
  for (auto& v : acc) v = static_cast<int32_t>(wrap(static_cast<int32_t>(rng()), wd.acc));  // wraps on the first add
  std::vector<int16_t> out(acc.size());
  std::vector<int16_t> packed(static_cast<size_t>(wgt_depth * gemm::packed_elems(s.bi, s.bo)), 7);
  gemm::pack(wgt.data(), packed.data(), wgt_depth, s.bi, s.bo);

  std::vector<Uop> uops(4);
  for (auto& u : uops)
    u = Uop{static_cast<uint32_t>(pick(0, 15)), static_cast<uint32_t>(pick(0, 15)), static_cast<uint32_t>(pick(0, 3))};
  gemm::Loop g{uops.data(),   0,       4,    3,    2,           9,          4, 8, 3, 4, 2, nullptr, nullptr, inp.data(),
               packed.data(), s.batch, s.bi, s.bo, 32 - wd.acc, 32 - wd.out};
  std::vector<int32_t> want_acc = acc;
  std::vector<int16_t> want_out = out;
  for (uint32_t i = 0; i < g.io; ++i)
    for (uint32_t j = 0; j < g.ii; ++j)
      for (const Uop& u : uops) {
        const uint64_t dst = u.dst + i * g.dfo + j * g.dfi, src = u.src + i * g.sfo + j * g.sfi,
                       w = u.wgt + i * g.wfo + j * g.wfi;
        for (int64_t b = 0; b < s.batch; ++b)
          for (int64_t o = 0; o < s.bo; ++o) {
            int64_t sum = want_acc[(dst * s.batch + b) * s.bo + o];
            for (int64_t k = 0; k < s.bi; ++k)
              sum += int64_t{inp[(src * s.batch + b) * s.bi + k]} * wgt[(w * s.bo + o) * s.bi + k];
            const size_t at = (dst * s.batch + b) * s.bo + o;
            want_acc[at] = static_cast<int32_t>(wrap(sum, wd.acc));
            want_out[at] = static_cast<int16_t>(wrap(sum, wd.out));
          }
      }
  g.acc = acc.data();
  g.out = out.data();
  gemm::pick(s.bi, s.bo, g.acc_shift, g.out_shift)(g);
  EXPECT_EQ(acc, want_acc) << s.batch << "x" << s.bi << "x" << s.bo << " seed " << seed << " widths " << wd.inp << "/"
                           << wd.wgt << "/" << wd.acc << "/" << wd.out;
  EXPECT_EQ(out, want_out) << s.batch << "x" << s.bi << "x" << s.bo << " seed " << seed << " widths " << wd.inp << "/"
                           << wd.wgt << "/" << wd.acc << "/" << wd.out;
}

// A variant built for an instruction set the machine lacks is skipped.
class GemmKernels : public testing::TestWithParam<Shape> {
 protected:
  void SetUp() override {
#if defined(VTA_GEMM_NEEDS)
    if (!__builtin_cpu_supports(VTA_GEMM_NEEDS)) GTEST_SKIP() << "this machine has no " VTA_GEMM_NEEDS;
#endif
  }
};

TEST_P(GemmKernels, EqualThePlainLoopNest) {
  for (uint32_t seed = 1; seed <= 6; ++seed) check(GetParam(), seed, false);
}

TEST_P(GemmKernels, MostNegativeOperandsDoNotSaturate) { check(GetParam(), 9, true); }

// Every element width the datapath builds, random and extreme operands.
TEST_P(GemmKernels, EqualThePlainLoopNestAtEveryWidth) {
  for (const Widths wd :
       {Widths{4, 4, 16, 4}, Widths{8, 8, 16, 8}, Widths{16, 16, 32, 16}, Widths{16, 4, 32, 8}, Widths{4, 8, 32, 16}}) {
    check(GetParam(), 3, false, wd);
    check(GetParam(), 4, true, wd);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmKernels,
                         testing::Values(Shape{1, 16, 16}, Shape{1, 32, 32}, Shape{1, 8, 8}, Shape{1, 16, 32},
                                         Shape{1, 32, 16}, Shape{1, 64, 64}, Shape{4, 16, 16}, Shape{2, 8, 8},
                                         Shape{1, 1, 1}, Shape{1, 2, 4}, Shape{2, 4, 2}, Shape{1, 128, 16},
                                         Shape{3, 1, 8}),
                         [](const testing::TestParamInfo<Shape>& i) {
                           return std::to_string(i.param.batch) + "x" + std::to_string(i.param.bi) + "x" +
                                  std::to_string(i.param.bo);
                         });

TEST(GemmPack, OddBlockInPadsTheLastPairWithZero) {
  const std::vector<int16_t> w = {1, 2, 3, -4, -5, -6};  // 2 rows of block_in 3
  std::vector<int16_t> p(static_cast<size_t>(gemm::packed_elems(3, 2)), 99);
  gemm::pack(w.data(), p.data(), 1, 3, 2);
  EXPECT_EQ(p, (std::vector<int16_t>{1, 2, -4, -5, 3, 0, -6, 0}));
}

}  // namespace
