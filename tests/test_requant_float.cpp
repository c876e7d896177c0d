// ONNX Runtime's float requantization in VTA ALU steps (requant_float.h):
// for scales as ONNX Runtime's quantizer makes them and for tie-heavy ones,
// the steps give requantize_ort() for every accumulator of the node's range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/compiler/schedule/placement.h"

using namespace vta::compiler;

namespace {

struct Outcome {
  int64_t checked = 0, differing = 0;
};

// Every acc in [-bound, bound] through the steps (acc - t_hi: the bias fold).
Outcome check_all(float scale, int32_t zp, bool relu, int64_t bound, const FloatRequantVta& f) {
  const std::vector<AluStep> steps = float_requant_steps(f);
  Outcome o;
  for (int64_t a = -bound; a <= bound; ++a, ++o.checked) {
    const int32_t acc = static_cast<int32_t>(a);
    const int8_t got =
        run_steps(static_cast<int32_t>(static_cast<uint32_t>(acc) - static_cast<uint32_t>(f.t_hi)), steps);
    if (got != requantize_ort(acc, scale, zp, relu)) ++o.differing;
  }
  return o;
}

// The accumulators of f's clamped range (and two past each end) and both
// ends of [-bound, bound] through the steps; differing, and double-rounded
// accumulators (where a fixed-point rne(acc * S) would differ).
Outcome check_range(float scale, int32_t zp, bool relu, int64_t bound, const FloatRequantVta& f,
                    int64_t& double_rounded);

// rne of the real product (one rounding), clamped as ORT clamps.
int single_rounding(int32_t acc, float scale, int32_t zp, bool relu) {
  const double v = std::nearbyint(static_cast<double>(acc) * static_cast<double>(scale));
  return static_cast<int>(std::clamp<double>(v + zp, relu ? std::max(zp, -128) : -128, 127));
}

Outcome check_range(float scale, int32_t zp, bool relu, int64_t bound, const FloatRequantVta& f,
                    int64_t& double_rounded) {
  const std::vector<AluStep> steps = float_requant_steps(f);
  const int64_t lo = std::max<int64_t>(-bound, f.t_hi - (f.span - f.j0) - 2), hi = std::min<int64_t>(bound, f.t_hi + 2);
  Outcome o;
  std::vector<int64_t> accs = {-bound, bound};
  for (int64_t a = lo; a <= hi; ++a) accs.push_back(a);
  for (int64_t a : accs) {
    const int32_t acc = static_cast<int32_t>(a);
    const int8_t want = requantize_ort(acc, scale, zp, relu);
    o.differing +=
        run_steps(static_cast<int32_t>(static_cast<uint32_t>(acc) - static_cast<uint32_t>(f.t_hi)), steps) != want;
    double_rounded += want != single_rounding(acc, scale, zp, relu);
    ++o.checked;
  }
  return o;
}

}  // namespace

TEST(RequantFloat, OrtFormulaRoundsTheFloatProductHalfToEven) {
  // 0.5 * 3 = 1.5 -> 2, 0.5 * 5 = 2.5 -> 2 (even), clamped to the range less the zero point.
  EXPECT_EQ(requantize_ort(3, 0.5f, 0, false), 2);
  EXPECT_EQ(requantize_ort(5, 0.5f, 0, false), 2);
  EXPECT_EQ(requantize_ort(-5, 0.5f, 0, false), -2);
  EXPECT_EQ(requantize_ort(1000, 0.5f, 10, false), 127);
  EXPECT_EQ(requantize_ort(-1000, 0.5f, -100, true), -100);
}

