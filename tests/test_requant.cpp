// The VTA ALU's multiplier form of requantization (compiler/requant.h):
// lower_requant() never lets a 32-bit step overflow for accumulators within
// the bound, keeps every immediate encodable, and stays within one LSB of
// the 64-bit form it replaces; acc_bound() is the true maximum.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::compiler;

// The 64-bit form: clip(((acc * mult + 2^(shift-1)) >> shift) + zp).
int64_t reference_64(int64_t acc, int64_t mult, int shift, int64_t zp) {
  const int64_t round = shift > 0 ? int64_t{1} << (shift - 1) : 0;
  return std::clamp<int64_t>(((acc * mult + round) >> shift) + zp, -128, 127);
}

// The VTA steps in exact (64-bit) arithmetic: equal to requantize_vta() only
// when no 32-bit step overflowed.
int64_t steps_64(int64_t acc, const VtaRequant& r, int64_t zp) {
  const auto rnd = [](int s) { return s > 0 ? int64_t{1} << (s - 1) : 0; };
  const int64_t v = ((acc + rnd(r.pre)) >> r.pre) * r.m;
  return std::clamp<int64_t>(((v + rnd(r.s)) >> r.s) + zp, -128, 127);
}

TEST(LowerRequant, NoOverflowEncodableAndWithinOneLsb) {
  std::mt19937_64 rng(7);
  int cases = 0, with_pre = 0, long_shift = 0;
  for (int t = 0; t < 2000; ++t) {
    // A bound as conv layers produce (2^10 .. 2^28) and an M that maps
    // accumulators of up to 2^16 times the output range onto int8.
    const int bound_bits = 10 + static_cast<int>(rng() % 19);
    const int64_t bound = (int64_t{1} << bound_bits) - static_cast<int64_t>(rng() % 1000);
    const int64_t mult = (int64_t{1} << 30) + static_cast<int64_t>(rng() % (int64_t{1} << 30));
    const int shift = 31 + bound_bits - 16 + static_cast<int>(rng() % 16);  // M * bound in [2^0, 2^16)
    const int32_t zp = static_cast<int32_t>(rng() % 41) - 20;
    const auto r = lower_requant(mult, shift, bound);
    ASSERT_TRUE(r) << mult << " " << shift << " " << bound;
    ASSERT_GE(r->m, 1);
    ASSERT_LE(r->m, 32767);
    ASSERT_LE(r->s, 30);
    ASSERT_LE(r->pre, 15);
    ++cases, with_pre += r->pre > 0, long_shift += r->s > 15;
    std::vector<int64_t> accs = {bound, -bound, bound - 1, -bound + 1, 0, 1, -1};
    for (int i = 0; i < 64; ++i)
      accs.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * bound + 1)) - bound);
    for (int64_t acc : accs) {
      const int8_t got = requantize_vta(static_cast<int32_t>(acc), *r, zp, false);
      ASSERT_EQ(got, steps_64(acc, *r, zp))
          << "32-bit overflow: acc " << acc << " pre " << r->pre << " m " << r->m << " s " << r->s;
      ASSERT_LE(std::abs(got - reference_64(acc, mult, shift, zp)), 1) << "acc " << acc;
    }
  }
  EXPECT_EQ(cases, 2000);
  // Both the pre-shift and the long shift are exercised.
  EXPECT_GT(with_pre, 50) << with_pre;
  EXPECT_GT(long_shift, 50) << long_shift;
}