TEST(RequantFloat, StepsEqualOrtForQuantizerScalesEverywhere) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> range(0.5f, 12.0f), wmax(0.05f, 2.0f);
  int lowered = 0, cases = 0, two_words = 0, double_rounding_cases = 0;
  int64_t double_rounded = 0;
  for (int i = 0; i < 150; ++i) {
    // ONNX Runtime's quantizer: (max - min) / 255 for uint8 activations, max|w| / 127 for weights.
    const float sx = range(rng) / 255.0f, sw = wmax(rng) / 127.0f, sy = range(rng) / 255.0f;
    const float scale = static_cast<float>(sx * sw) / sy;
    const int32_t zp = static_cast<int32_t>(rng() % 256) - 128;
    const bool relu = rng() % 2 == 0;
    const int64_t bound = 1 << (14 + rng() % 4);
    ++cases;
    const auto f = lower_float_requant(scale, zp, relu, bound);
    if (!f) continue;
    ++lowered;
    two_words += f->two_words();
    const Outcome o = check_all(scale, zp, relu, bound, *f);
    EXPECT_EQ(o.differing, 0) << "scale " << scale << " zp " << zp << " relu " << relu << " bound " << bound;
    int64_t here = 0;
    for (int64_t a = -bound; a <= bound; ++a)
      here += requantize_ort(static_cast<int32_t>(a), scale, zp, relu) !=
              single_rounding(static_cast<int32_t>(a), scale, zp, relu);
    double_rounded += here;
    double_rounding_cases += here > 0;
  }
  // The lowered forms include accumulators where the float product's
  // rounding decides the result (a fixed-point rne(acc * S) differs there).
  std::cout << "lowered " << lowered << " of " << cases << " (" << two_words << " with two words); "
            << double_rounding_cases << " of them with " << double_rounded << " double-rounded accumulators\n";
  EXPECT_GE(lowered, cases * 9 / 10);
  EXPECT_GT(two_words, 0);
  EXPECT_GT(double_rounded, 0);
}

TEST(RequantFloat, StepsEqualOrtOnTiesAndDoubleRounding) {
  // Scales with few significant bits make exact ties; scales just off
  // 1/k make fl(acc * S) land on a tie from above or below.
  // Exact ties (scales of few significant bits) alternate with the parity of
  // the result, which no line gives: those are refused (the host computes
  // them) or exact.
  int refused = 0;
  for (float scale : {0.5f, 0.25f, 0.375f, 0.125f, 0.75f, 3.0f})
    if (const auto f = lower_float_requant(scale, 0, false, 1 << 12); !f)
      ++refused;
    else
      EXPECT_EQ(check_all(scale, 0, false, 1 << 12, *f).differing, 0) << "scale " << scale;
  EXPECT_GT(refused, 0);
  std::vector<float> scales = {1.0f, 1.0f / 3.0f, 0.1f, 0.2f};
  for (float base : {1.0f / 6.0f, 1.0f / 10.0f, 1.0f / 14.0f, 0.3f})
    for (int k = -3; k <= 3; ++k) {
      float v = base;
      for (int j = 0; j < std::abs(k); ++j) v = std::nextafter(v, k > 0 ? 1.0f : 0.0f);
      scales.push_back(v);
    }
  int64_t double_rounded = 0;
  int forms = 0, refused_here = 0;
  for (float scale : scales)
    for (int32_t zp : {0, -128, 37})
      for (bool relu : {false, true}) {
        const int64_t bound = 1 << 16;
        const auto f = lower_float_requant(scale, zp, relu, bound);
        ++forms;
        if (!f) {  // a run of tie zones that alternate with parity: the host's
          ++refused_here;
          continue;
        }
        const Outcome o = check_all(scale, zp, relu, bound, *f);
        EXPECT_EQ(o.differing, 0) << "scale " << scale << " zp " << zp << " relu " << relu;
        for (int64_t a = -bound; a <= bound; ++a)
          double_rounded += requantize_ort(static_cast<int32_t>(a), scale, zp, relu) !=
                            single_rounding(static_cast<int32_t>(a), scale, zp, relu);
      }
  // The set holds accumulators where the float product's rounding decides
  // the result (a plain fixed-point rne(acc * S) would differ there).
  std::cout << "double-rounded accumulators covered: " << double_rounded << "; refused " << refused_here << " of "
            << forms << "\n";
  EXPECT_LT(refused_here, forms / 2);
}

TEST(RequantFloat, RefusesWhatHasNoForm) {
  EXPECT_FALSE(lower_float_requant(0.0f, 0, false, 1000));
  EXPECT_FALSE(lower_float_requant(-0.5f, 0, false, 1000));
  EXPECT_FALSE(lower_float_requant(INFINITY, 0, false, 1000));
  EXPECT_FALSE(lower_float_requant(0.5f, 0, false, int64_t{1} << 31));
  // 255 steps of 2^13 accumulators: a clamped range of 2^21, over two words
  EXPECT_FALSE(lower_float_requant(0x1.0p-13f, 0, false, int64_t{1} << 22));
}

TEST(RequantFloat, FixesMoveThresholdsNoLineSeparates) {
  // Multipliers of the ORT-default resnet18_plain and mobilenet_v1 layers
  // (test_onnx_ort_scales.cpp) with no line through their thresholds: the
  // float product's rounding moved some by one, which fixes put back.
  struct Case {
    float scale;
    int32_t zp;
    bool relu;
    int64_t bound;
  };
  int64_t double_rounded = 0;
  for (const Case c : {Case{0x1.881276p-10f, -128, true, 1359993}, Case{0x1.153ca6p-10f, -128, true, 2842167},
                       Case{0x1.153ca6p-11f, -128, true, 10406525}, Case{0x1.881274p-8f, -128, true, 169446},
                       Case{0x1.9fdafep-10f, -128, true, 1370557}}) {
    const auto f = lower_float_requant(c.scale, c.zp, c.relu, c.bound);
    ASSERT_TRUE(f) << c.scale;
    EXPECT_FALSE(f->fixes.empty()) << c.scale;
    const Outcome o = check_range(c.scale, c.zp, c.relu, c.bound, *f, double_rounded);
    EXPECT_EQ(o.differing, 0) << c.scale;
    EXPECT_GT(o.checked, 10000) << c.scale;
    std::cout << std::hexfloat << c.scale << std::defaultfloat << ": " << f->fixes.size() << " fixes, "
              << float_requant_steps(*f).size() << " ALU steps\n";
  }
  EXPECT_GT(double_rounded, 0);
}

TEST(RequantFloat, SmallMultipliersOfWideRangesAllLower) {
  // Multipliers of 2^-11 .. 2^-7 over accumulators up to 2^22: clamped
  // ranges of 2^15 .. 2^19, where the float product's ties are common.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> lg(-11.0f, -7.0f);
  int lowered = 0, with_fixes = 0, cases = 0;
  int64_t double_rounded = 0;
  for (int i = 0; i < 40; ++i, ++cases) {
    const float scale = std::exp2(lg(rng));
    const int32_t zp = static_cast<int32_t>(rng() % 256) - 128;
    const bool relu = rng() % 2 == 0;
    const int64_t bound = int64_t{1} << 22;
    const auto f = lower_float_requant(scale, zp, relu, bound);
    if (!f) {
      std::cout << "refused " << std::hexfloat << scale << std::defaultfloat << " zp " << zp << " relu " << relu
                << "\n";
      continue;
    }
    ++lowered;
    with_fixes += !f->fixes.empty();
    EXPECT_EQ(check_range(scale, zp, relu, bound, *f, double_rounded).differing, 0) << scale;
  }
  std::cout << "lowered " << lowered << " of " << cases << ", " << with_fixes << " with fixes; " << double_rounded
            << " double-rounded accumulators\n";
  EXPECT_EQ(lowered, cases);
  EXPECT_GT(with_fixes, 0);
}

namespace {

// A Conv2d of `outs` channels of `per_out` random int8 weights and biases,
// with one ONNX Runtime multiplier per channel.
Node per_channel_node(std::mt19937& rng, int64_t outs, int64_t per_out, const std::vector<float>& fmults, int32_t zp,
                      bool relu) {
  Node n;
  n.op = Op::Conv2d;
  n.out = Shape{1, outs, 1, 1};
  std::uniform_int_distribution<int> w(-127, 127), b(-5000, 5000);
  for (int64_t i = 0; i < outs * per_out; ++i) n.weight.push_back(static_cast<int8_t>(w(rng)));
  for (int64_t o = 0; o < outs; ++o) n.bias.push_back(b(rng));
  n.fmults = fmults, n.fmult = fmults[0], n.zp = zp, n.relu = relu, n.round_even = true;
  return n;
}

// Every accumulator of every channel's bound through the node's steps with
// that channel's rows (and its bias fold) against requantize_ort().
int64_t differing_on_every_channel(const Node& n) {
  const std::vector<AluStep> steps = requant_steps(n);
  const std::vector<std::vector<int32_t>> rows = requant_rows(n);
  int64_t differing = 0;
  for (int64_t o = 0; o < n.out.c; ++o) {
    std::vector<int32_t> mine;
    for (const auto& r : rows) mine.push_back(r[static_cast<size_t>(o)]);
    const int64_t bound = acc_bound(n, o);
    const auto fold = static_cast<uint32_t>(bias_fold(n, o));
    for (int64_t a = -bound; a <= bound; ++a)
      differing += run_steps(static_cast<int32_t>(static_cast<uint32_t>(a) + fold), steps, mine) !=
                   requantize_ort(static_cast<int32_t>(a), n.fmults[static_cast<size_t>(o)], n.zp, n.relu);
  }
  return differing;
}

}  // namespace