TEST(LowerRequant, KeepsFifteenMultiplierBitsAndShiftsOnlyWhatOverflows) {
  // M = 0.70710678: m = round(M * 2^15), all of the shift after the multiply.
  const auto r = lower_requant(1518500250, 31, 1000);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (VtaRequant{0, 23170, 15}));
  // |acc| up to 2^20: 2^20 * 23170 overflows; 11 bits of m (1448 = round(M * 2^11)) cost less
  // precision than a 4-bit pre-shift (M * 2^3 output units).
  EXPECT_EQ(lower_requant(1518500250, 31, int64_t{1} << 20), (VtaRequant{0, 1448, 11}));
  // |acc| up to 2^28 with M = 0.707 * 2^-14: a form exists and is within one LSB where it matters.
  const auto big = lower_requant(1518500250, 45, int64_t{1} << 28);
  ASSERT_TRUE(big);
  for (int64_t acc = -(int64_t{1} << 21); acc <= (int64_t{1} << 21); acc += 997)
    ASSERT_LE(
        std::abs(requantize_vta(static_cast<int32_t>(acc), *big, 0, false) - reference_64(acc, 1518500250, 45, 0)), 1)
        << acc;
  // M = 0.707 * 2^-10: a shift of 25 after the multiply (a plain SHR by 10, then the rounding one).
  EXPECT_EQ(lower_requant(1518500250, 41, 1000), (VtaRequant{0, 23170, 25}));
}

TEST(LowerRequant, LongShiftsRoundLikeOneRoundingShift) {
  std::mt19937 rng(3);
  for (int s = 16; s <= 30; ++s)
    for (int i = 0; i < 2000; ++i) {
      const auto v = static_cast<int32_t>(rng());
      const int64_t want = (static_cast<int64_t>(v) + (int64_t{1} << (s - 1))) >> s;
      ASSERT_EQ(rounding_shift(v, s), want) << v << " >> " << s;
    }
}

TEST(LowerRequant, RelusClipAtTheZeroPoint) {
  const VtaRequant r{0, 3, 2};  // * 3 / 4
  EXPECT_EQ(requantize_vta(-100, r, 7, true), 7);
  EXPECT_EQ(requantize_vta(-100, r, 7, false), -75 + 7);
  EXPECT_EQ(requantize_vta(1000, r, 7, true), 127);
  EXPECT_EQ(requantize_vta(6, r, 0, false), 5);  // 4.5 rounds up
}

TEST(LowerRequant, RefusesMultipliersWithoutAForm) {
  EXPECT_FALSE(lower_requant(1 << 30, 10, 1000));              // M = 2^20: m would exceed 32767
  EXPECT_FALSE(lower_requant(1, 62, 1000));                    // M = 2^-62: m rounds to 0 within 15 + 30 shift bits
  EXPECT_FALSE(lower_requant(1 << 30, 20, int64_t{1} << 31));  // not an int32 accumulator
  EXPECT_FALSE(lower_requant(0, 20, 1000));
}

TEST(AccBound, IsTheLargestAbsoluteAccumulator) {
  Node n;
  n.op = Op::Dense;
  n.out = Shape{1, 2, 1, 1};
  n.weight = {3, -4, 5, 1, 1, -1};  // rows: |3|+|4|+|5| = 12, |1|+|1|+|1| = 3
  n.bias = {-10, 2000};
  EXPECT_EQ(acc_bound(n), std::max(12 * 128 + 10, 3 * 128 + 2000));
}

TEST(RequantImmOps, CountsTheEpilogueSteps) {
  Node n;
  n.op = Op::Conv2d;
  n.shift = 5;
  EXPECT_EQ(requant_imm_ops(n), 3);  // SHR, MAX, MIN: the rounding ADD is in the bias
  EXPECT_EQ(bias_fold(n), 16);
  n.op = Op::Add;
  EXPECT_EQ(requant_imm_ops(n), 4);  // ADD, SHR, MAX, MIN
  EXPECT_EQ(bias_fold(n), 0);
  n.op = Op::Conv2d;
  n.shift = 0;
  EXPECT_EQ(requant_imm_ops(n), 2);
  EXPECT_EQ(bias_fold(n), 0);
  n.vta_rq = VtaRequant{3, 100, 12};
  n.zp = 4;
  EXPECT_EQ(requant_imm_ops(n), 1 + 1 + 2 + 1 + 2);  // the pre-shift's rounding ADD in the bias
  EXPECT_EQ(bias_fold(n), 4);
  n.vta_rq.pre = 20;  // SHR 5 first: nothing to fold
  EXPECT_EQ(requant_imm_ops(n), 3 + 1 + 2 + 1 + 2);
  EXPECT_EQ(bias_fold(n), 0);
}