TEST(RequantFloat, PerChannelRowsEqualOrtOnEveryChannel) {
  // ONNX Runtime's per-channel multipliers (2^-11 .. 2^-6, a different one
  // per channel): one sequence of steps with per-channel rows, exact on
  // every accumulator of every channel; with fixes and two words among them.
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> lg(-11.0f, -6.0f);
  int lowered = 0, with_fixes = 0, two_words = 0;
  for (int i = 0; i < 12; ++i) {
    std::vector<float> fm;
    for (int o = 0; o < 8; ++o) fm.push_back(std::exp2(lg(rng)));
    Node n = per_channel_node(rng, 8, 32, fm, static_cast<int32_t>(rng() % 256) - 128, rng() % 2 == 0);
    if (!lower_float_requant_rows(n)) {
      EXPECT_TRUE(n.frqs.empty());
      continue;
    }
    ++lowered;
    ASSERT_EQ(n.frqs.size(), 8u);
    const std::vector<std::vector<int32_t>> rows = requant_rows(n);
    EXPECT_EQ(static_cast<int>(rows.size()), requant_row_count(n));
    for (const auto& r : rows) EXPECT_EQ(r.size(), 8u);
    bool fixes = false;
    for (const FloatRequantVta& f : n.frqs) fixes = fixes || !f.fixes.empty();
    with_fixes += fixes, two_words += float_requant_two_words(n.frqs);
    EXPECT_EQ(needs_scratch(n), fixes || float_requant_scratch(n.frqs) > 0);
    EXPECT_EQ(differing_on_every_channel(n), 0) << "case " << i;
    std::cout << "case " << i << ": " << requant_steps(n).size() << " ALU steps, " << rows.size() << " rows\n";
  }
  std::cout << "lowered " << lowered << " of 12, " << with_fixes << " with fixes, " << two_words << " in two words\n";
  EXPECT_EQ(lowered, 12);
  EXPECT_GT(with_fixes, 0);
  EXPECT_GT(two_words, 0);
}

TEST(RequantFloat, PerChannelThreeWordsAndInterceptStepsOfSmallMultipliersOverWideRanges) {
  // Multipliers of about 2^-13 over 76 weights of 127 (a bound of about
  // 1.2e6, clamped ranges of about 2^20 .. 2^21): a 24-bit multiplier in
  // three words split at 2^8 and 2^16 (the scratch tiles T and U), one
  // channel with fixes, one with intercept steps (the exact slope, one
  // intercept per binade of the float product), one small enough for one
  // word; every accumulator of every channel against ONNX Runtime's formula.
  // (The lowering takes two lines here, fewer steps: the node is given the
  // channels' own forms to run these.)
  std::mt19937 rng(7);
  Node n = per_channel_node(rng, 3, 76, {0x1.3p-13f, 0x1.55p-13f, 0x1.3p-8f}, -128, true);
  for (int64_t i = 0; i < 2 * 76; ++i) n.weight[static_cast<size_t>(i)] = 127;
  EXPECT_GT(acc_bound(n, 0), 1200000);
  ASSERT_TRUE(lower_float_requant_rows(n));
  const size_t two_line_steps = requant_steps(n).size();
  EXPECT_TRUE(n.frqs[0].two_lines);
  EXPECT_EQ(differing_on_every_channel(n), 0);
  n.frqs.clear();
  for (int64_t k = 0; k < 3; ++k) {
    const auto f = lower_float_requant(n.fmults[static_cast<size_t>(k)], n.zp, n.relu, acc_bound(n, k), true);
    ASSERT_TRUE(f);
    n.frqs.push_back(*f);
  }
  EXPECT_LT(two_line_steps, requant_steps(n).size());
  ASSERT_EQ(n.frqs.size(), 3u);
  EXPECT_FALSE(n.frqs[0].fixes.empty());
  EXPECT_TRUE(n.frqs[0].segs.empty());
  EXPECT_FALSE(n.frqs[1].segs.empty()) << "intercept steps";
  EXPECT_EQ(n.frqs[1].segs.size(), n.frqs[1].seg_dc.size());
  EXPECT_EQ(float_requant_words(n.frqs), 3);
  EXPECT_TRUE(needs_scratch(n));
  EXPECT_TRUE(needs_scratch2(n));
  const std::vector<AluStep> steps = requant_steps(n);
  EXPECT_TRUE(std::any_of(steps.begin(), steps.end(), [](const AluStep& st) { return st.on == AluStep::On::TbyU; }));
  EXPECT_EQ(static_cast<int>(requant_rows(n).size()), requant_row_count(n));
  EXPECT_EQ(differing_on_every_channel(n), 0);
  {  // the block runner of the lowering's proof agrees with run_steps()
    std::vector<int32_t> rows, accs;
    for (const auto& r : requant_rows(n)) rows.push_back(r[1]);
    std::uniform_int_distribution<int32_t> any(-3000000, 3000000);
    for (int i = 0; i < 1000; ++i) accs.push_back(any(rng));
    std::vector<int32_t> block = accs;
    run_steps_n(block.data(), block.size(), steps, rows);
    for (size_t i = 0; i < accs.size(); ++i) EXPECT_EQ(static_cast<int8_t>(block[i]), run_steps(accs[i], steps, rows));
  }
  std::cout << steps.size() << " ALU steps, " << requant_row_count(n) << " rows; channel 1: " << n.frqs[1].segs.size()
            << " intercept steps, m " << n.frqs[1].m << ", s " << n.frqs[1].s << "\n";
  // Each channel alone: three words for the first two, one for the third.
  for (size_t k = 0; k < 3; ++k) {
    const auto f = lower_float_requant(n.fmults[k], n.zp, n.relu, acc_bound(n, static_cast<int64_t>(k)), true);
    ASSERT_TRUE(f);
    EXPECT_EQ(float_requant_words({*f}), k < 2 ? 3 : 1) << k;
  }
}

TEST(RequantFloat, PerChannelTwoLinesWhereTiesAlternate) {
  // One channel of 2^-13 over 1024 weights of 127: a clamped range of about
  // 2^21 where the float product is exact and every threshold is a tie that
  // rounds to the even side, so the thresholds alternate about any one line
  // (more than 8 fixes, more than 16 intercept steps: no form of one line).
  // The thresholds into odd levels and those into even levels each lie on a
  // line of slope S / 2 (here m = 1, s = 14): two lines, one word; likewise
  // 1.5 * 2^-13 over about 1.2e6. Every accumulator of every channel.
  EXPECT_FALSE(lower_float_requant(0x1.0p-13f, -128, true, 1225000, true));
  EXPECT_FALSE(lower_float_requant(0x1.8p-13f, -128, true, 1225000, true));
  EXPECT_FALSE(lower_float_requant(0x1.8p-13f, 0, false, 1225000, true));
  std::mt19937 rng(3);
  Node n = per_channel_node(rng, 2, 1024, {0x1.3p-8f, 0x1.0p-13f}, 0, false);
  for (int64_t i = 1024; i < 2048; ++i) n.weight[static_cast<size_t>(i)] = 127;
  EXPECT_FALSE(lower_float_requant(0x1.0p-13f, 0, false, acc_bound(n, 1), true));
  ASSERT_TRUE(lower_float_requant_rows(n));
  ASSERT_EQ(n.frqs.size(), 2u);
  EXPECT_TRUE(n.frqs[0].two_lines && n.frqs[1].two_lines) << "every channel of the node runs two lines";
  EXPECT_EQ(n.frqs[1].m, 1);
  EXPECT_EQ(n.frqs[1].s, 14);
  EXPECT_EQ(float_requant_words(n.frqs), 1);
  EXPECT_TRUE(needs_scratch(n));
  EXPECT_FALSE(needs_scratch2(n));
  EXPECT_EQ(static_cast<int>(requant_rows(n).size()), requant_row_count(n));
  EXPECT_EQ(differing_on_every_channel(n), 0);
  std::cout << "2^-13: " << requant_steps(n).size() << " ALU steps, " << requant_row_count(n) << " rows\n";
  std::mt19937 rng2(4);
  Node wide = per_channel_node(rng2, 2, 76, {0x1.8p-13f, 0x1.8p-13f}, -128, true);
  for (int64_t i = 0; i < 2 * 76; ++i) wide.weight[static_cast<size_t>(i)] = 127;
  wide.zp = -128, wide.relu = true;
  EXPECT_GT(acc_bound(wide, 0), 1200000);
  ASSERT_TRUE(lower_float_requant_rows(wide));
  EXPECT_TRUE(wide.frqs[0].two_lines);
  EXPECT_EQ(differing_on_every_channel(wide), 0);
}