// Half to even in exact arithmetic: floor(acc / 2^s) + 1 above a half, and
// at a half only when that makes the result even.
int64_t round_even_64(int64_t acc, int s) {
  const int64_t q = acc >> s, r = acc - (q << s), half = int64_t{1} << (s - 1);
  return r > half || (r == half && (q & 1)) ? q + 1 : q;
}

// The ALU sequence of requant_steps() for half-to-even rounding, run as the
// ALU runs it (run_steps() applies the golden datapath's alu_apply), gives
// the exact rounding for every shift 1..15, ties included, whatever the
// scratch tile held before, with and without a zero point, ReLU and a
// per-channel left shift.
TEST(RoundHalfToEven, AluStepsEqualTheExactRounding) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> any(-(1 << 24), 1 << 24), junk(INT32_MIN, INT32_MAX);
  int ties = 0;
  for (int s = 1; s <= 15; ++s)
    for (int32_t zp : {0, -128, 37})
      for (bool relu : {false, true})
        for (int lsh : {0, 2}) {
          Node n;
          n.op = Op::Conv2d;
          n.shift = s;
          n.round_even = true;
          n.relu = relu;
          n.zp = zp;
          if (zp != 0) n.vta_rq = VtaRequant{0, 1, s};
          if (lsh) n.lshift = {static_cast<int8_t>(lsh)};
          ASSERT_TRUE(vta_requant_exact(n));
          ASSERT_TRUE(needs_scratch(n));
          const std::vector<AluStep> steps = requant_steps(n);
          for (int i = 0; i < 4000; ++i) {
            // Every fourth value a tie: k * 2^s + 2^(s-1).
            int64_t acc = i % 4 == 0 ? (int64_t{any(rng)} >> s << s) + (int64_t{1} << (s - 1)) : any(rng);
            acc >>= lsh;
            ties += i % 4 == 0;
            const int64_t want =
                std::clamp<int64_t>(round_even_64(acc << lsh, s) + zp, relu ? std::max(zp, -128) : -128, 127);
            ASSERT_EQ(run_steps(static_cast<int32_t>(acc), steps, {-lsh}, junk(rng)), want)
                << "acc " << acc << " shift " << s << " zp " << zp << " relu " << relu << " lshift " << lsh;
          }
        }
  EXPECT_GT(ties, 1000);
}

TEST(RoundHalfToEven, TiesGoToTheEvenNeighbour) {
  Node n;
  n.op = Op::Dense;
  n.shift = 1;
  n.round_even = true;
  const auto steps = requant_steps(n);
  EXPECT_EQ(run_steps(1, steps), 0);    // 0.5 -> 0
  EXPECT_EQ(run_steps(3, steps), 2);    // 1.5 -> 2
  EXPECT_EQ(run_steps(5, steps), 2);    // 2.5 -> 2
  EXPECT_EQ(run_steps(-1, steps), 0);   // -0.5 -> 0
  EXPECT_EQ(run_steps(-3, steps), -2);  // -1.5 -> -2
  EXPECT_EQ(bias_fold(n), 0);           // the scratch-tile steps come first: nothing to fold
  n.round_even = false;                 // the project's half up: its rounding constant goes to the bias
  EXPECT_EQ(bias_fold(n), 1);
  EXPECT_EQ(run_steps(5 + bias_fold(n), requant_steps(n)), 3);
}

TEST(RoundHalfToEven, LongShiftsAndMultipliersHaveNoExactVtaForm) {
  Node n;
  n.op = Op::Conv2d;
  n.round_even = true;
  n.shift = 16;
  EXPECT_FALSE(vta_requant_exact(n));
  n.shift = 4;
  n.vta_rq = VtaRequant{0, 3, 4};
  EXPECT_FALSE(vta_requant_exact(n));
  EXPECT_THROW(requant_steps(n), vta::Error);
}

}  // namespace