TEST(RequantFloat, PerChannelTwoThreeWordLinesWithInterceptSteps) {
  // Multipliers of about 2^-13 and 2^-14 with 24-bit mantissas over 76 and
  // 152 weights of 127 (clamped ranges of 2^20 .. 2^22): each class of
  // thresholds needs S / 2 exactly (m its mantissa), a 45-bit product in
  // three words, and an intercept that steps at the float product's
  // binades; the first line into the third scratch tile V, the second into
  // A, then A += V. Every accumulator of every channel.
  std::mt19937 rng(11);
  Node n = per_channel_node(rng, 3, 152, {0x1.94b832p-13f, 0x1.768442p-14f, 0x1.3fa6acp-13f}, -128, true);
  for (int64_t i = 0; i < 3 * 152; ++i) n.weight[static_cast<size_t>(i)] = i % 152 < (i < 152 ? 76 : 152) ? 127 : 0;
  ASSERT_TRUE(lower_float_requant_rows(n));
  ASSERT_EQ(n.frqs.size(), 3u);
  bool steps = false;
  for (const FloatRequantVta& f : n.frqs) {
    EXPECT_TRUE(f.two_lines);
    steps = steps || !f.segs.empty() || !f.segs2.empty();
  }
  EXPECT_TRUE(steps) << "intercept steps";
  EXPECT_EQ(float_requant_words(n.frqs), 3);
  EXPECT_TRUE(needs_scratch3(n));
  const std::vector<AluStep> st = requant_steps(n);
  EXPECT_TRUE(std::any_of(st.begin(), st.end(), [](const AluStep& a) { return a.on == AluStep::On::AbyV; }));
  EXPECT_EQ(static_cast<int>(requant_rows(n).size()), requant_row_count(n));
  EXPECT_EQ(differing_on_every_channel(n), 0);
  {  // the block runner of the lowering's proof agrees with run_steps() on V
    std::vector<int32_t> rows, accs;
    for (const auto& r : requant_rows(n)) rows.push_back(r[1]);
    std::uniform_int_distribution<int32_t> any(-6000000, 6000000);
    for (int i = 0; i < 1000; ++i) accs.push_back(any(rng));
    std::vector<int32_t> block = accs;
    run_steps_n(block.data(), block.size(), st, rows);
    for (size_t i = 0; i < accs.size(); ++i) EXPECT_EQ(static_cast<int8_t>(block[i]), run_steps(accs[i], st, rows));
  }
  std::cout << st.size() << " ALU steps, " << requant_row_count(n) << " rows\n";
}

TEST(RequantFloat, PerChannelRefusesAChannelWithoutAForm) {
  // A 24-bit multiplier of about 2^-17 over a bound of 2^25: a clamped range
  // of 2^24 accumulators, where neither one line nor two (S / 2 exactly)
  // fits three 32-bit words; the node stays the host's.
  EXPECT_FALSE(lower_float_requant(0x1.3a5c2ep-17f, -128, true, int64_t{1} << 25, true));
  std::mt19937 rng(3);
  Node n = per_channel_node(rng, 2, 2081, {0x1.3p-8f, 0x1.3a5c2ep-17f}, -128, true);
  for (int64_t i = 2081; i < 2 * 2081; ++i) n.weight[static_cast<size_t>(i)] = 127;
  EXPECT_GT(acc_bound(n, 1), 33000000);
  EXPECT_FALSE(lower_float_requant_pair(0x1.3a5c2ep-17f, -128, true, acc_bound(n, 1)));
  EXPECT_FALSE(lower_float_requant_rows(n));
  EXPECT_TRUE(n.frqs.empty());
  EXPECT_NE(host_reason(n).find("output channel 1 "), std::string::npos) << host_reason(n);
  n.weight.resize(2081), n.bias.resize(1), n.fmults.resize(1), n.out.c = 1;  // the first channel alone: a form
  EXPECT_TRUE(lower_float_requant_rows(n));
}
