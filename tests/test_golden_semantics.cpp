// Golden-model semantics: every rule of docs/design.md's ISA contract exercised on
// small hand-built, correctly synchronised programs. Each program runs on the
// golden backend and on RefVta, a plain-loop reference of the contract written
// here that shares no code with the model (it reads the instruction structs
// directly, decodes uops with its own bit arithmetic and keeps its own SRAMs
// and DRAM copy). After every run all DRAM buffers and all five SRAMs must
// agree bit-exactly; most tests also check their point directly by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ref_vta.h"
#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/backend.h"

// Readable parameter values in test names and failure messages.
namespace vta::isa {
inline void PrintTo(MemId m, std::ostream* os) { *os << mem_name(m); }
inline void PrintTo(AluOp a, std::ostream* os) { *os << alu_name(a); }
}  // namespace vta::isa

namespace {

using vta::Config;
using vta::isa::AluOp;
using vta::isa::Insn;
using vta::isa::Member;
using vta::isa::MemId;
using vta::isa::Opcode;
using vta::test::make_alu;
using vta::test::make_finish;
using vta::test::make_gemm;
using vta::test::make_load;
using vta::test::make_store;
using vta::test::make_uop;
using vta::test::ProgramBuilder;
using vta::test::random_bytes;
using vta::test::with_deps;

constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

std::vector<uint8_t> int32_bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

/// Random bytes none of which is zero (so that a zero-fill is always visible).
std::vector<uint8_t> nonzero_bytes(size_t n, uint32_t seed) {
  auto b = random_bytes(n, seed);
  for (auto& x : b) x |= 1;
  return b;
}

int8_t low8(int32_t v) { return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint32_t>(v) & 0xffu)); }

const std::vector<std::string> kPresets = {"vta-1x16x16", "vta-4x16x16", "vta-1x32x32"};

std::string param_name(std::string s) {
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class PerPreset : public ::testing::TestWithParam<std::string> {};

// ---------------------------------------------------------------------------
// LOAD: padding, strides, rows, the end of the buffer.
// ---------------------------------------------------------------------------

struct Pads {
  const char* name;
  uint32_t yp0, yp1, xp0, xp1;
};
const Pads kPads[] = {{"NoPad", 0, 0, 0, 0},           {"YPad0", 2, 0, 0, 0},          {"YPad1", 0, 2, 0, 0},
                      {"XPad0", 0, 0, 3, 0},           {"XPad1", 0, 0, 0, 3},          {"AllSides", 1, 2, 3, 1},
                      {"MaxYPad0XPad1", 15, 0, 0, 15}, {"MaxYPad1XPad0", 0, 15, 15, 0}};

void PrintTo(const Pads& p, std::ostream* os) { *os << p.name; }

class LoadPadding : public ::testing::TestWithParam<std::tuple<std::string, MemId, Pads>> {};

// Pre-fills a region with non-zero data, then a padded 3x2 LOAD (x_stride 5)
// over its middle: pads must be zero, data rows must come from DRAM, and the
// elements just before and after must keep the pre-fill.
TEST_P(LoadPadding, ZeroFillsEachPadAndCopiesRows) {
  const std::string preset_name = std::get<0>(GetParam());
  const MemId mem = std::get<1>(GetParam());
  const Pads p = std::get<2>(GetParam());
  Vta v(preset_name);
  const bool on_load_module = mem == MemId::INP || mem == MemId::WGT;
  const MemId fill_mem = mem == MemId::ACC_8BIT ? MemId::ACC : mem;  // all 32 bits non-zero
  const uint32_t y = 3, x = 2, stride = 5, base = 5;
  const uint32_t row = p.xp0 + x + p.xp1, total = (p.yp0 + y + p.yp1) * row;
  ASSERT_LE(base + total + 1, v.g.depth(mem));

  const auto e_dram = static_cast<size_t>(v.g.dram_bytes(mem));
  const auto fill_bytes = nonzero_bytes((total + 2) * static_cast<size_t>(v.g.dram_bytes(fill_mem)), 11);
  const auto src_bytes = random_bytes(16 * e_dram, 12);
  const uint32_t fill = v.buffer(fill_mem, total + 2, fill_bytes);
  const uint32_t src = v.buffer(mem, 16, src_bytes);
  v.add(make_load(fill_mem, base - 1, fill, 1, total + 2, total + 2));
  Insn ld = make_load(mem, base, src + 1, y, x, stride, p.yp0, p.yp1, p.xp0, p.xp1);
  v.add(on_load_module ? with_deps(ld, false, false, false, true) : ld);
  v.add(on_load_module ? with_deps(make_finish(), true, false, false, false) : make_finish());
  v.run();

  // Direct check of the layout, element by element.
  const MemId read_mem = mem == MemId::ACC_8BIT ? MemId::ACC : mem;
  const auto e_sram = static_cast<size_t>(v.g.sram_bytes(mem));
  auto expect_elem = [&](uint32_t index, const uint8_t* dram_elem, const std::string& what) {
    std::vector<uint8_t> want(e_sram, 0);
    if (dram_elem) {
      if (mem == MemId::ACC_8BIT) {
        std::vector<int32_t> lanes(e_dram);
        for (size_t l = 0; l < e_dram; ++l) lanes[l] = static_cast<int8_t>(dram_elem[l]);
        want = int32_bytes(lanes);
      } else {
        want.assign(dram_elem, dram_elem + e_sram);
      }
    }
    EXPECT_EQ(v.sram(read_mem, index), want) << what << " at SRAM element " << index;
  };
  const size_t e_fill = static_cast<size_t>(v.g.sram_bytes(fill_mem));
  EXPECT_EQ(v.sram(read_mem, base - 1),
            std::vector<uint8_t>(fill_bytes.begin(), fill_bytes.begin() + static_cast<long>(e_fill)))
      << "element before the LOAD changed";
  EXPECT_EQ(v.sram(read_mem, base + total),
            std::vector<uint8_t>(fill_bytes.begin() + static_cast<long>((total + 1) * e_fill),
                                 fill_bytes.begin() + static_cast<long>((total + 2) * e_fill)))
      << "element after the LOAD changed";
  for (uint32_t r = 0; r < p.yp0 + y + p.yp1; ++r)
    for (uint32_t c = 0; c < row; ++c) {
      const uint32_t index = base + r * row + c;
      const bool pad = r < p.yp0 || r >= p.yp0 + y || c < p.xp0 || c >= p.xp0 + x;
      if (pad) {
        expect_elem(index, nullptr, "pad");
      } else {
        const size_t d = 1 + (r - p.yp0) * stride + (c - p.xp0);
        expect_elem(index, src_bytes.data() + d * e_dram, "data");
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Golden, LoadPadding,
                         ::testing::Combine(::testing::ValuesIn(kPresets),
                                            ::testing::Values(MemId::INP, MemId::WGT, MemId::ACC, MemId::ACC_8BIT),
                                            ::testing::ValuesIn(kPads)),
                         [](const auto& tpi) {
                           return param_name(std::get<0>(tpi.param)) + "_" +
                                  vta::isa::mem_name(std::get<1>(tpi.param)) + "_" + std::get<2>(tpi.param).name;
                         });

class LoadRows : public ::testing::TestWithParam<std::tuple<std::string, MemId, uint32_t>> {};

// y_size 4 rows of x_size 3 elements from DRAM rows x_stride apart land
// contiguously in SRAM (x_stride 3 = dense, 7 = strided).
TEST_P(LoadRows, StridedRowsLandContiguously) {
  const auto& [preset_name, mem, stride] = GetParam();
  Vta v(preset_name);
  const uint32_t y = 4, x = 3, base = 9, dram_off = 2;
  const auto e = static_cast<size_t>(v.g.dram_bytes(mem));
  const uint32_t count = dram_off + (y - 1) * stride + x;
  const auto bytes = random_bytes(count * e, 21);
  const uint32_t src = v.buffer(mem, count, bytes);
  const bool on_load_module = mem == MemId::INP || mem == MemId::WGT;
  Insn ld = make_load(mem, base, src + dram_off, y, x, stride);
  v.add(on_load_module ? with_deps(ld, false, false, false, true) : ld);
  v.add(on_load_module ? with_deps(make_finish(), true, false, false, false) : make_finish());
  v.run();
  for (uint32_t r = 0; r < y; ++r)
    for (uint32_t c = 0; c < x; ++c) {
      const size_t d = dram_off + r * stride + c;
      std::vector<uint8_t> want(bytes.begin() + static_cast<long>(d * e),
                                bytes.begin() + static_cast<long>((d + 1) * e));
      if (mem == MemId::ACC_8BIT) {
        std::vector<int32_t> lanes(e);
        for (size_t l = 0; l < e; ++l) lanes[l] = static_cast<int8_t>(want[l]);
        want = int32_bytes(lanes);
      }
      EXPECT_EQ(v.sram(mem == MemId::ACC_8BIT ? MemId::ACC : mem, base + r * x + c), want)
          << "row " << r << " col " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(Golden, LoadRows,
                         ::testing::Combine(::testing::ValuesIn(kPresets),
                                            ::testing::Values(MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC,
                                                              MemId::ACC_8BIT),
                                            ::testing::Values(3u, 7u)),
                         [](const auto& tpi) {
                           return param_name(std::get<0>(tpi.param)) + "_" +
                                  vta::isa::mem_name(std::get<1>(tpi.param)) + "_stride" +
                                  std::to_string(std::get<2>(tpi.param));
                         });

// A padded LOAD whose last pad element is the last element of each buffer.
TEST_P(PerPreset, PaddedLoadEndsAtTheLastBufferElement) {
  Vta v(GetParam());
  const uint32_t y = 2, x = 3, total = (1 + y + 2) * (2 + x + 1);
  for (MemId mem : {MemId::INP, MemId::WGT, MemId::ACC}) {
    // Pre-fill the top of the buffer so that the trailing pad rows are visible.
    const auto top = static_cast<uint32_t>(v.g.depth(mem)) - 8;
    const uint32_t fill = v.buffer(mem, 8, nonzero_bytes(8 * static_cast<size_t>(v.g.dram_bytes(mem)), 30));
    v.add(make_load(mem, top, fill, 1, 8, 8));
    const auto base = static_cast<uint32_t>(v.g.depth(mem)) - total;
    const uint32_t src = v.buffer(mem, 2 * x, random_bytes(2 * x * static_cast<size_t>(v.g.dram_bytes(mem)), 31));
    const Insn ld = make_load(mem, base, src, y, x, x, 1, 2, 2, 1);
    v.add(mem == MemId::WGT ? with_deps(ld, false, false, false, true) : ld);  // the last load-module LOAD
  }
  v.add(with_deps(make_finish(), true, false, false, false));
  v.run();
  for (MemId mem : {MemId::INP, MemId::WGT, MemId::ACC}) {
    const auto last = static_cast<uint32_t>(v.g.depth(mem)) - 1;
    EXPECT_EQ(v.sram(mem, last), std::vector<uint8_t>(static_cast<size_t>(v.g.sram_bytes(mem)), 0))
        << vta::isa::mem_name(mem);
  }
}

// ACC_8BIT: every DRAM byte >= 128 becomes a negative int32.
TEST_P(PerPreset, Acc8BitSignExtends) {
  Vta v(GetParam());
  const uint32_t n = 4;
  std::vector<uint8_t> bytes(n * v.lanes());
  for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<uint8_t>(k * 37 + 128);
  // Pre-fill with all-ones so that the upper 24 bits must be rewritten.
  v.add(make_load(MemId::ACC, 0, v.buffer(MemId::ACC, n, std::vector<uint8_t>(n * v.lanes() * 4, 0xff)), 1, n, n));
  v.add(make_load(MemId::ACC_8BIT, 0, v.buffer(MemId::ACC_8BIT, n, bytes), 1, n, n));
  v.add(make_finish());
  v.run();
  int negatives = 0;
  for (uint32_t i = 0; i < n; ++i) {
    auto a = v.acc(i);
    for (uint32_t l = 0; l < v.lanes(); ++l) {
      const uint8_t b = bytes[i * v.lanes() + l];
      const int32_t want = b >= 128 ? static_cast<int32_t>(b) - 256 : static_cast<int32_t>(b);
      negatives += want < 0;
      EXPECT_EQ(a[l], want) << "element " << i << " lane " << l << " byte " << int{b};
    }
  }
  EXPECT_GT(negatives, 0);
}

// ---------------------------------------------------------------------------
// GEMM
// ---------------------------------------------------------------------------

// GEMM reset zeroes ACC and OUT at exactly its destinations, whatever INP and
// WGT hold; the other elements keep ACC and OUT.
TEST_P(PerPreset, GemmResetZeroesAccAndOutAtItsDestinations) {
  Vta v(GetParam());
  const uint32_t n = 8;
  const auto acc_init = nonzero_bytes(n * v.lanes() * 4, 41);
  const uint32_t inp = v.buffer(MemId::INP, 2, nonzero_bytes(2 * static_cast<size_t>(v.g.sram_bytes(MemId::INP)), 42));
  const uint32_t wgt = v.buffer(MemId::WGT, 2, nonzero_bytes(2 * static_cast<size_t>(v.g.sram_bytes(MemId::WGT)), 43));
  const uint32_t acc = v.buffer(MemId::ACC, n, acc_init);
  // uop 0: ALU identity over [0, 8); uops 1-2: reset destinations 1, 4 (+2 inner).
  const uint32_t uops = v.uops({make_uop(0, 0, 0), make_uop(1, 0, 0), make_uop(4, 1, 1)});
  const uint32_t dst = v.buffer(MemId::OUT, n);
  v.add(make_load(MemId::INP, 0, inp, 1, 2, 2));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 2, 2), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 3, 3), true, false, false, false));
  v.add(make_load(MemId::ACC, 0, acc, 1, n, n));
  v.add(make_alu(AluOp::ADD, true, 0, 0, 1, 1, n, 0, 1, 0, 1));  // OUT = low 8 bits of ACC
  v.add(with_deps(make_gemm(true, 1, 3, 1, 2, 0, 2, 0, 1, 0, 1), false, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, n, n), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  const auto stored = v.dram(MemId::OUT, dst, n);
  for (uint32_t i = 0; i < n; ++i) {
    const bool reset = i == 1 || i == 3 || i == 4 || i == 6;
    auto a = v.acc(i);
    for (uint32_t l = 0; l < v.lanes(); ++l) {
      int32_t init;
      std::memcpy(&init, acc_init.data() + (i * v.lanes() + l) * 4, 4);
      EXPECT_EQ(a[l], reset ? 0 : init) << "ACC element " << i << " lane " << l;
      EXPECT_EQ(static_cast<int8_t>(stored[i * v.lanes() + l]), reset ? 0 : low8(init))
          << "OUT element " << i << " lane " << l;
    }
  }
}

// One GEMM with two uops and every loop factor non-zero: the destinations are
// all distinct, so each ACC element is one dot product of the INP and WGT
// elements named by the index formulas.
TEST_P(PerPreset, GemmLoopUsesEveryFactor) {
  Vta v(GetParam());
  const uint32_t io = 3, ii = 2;
  const uint32_t dfo = 5, dfi = 2, sfo = 4, sfi = 1, wfo = 3, wfi = 7;
  const std::vector<Insn> u = {make_uop(0, 0, 0), make_uop(1, 2, 1)};
  const uint32_t n_inp = 2 + (io - 1) * sfo + (ii - 1) * sfi + 1, n_wgt = 1 + (io - 1) * wfo + (ii - 1) * wfi + 1;
  const auto e_inp = static_cast<size_t>(v.g.sram_bytes(MemId::INP)),
             e_wgt = static_cast<size_t>(v.g.sram_bytes(MemId::WGT));
  const auto inp_bytes = random_bytes(n_inp * e_inp, 51), wgt_bytes = random_bytes(n_wgt * e_wgt, 52);
  const uint32_t inp = v.buffer(MemId::INP, n_inp, inp_bytes), wgt = v.buffer(MemId::WGT, n_wgt, wgt_bytes);
  const uint32_t uops = v.uops(u);
  const uint32_t n_acc = 1 + (io - 1) * dfo + (ii - 1) * dfi + 1;
  const uint32_t dst = v.buffer(MemId::OUT, n_acc);
  v.add(make_load(MemId::INP, 0, inp, 1, n_inp, n_inp));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, n_wgt, n_wgt), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 2, 2), true, false, false, false));
  v.add(with_deps(make_gemm(false, 0, 2, io, ii, dfo, dfi, sfo, sfi, wfo, wfi), false, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, n_acc, n_acc), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();

  std::vector<bool> written(n_acc, false);
  const int64_t B = v.g.batch, BI = v.g.bi, BO = v.g.bo;
  for (uint32_t i = 0; i < io; ++i)
    for (uint32_t j = 0; j < ii; ++j)
      for (uint32_t k = 0; k < 2; ++k) {
        const uint32_t d = k + i * dfo + j * dfi, s = 2 * k + i * sfo + j * sfi, w = k + i * wfo + j * wfi;
        ASSERT_FALSE(written[d]) << "test expects distinct destinations";
        written[d] = true;
        auto a = v.acc(d);
        for (int64_t b = 0; b < B; ++b)
          for (int64_t o = 0; o < BO; ++o) {
            int32_t sum = 0;
            for (int64_t q = 0; q < BI; ++q)
              sum += static_cast<int8_t>(inp_bytes[s * e_inp + static_cast<size_t>(b * BI + q)]) *
                     static_cast<int8_t>(wgt_bytes[w * e_wgt + static_cast<size_t>(o * BI + q)]);
            EXPECT_EQ(a[static_cast<size_t>(b * BO + o)], sum) << "dst " << d << " b " << b << " o " << o;
          }
      }
  for (uint32_t d = 0; d < n_acc; ++d)
    if (!written[d]) {
      EXPECT_EQ(v.acc(d), std::vector<int32_t>(v.lanes(), 0)) << "untouched ACC element " << d;
    }
}

// Loop factors that revisit a destination accumulate into it each time.
TEST_P(PerPreset, GemmRevisitedDestinationAccumulates) {
  Vta v(GetParam());
  const auto e_inp = static_cast<size_t>(v.g.sram_bytes(MemId::INP)),
             e_wgt = static_cast<size_t>(v.g.sram_bytes(MemId::WGT));
  const auto inp_bytes = random_bytes(3 * e_inp, 61), wgt_bytes = random_bytes(2 * e_wgt, 62);
  const uint32_t inp = v.buffer(MemId::INP, 3, inp_bytes), wgt = v.buffer(MemId::WGT, 2, wgt_bytes);
  const uint32_t uops = v.uops({make_uop(0, 0, 0)});
  const uint32_t dst = v.buffer(MemId::OUT, 3);
  v.add(make_load(MemId::INP, 0, inp, 1, 3, 3));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 2, 2), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 1, 1), true, false, false, false));
  // dst = i + j, src = i + j, wgt = j: dst 1 is hit by (0,1) and (1,0).
  v.add(with_deps(make_gemm(false, 0, 1, 2, 2, 1, 1, 1, 1, 0, 1), false, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, 3, 3), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  auto dot = [&](size_t s, size_t w, int64_t b, int64_t o) {
    int32_t sum = 0;
    for (int64_t q = 0; q < v.g.bi; ++q)
      sum += static_cast<int8_t>(inp_bytes[s * e_inp + static_cast<size_t>(b * v.g.bi + q)]) *
             static_cast<int8_t>(wgt_bytes[w * e_wgt + static_cast<size_t>(o * v.g.bi + q)]);
    return sum;
  };
  auto a1 = v.acc(1);
  for (int64_t b = 0; b < v.g.batch; ++b)
    for (int64_t o = 0; o < v.g.bo; ++o)
      EXPECT_EQ(a1[static_cast<size_t>(b * v.g.bo + o)], dot(1, 1, b, o) + dot(1, 0, b, o)) << "b " << b << " o " << o;
}

// ACC accumulation wraps around at 32 bits in both directions.
TEST_P(PerPreset, GemmAccumulationWrapsAt32Bits) {
  Vta v(GetParam());
  const auto e_inp = static_cast<size_t>(v.g.sram_bytes(MemId::INP)),
             e_wgt = static_cast<size_t>(v.g.sram_bytes(MemId::WGT));
  std::vector<uint8_t> inp_bytes(2 * e_inp), wgt_bytes(e_wgt, 127);
  std::fill(inp_bytes.begin(), inp_bytes.begin() + static_cast<long>(e_inp), 127);  // INP 0: +127
  std::fill(inp_bytes.begin() + static_cast<long>(e_inp), inp_bytes.end(), 0x80);   // INP 1: -128
  std::vector<int32_t> init(2 * v.lanes());
  std::fill(init.begin(), init.begin() + v.lanes(), kMax - 5);
  std::fill(init.begin() + v.lanes(), init.end(), kMin + 5);
  const uint32_t inp = v.buffer(MemId::INP, 2, inp_bytes), wgt = v.buffer(MemId::WGT, 1, wgt_bytes);
  const uint32_t acc = v.buffer(MemId::ACC, 2, int32_bytes(init));
  const uint32_t uops = v.uops({make_uop(0, 0, 0), make_uop(1, 1, 0)});
  v.add(make_load(MemId::INP, 0, inp, 1, 2, 2));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 1, 1), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 2, 2), true, false, false, false));
  v.add(make_load(MemId::ACC, 0, acc, 1, 2, 2));
  v.add(make_gemm(false, 0, 2, 1, 1));
  v.add(make_finish());
  v.run();
  const int64_t up = int64_t{kMax} - 5 + int64_t{127} * 127 * v.g.bi;
  const int64_t down = int64_t{kMin} + 5 - int64_t{128} * 127 * v.g.bi;
  EXPECT_EQ(v.acc(0), std::vector<int32_t>(v.lanes(), static_cast<int32_t>(up - (int64_t{1} << 32))));
  EXPECT_EQ(v.acc(1), std::vector<int32_t>(v.lanes(), static_cast<int32_t>(down + (int64_t{1} << 32))));
}

// A quantized matrix product: GEMM reset, GEMM over K blocks, bias add
// (vector ADD), rounding ADD, SHR, MAX -128, MIN 127, STORE. Checked against
// a host-side matrix product on the logical (unblocked) tensors.
TEST_P(PerPreset, GemmThenRequantizeChainThenStore) {
  Vta v(GetParam());
  const int64_t B = v.g.batch, BI = v.g.bi, BO = v.g.bo;
  const uint32_t R = 2, KB = 3, OB = 2, acc0 = 16, shift = 8;
  const auto e_inp = static_cast<size_t>(v.g.sram_bytes(MemId::INP)),
             e_wgt = static_cast<size_t>(v.g.sram_bytes(MemId::WGT));
  const auto inp_bytes = random_bytes(R * KB * e_inp, 71), wgt_bytes = random_bytes(OB * KB * e_wgt, 72);
  std::vector<int32_t> bias(R * OB * v.lanes());
  {
    auto rb = random_bytes(bias.size(), 73);
    for (size_t k = 0; k < bias.size(); ++k) bias[k] = (static_cast<int32_t>(rb[k]) - 128) * 64;
  }
  const uint32_t inp = v.buffer(MemId::INP, R * KB, inp_bytes), wgt = v.buffer(MemId::WGT, OB * KB, wgt_bytes);
  const uint32_t bias_buf = v.buffer(MemId::ACC, R * OB, int32_bytes(bias));
  // uops 0..2: dst acc0, src k, wgt k; uop 3: ALU dst acc0, src 0 (bias).
  const uint32_t uops =
      v.uops({make_uop(acc0, 0, 0), make_uop(acc0, 1, 1), make_uop(acc0, 2, 2), make_uop(acc0, 0, 0)});
  const uint32_t dst = v.buffer(MemId::OUT, R * OB);
  v.add(make_load(MemId::INP, 0, inp, 1, R * KB, R * KB));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, OB * KB, OB * KB), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 4, 4), true, false, false, false));
  v.add(make_load(MemId::ACC, 0, bias_buf, 1, R * OB, R * OB));
  // Output (r, ob) at ACC acc0 + r*OB + ob; INP (r, kb) at r*KB + kb; WGT (ob, kb) at ob*KB + kb.
  v.add(make_gemm(true, 0, 1, R, OB, OB, 1, 0, 0, 0, 0));
  v.add(make_gemm(false, 0, 3, R, OB, OB, 1, KB, 0, 0, KB));
  v.add(make_alu(AluOp::ADD, false, 0, 3, 4, R, OB, OB, 1, OB, 1));
  v.add(make_alu(AluOp::ADD, true, 1 << (shift - 1), 3, 4, R, OB, OB, 1, 0, 0));
  v.add(make_alu(AluOp::SHR, true, shift, 3, 4, R, OB, OB, 1, 0, 0));
  v.add(make_alu(AluOp::MAX, true, -128, 3, 4, R, OB, OB, 1, 0, 0));
  v.add(with_deps(make_alu(AluOp::MIN, true, 127, 3, 4, R, OB, OB, 1, 0, 0), false, false, false, true));
  v.add(with_deps(make_store(acc0, dst, 1, R * OB, R * OB), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();

  // Logical tensors: X[R*B][KB*BI], W[OB*BO][KB*BI], Y = clip((X Wᵀ + bias + 2^(s-1)) >> s).
  const auto got = v.dram(MemId::OUT, dst, R * OB);
  int unsaturated = 0;
  for (uint32_t r = 0; r < R; ++r)
    for (int64_t b = 0; b < B; ++b)
      for (uint32_t ob = 0; ob < OB; ++ob)
        for (int64_t o = 0; o < BO; ++o) {
          int64_t y = 0;
          for (uint32_t kb = 0; kb < KB; ++kb)
            for (int64_t k = 0; k < BI; ++k)
              y += int64_t{static_cast<int8_t>(inp_bytes[(r * KB + kb) * e_inp + static_cast<size_t>(b * BI + k)])} *
                   static_cast<int8_t>(wgt_bytes[(ob * KB + kb) * e_wgt + static_cast<size_t>(o * BI + k)]);
          const size_t lane = static_cast<size_t>(b * BO + o), elem = r * OB + ob;
          y += bias[elem * v.lanes() + lane] + (1 << (shift - 1));
          y = std::clamp<int64_t>(y >> shift, -128, 127);
          unsaturated += y > -128 && y < 127;
          EXPECT_EQ(static_cast<int8_t>(got[elem * v.lanes() + lane]), y)
              << "r " << r << " b " << b << " ob " << ob << " o " << o;
        }
  EXPECT_GT(unsaturated, 0) << "test data only exercises the clip";
}

// ---------------------------------------------------------------------------
// ALU
// ---------------------------------------------------------------------------

enum class Operand { ImmPositive, ImmNegative, Vector };
const char* operand_name(Operand o) {
  return o == Operand::ImmPositive ? "ImmPositive" : o == Operand::ImmNegative ? "ImmNegative" : "Vector";
}
void PrintTo(Operand o, std::ostream* os) { *os << operand_name(o); }

int32_t imm_for(AluOp op, Operand o) {
  const bool neg = o == Operand::ImmNegative;
  switch (op) {
    case AluOp::MIN:
    case AluOp::MAX:
      return neg ? -1000 : 1000;
    case AluOp::ADD:
      return neg ? -32768 : 32767;
    case AluOp::SHR:
      return neg ? -7 : 5;
    case AluOp::MUL:
      return neg ? -3 : 3;
  }
  return 0;
}

class AluOps : public ::testing::TestWithParam<std::tuple<std::string, AluOp, Operand>> {};

// Each op with a positive immediate, a negative immediate and a vector
// operand, over a uop loop with every factor non-zero; operands include the
// int32 extremes. dst indices 0..7, src indices 8..13 (disjoint).
TEST_P(AluOps, MatchesReferenceOverALoop) {
  const auto& [preset_name, op, operand] = GetParam();
  Vta v(preset_name);
  const uint32_t n = 16;
  std::vector<int32_t> init(n * v.lanes());
  {
    auto rb = random_bytes(init.size() * 4, 81);
    std::memcpy(init.data(), rb.data(), rb.size());
    const int32_t special[] = {kMax, kMin, 0, -1, 1, 31, -32, 64};
    for (size_t k = 0; k < init.size(); k += 3) init[k] = special[(k / 3) % 8];
    for (size_t k = 1; k < init.size(); k += 5) init[k] = static_cast<int32_t>(k % 97) - 48;  // small values too
  }
  const uint32_t acc = v.buffer(MemId::ACC, n, int32_bytes(init));
  const uint32_t uops = v.uops({make_uop(0, 8, 0), make_uop(1, 9, 0)});
  const uint32_t dst = v.buffer(MemId::OUT, 8);
  const bool use_imm = operand != Operand::Vector;
  const int32_t imm = use_imm ? imm_for(op, operand) : 0;
  v.add(make_load(MemId::UOP, 0, uops, 1, 2, 2));
  v.add(make_load(MemId::ACC, 0, acc, 1, n, n));
  v.add(with_deps(make_alu(op, use_imm, imm, 0, 2, 2, 2, 4, 2, 3, 1), false, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, 8, 8), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  const auto stored = v.dram(MemId::OUT, dst, 8);
  for (uint32_t i = 0; i < 2; ++i)
    for (uint32_t j = 0; j < 2; ++j)
      for (uint32_t u = 0; u < 2; ++u) {
        const uint32_t d = u + 4 * i + 2 * j, s = 8 + u + 3 * i + j;
        auto a = v.acc(d);
        for (uint32_t l = 0; l < v.lanes(); ++l) {
          const int32_t want =
              ref_alu(static_cast<uint32_t>(op), init[d * v.lanes() + l], use_imm ? imm : init[s * v.lanes() + l]);
          EXPECT_EQ(a[l], want) << "dst " << d << " lane " << l;
          EXPECT_EQ(static_cast<int8_t>(stored[d * v.lanes() + l]), low8(want)) << "OUT " << d << " lane " << l;
        }
      }
}

INSTANTIATE_TEST_SUITE_P(
    Golden, AluOps,
    ::testing::Combine(::testing::ValuesIn(kPresets),
                       ::testing::Values(AluOp::MIN, AluOp::MAX, AluOp::ADD, AluOp::SHR, AluOp::MUL),
                       ::testing::Values(Operand::ImmPositive, Operand::ImmNegative, Operand::Vector)),
    [](const auto& tpi) {
      return param_name(std::get<0>(tpi.param)) + "_" + vta::isa::alu_name(std::get<1>(tpi.param)) + "_" +
             operand_name(std::get<2>(tpi.param));
    });

/// Runs one ALU uop acc[0] = op(acc[0], imm or acc[1]) with lane l of
/// acc[0]/acc[1] taken from cases[l % n]; returns the lanes of acc[0] and
/// expects OUT[0] to be their low bytes.
struct Case {
  int32_t a, b, want;
};
void expect_alu_cases(const std::string& preset_name, AluOp op, const std::vector<Case>& cases, bool use_imm) {
  Vta v(preset_name);
  std::vector<int32_t> init(2 * v.lanes());
  for (uint32_t l = 0; l < v.lanes(); ++l) {
    init[l] = cases[l % cases.size()].a;
    init[v.lanes() + l] = cases[l % cases.size()].b;
  }
  const int32_t imm = use_imm ? cases[0].b : 0;
  if (use_imm) {
    for (const Case& c : cases) ASSERT_EQ(c.b, imm) << "an immediate is the same for every lane";
  }
  v.add(make_load(MemId::UOP, 0, v.uops({make_uop(0, 1, 0)}), 1, 1, 1));
  v.add(make_load(MemId::ACC, 0, v.buffer(MemId::ACC, 2, int32_bytes(init)), 1, 2, 2));
  v.add(make_alu(op, use_imm, imm, 0, 1, 1, 1));
  v.add(make_finish());
  v.run();
  const auto a = v.acc(0);
  const auto o = v.out(0);
  for (uint32_t l = 0; l < v.lanes(); ++l) {
    const Case& c = cases[l % cases.size()];
    EXPECT_EQ(a[l], c.want) << vta::isa::alu_name(op) << "(" << c.a << ", " << c.b << ")" << (use_imm ? " imm" : "");
    EXPECT_EQ(o[l], low8(c.want)) << "OUT lane " << l;
  }
}

TEST_P(PerPreset, AluAddWrapsAroundAtInt32Max) {
  expect_alu_cases(GetParam(), AluOp::ADD,
                   {{kMax, 1, kMin}, {kMax, kMax, -2}, {kMin, -1, kMax}, {kMin, kMin, 0}, {5, -7, -2}, {-1, 1, 0}},
                   false);
  expect_alu_cases(GetParam(), AluOp::ADD, {{kMax, 1, kMin}, {-1, 1, 0}, {kMax - 1, 1, kMax}}, true);
  expect_alu_cases(GetParam(), AluOp::ADD, {{kMin, -1, kMax}, {0, -1, -1}, {1, -1, 0}}, true);
}

TEST_P(PerPreset, AluMulWrapsAt32Bits) {
  expect_alu_cases(GetParam(), AluOp::MUL,
                   {{65536, 65536, 0},
                    {kMax, 2, -2},
                    {kMin, -1, kMin},
                    {46341, 46341, static_cast<int32_t>(int64_t{46341} * 46341 - (int64_t{1} << 32))},
                    {-3, 7, -21},
                    {0x12345678, 16, 0x23456780},
                    {-65536, 32768, kMin}},
                   false);
  expect_alu_cases(GetParam(), AluOp::MUL, {{kMax, 2, -2}, {100000, 2, 200000}, {kMin, 2, 0}}, true);
  expect_alu_cases(GetParam(), AluOp::MUL, {{100000, -30000, 1294967296}, {-7, -30000, 210000}}, true);
}

// SHR: the amount is the operand's low 6 bits, signed; negative shifts left.
TEST_P(PerPreset, AluShrVectorAmounts) {
  expect_alu_cases(GetParam(), AluOp::SHR,
                   {{-1000, 3, -125},
                    {1000, 3, 125},
                    {-7, 1, -4},
                    {1, -1, 2},
                    {3, -31, kMin},
                    {0x12345678, -32, 0},
                    {-1, -32, 0},
                    {kMin, 31, -1},
                    {kMax, 31, 0},
                    {0x40, 32, 0},          // low 6 bits 32 -> -32
                    {5, 63, 10},            // 63 -> -1
                    {5, 64, 5},             // 64 -> 0
                    {5, -64, 5},            // low 6 bits 0
                    {0x100, 0x102, 0x40},   // low 6 bits 2
                    {1, 0x7fffffe1, kMin},  // low 6 bits 33 -> -31
                    {kMin, 1, -(1 << 30)}},
                   false);
}

TEST_P(PerPreset, AluShrImmediateEdges) {
  expect_alu_cases(GetParam(), AluOp::SHR, {{kMin, 31, -1}, {kMax, 31, 0}, {-2, 31, -1}, {12345, 31, 0}}, true);
  expect_alu_cases(GetParam(), AluOp::SHR, {{kMin, -32, 0}, {-1, -32, 0}, {0x12345678, -32, 0}}, true);
  expect_alu_cases(GetParam(), AluOp::SHR, {{-3, -1, -6}, {kMax, -1, -2}, {0x40000000, -1, kMin}}, true);
  expect_alu_cases(GetParam(), AluOp::SHR, {{-1000, 4, -63}, {1000, 4, 62}}, true);
  expect_alu_cases(GetParam(), AluOp::SHR, {{0x7fff, 32, 0}, {-1, 32, 0}}, true);    // 32 -> -32
  expect_alu_cases(GetParam(), AluOp::SHR, {{-33, -33, -1}, {kMax, -33, 0}}, true);  // -33 -> 31
  expect_alu_cases(GetParam(), AluOp::SHR, {{6, 65, 3}, {-6, 65, -3}}, true);        // 65 -> 1
}

TEST_P(PerPreset, AluMinMaxAreSigned) {
  expect_alu_cases(GetParam(), AluOp::MIN, {{-5, 3, -5}, {kMin, kMax, kMin}, {kMax, -1, -1}, {7, 7, 7}}, false);
  expect_alu_cases(GetParam(), AluOp::MAX, {{-5, 3, 3}, {kMin, kMax, kMax}, {kMax, -1, kMax}, {-7, -8, -7}}, false);
  expect_alu_cases(GetParam(), AluOp::MAX, {{-100, -1, -1}, {5, -1, 5}, {kMin, -1, -1}}, true);
  // imm 0x8000 is -32768, not 32768.
  expect_alu_cases(GetParam(), AluOp::MIN, {{100, -32768, -32768}, {-40000, -32768, -40000}}, true);
  expect_alu_cases(GetParam(), AluOp::MAX, {{100, -32768, 100}, {-40000, -32768, -32768}}, true);
}

// A uop with dst == src reads its operand before writing it.
TEST_P(PerPreset, AluWithDstEqualToSrc) {
  Vta v(GetParam());
  std::vector<int32_t> init(3 * v.lanes());
  for (size_t k = 0; k < init.size(); ++k) init[k] = static_cast<int32_t>(k * 7) - 100;
  v.add(make_load(MemId::UOP, 0, v.uops({make_uop(0, 0, 0), make_uop(1, 1, 0), make_uop(2, 2, 0)}), 1, 3, 3));
  v.add(make_load(MemId::ACC, 0, v.buffer(MemId::ACC, 3, int32_bytes(init)), 1, 3, 3));
  v.add(make_alu(AluOp::ADD, false, 0, 0, 1, 1, 1));
  v.add(make_alu(AluOp::MUL, false, 0, 1, 2, 1, 1));
  v.add(make_alu(AluOp::MIN, false, 0, 2, 3, 1, 1));
  v.add(make_finish());
  v.run();
  for (uint32_t l = 0; l < v.lanes(); ++l) {
    EXPECT_EQ(v.acc(0)[l], 2 * init[l]);
    EXPECT_EQ(v.acc(1)[l], init[v.lanes() + l] * init[v.lanes() + l]);
    EXPECT_EQ(v.acc(2)[l], init[2 * v.lanes() + l]);
  }
}

// Loop iterations run in order: with dst = src + 1 stepping by one, each
// iteration reads the previous one's result (a running sum).
TEST_P(PerPreset, AluLoopIterationsRunInOrder) {
  Vta v(GetParam());
  const uint32_t n = 7;
  std::vector<int32_t> init(n * v.lanes());
  for (size_t k = 0; k < init.size(); ++k) init[k] = static_cast<int32_t>(k % 13) - 6;
  v.add(make_load(MemId::UOP, 0, v.uops({make_uop(1, 0, 0)}), 1, 1, 1));
  v.add(make_load(MemId::ACC, 0, v.buffer(MemId::ACC, n, int32_bytes(init)), 1, n, n));
  v.add(make_alu(AluOp::ADD, false, 0, 0, 1, 2, 3, 3, 1, 3, 1));  // (i, j): dst 1+3i+j, src 3i+j
  v.add(make_finish());
  v.run();
  for (uint32_t l = 0; l < v.lanes(); ++l) {
    int32_t running = init[l];
    for (uint32_t d = 1; d < n; ++d) {
      running += init[d * v.lanes() + l];
      EXPECT_EQ(v.acc(d)[l], running) << "element " << d << " lane " << l;
    }
  }
}

// ---------------------------------------------------------------------------
// OUT, STORE, tokens, FINISH
// ---------------------------------------------------------------------------

class AccLoadKeepsOut : public ::testing::TestWithParam<std::tuple<std::string, MemId>> {};

// OUT is written by an ALU op, then ACC is reloaded with different data: a
// STORE still sees the ALU's OUT, while ACC holds the new data.
TEST_P(AccLoadKeepsOut, StoreAfterAccLoadSeesPreviousOut) {
  const auto& [preset_name, mem] = GetParam();
  Vta v(preset_name);
  const uint32_t n = 4;
  std::vector<int32_t> a(n * v.lanes());
  {
    auto rb = random_bytes(a.size() * 4, 91);
    std::memcpy(a.data(), rb.data(), rb.size());
  }
  // Second load: low byte of every lane differs from the first.
  std::vector<uint8_t> second;
  std::vector<int32_t> b(a.size());
  for (size_t k = 0; k < a.size(); ++k)
    b[k] = mem == MemId::ACC ? static_cast<int32_t>(static_cast<uint32_t>(a[k]) + 1u)
                             : static_cast<int8_t>(low8(a[k]) + 1);
  if (mem == MemId::ACC) {
    second = int32_bytes(b);
  } else {
    for (int32_t x : b) second.push_back(static_cast<uint8_t>(x));
  }
  const uint32_t first_buf = v.buffer(MemId::ACC, n, int32_bytes(a)), second_buf = v.buffer(mem, n, second);
  const uint32_t dst = v.buffer(MemId::OUT, n);
  v.add(make_load(MemId::UOP, 0, v.uops({make_uop(0, 0, 0)}), 1, 1, 1));
  v.add(make_load(MemId::ACC, 0, first_buf, 1, n, n));
  v.add(make_alu(AluOp::ADD, true, 0, 0, 1, 1, n, 0, 1, 0, 0));  // OUT = low 8 bits of a
  v.add(with_deps(make_load(mem, 0, second_buf, 1, n, n), false, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, n, n), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  const auto stored = v.dram(MemId::OUT, dst, n);
  for (uint32_t i = 0; i < n; ++i) {
    const auto acc = v.acc(i);
    for (uint32_t l = 0; l < v.lanes(); ++l) {
      const size_t k = i * v.lanes() + l;
      EXPECT_EQ(acc[l], b[k]) << "the ACC load itself did not happen";
      EXPECT_EQ(static_cast<int8_t>(stored[k]), low8(a[k]))
          << "OUT changed by an ACC load at element " << i << " lane " << l;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, AccLoadKeepsOut,
                         ::testing::Combine(::testing::ValuesIn(kPresets),
                                            ::testing::Values(MemId::ACC, MemId::ACC_8BIT)),
                         [](const auto& tpi) {
                           return param_name(std::get<0>(tpi.param)) + "_" + vta::isa::mem_name(std::get<1>(tpi.param));
                         });

// x_size 0 LOADs (with rows and pads set, and a DRAM address outside any
// buffer) and STOREs change nothing but still move their tokens: the program
// only completes if every one of their pushes happens.
TEST_P(PerPreset, TokenOnlyLoadAndStoreMoveTokensOnly) {
  Vta v(GetParam());
  const uint32_t n = 8;
  const auto inp_bytes = nonzero_bytes(n * static_cast<size_t>(v.g.sram_bytes(MemId::INP)), 101);
  const auto acc_bytes = nonzero_bytes(n * v.lanes() * 4, 102);
  const uint32_t inp = v.buffer(MemId::INP, n, inp_bytes), acc = v.buffer(MemId::ACC, n, acc_bytes);
  const auto pattern = nonzero_bytes(n * v.lanes(), 103);
  const uint32_t real_dst = v.buffer(MemId::OUT, n), untouched = v.buffer(MemId::OUT, n, pattern);
  const uint32_t nowhere = 0x0fffff00;  // no buffer there
  Insn token_load = make_load(MemId::INP, 0, nowhere, 3, 0, 0, 1, 1, 1, 1);
  Insn token_acc = make_load(MemId::ACC, 0, nowhere, 3, 0, 0, 1, 1, 1, 1);
  Insn token_store = make_store(0, untouched, 2, 0, 4);
  v.add(make_load(MemId::INP, 0, inp, 1, n, n));
  v.add(with_deps(token_load, false, false, false, true));  // L2C +1
  v.add(with_deps(make_load(MemId::UOP, 0, v.uops({make_uop(0, 0, 0)}), 1, 1, 1), true, false, false, false));
  v.add(make_load(MemId::ACC, 0, acc, 1, n, n));
  v.add(with_deps(make_alu(AluOp::ADD, true, 1, 0, 1, 1, n, 0, 1, 0, 0), false, false, false, true));  // C2S +1
  v.add(with_deps(make_store(0, real_dst, 1, n, n), true, false, false, false));
  v.add(with_deps(token_store, false, false, true, false));    // S2C +1
  v.add(with_deps(token_acc, false, true, false, true));       // S2C -1, C2S +1
  v.add(with_deps(token_store, true, false, true, false));     // C2S -1, S2C +1
  v.add(with_deps(make_finish(), false, true, false, false));  // S2C -1
  v.run();
  EXPECT_EQ(v.sram(MemId::INP, 0, n), inp_bytes) << "token-only LOAD wrote INP";
  EXPECT_EQ(v.dram(MemId::OUT, untouched, n), pattern) << "token-only STORE wrote DRAM";
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<int32_t> want(v.lanes());
    std::memcpy(want.data(), acc_bytes.data() + i * v.lanes() * 4, v.lanes() * 4);
    for (auto& w : want) w = static_cast<int32_t>(static_cast<uint32_t>(w) + 1u);
    EXPECT_EQ(v.acc(i), want) << "token-only ACC LOAD changed ACC element " << i;
  }
  const auto s = v.stats();
  EXPECT_EQ(s.get("tokens.load->compute"), 1u);
  EXPECT_EQ(s.get("tokens.compute->store"), 2u);
  EXPECT_EQ(s.get("tokens.store->compute"), 2u);
  EXPECT_EQ(s.get("dram.read_bytes.INP"), n * static_cast<uint64_t>(v.g.sram_bytes(MemId::INP)));
  EXPECT_EQ(s.get("dram.write_bytes.OUT"), n * static_cast<uint64_t>(v.lanes()));
}

// FINISH may pop both of compute's queues; every token is consumed.
TEST_P(PerPreset, FinishPopsPrevAndNext) {
  Vta v(GetParam());
  const uint32_t inp = v.buffer(MemId::INP, 1, random_bytes(static_cast<size_t>(v.g.sram_bytes(MemId::INP)), 111));
  const uint32_t wgt = v.buffer(MemId::WGT, 1, random_bytes(static_cast<size_t>(v.g.sram_bytes(MemId::WGT)), 112));
  const uint32_t dst = v.buffer(MemId::OUT, 1);
  v.add(with_deps(make_load(MemId::INP, 0, inp, 1, 1, 1), false, false, false, true));
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 1, 1), false, false, false, true));
  // A third load->compute token, for FINISH: the GEMM must wait for the
  // second (WGT), or on the RTL it reads the weights before they arrive.
  v.add(with_deps(make_load(MemId::INP, 0, 0, 0, 0, 0), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, v.uops({make_uop(0, 0, 0)}), 1, 1, 1), true, false, false, false));
  v.add(with_deps(make_gemm(false, 0, 1, 1, 1), true, false, false, true));
  v.add(with_deps(make_store(0, dst, 1, 1, 1), true, false, true, false));
  v.add(with_deps(make_finish(), true, true, false, false));
  v.run();
  EXPECT_NE(v.dram(MemId::OUT, dst, 1), std::vector<uint8_t>(v.lanes(), 0)) << "the GEMM result is trivially zero";
  const auto s = v.stats();
  EXPECT_EQ(s.get("tokens.load->compute"), 3u);
  EXPECT_EQ(s.get("tokens.compute->store"), 1u);
  EXPECT_EQ(s.get("tokens.store->compute"), 1u);
  EXPECT_EQ(s.get("insn.FINISH"), 1u);
}

// A FINISH that pops a token nobody pushes never completes: a deadlock error.
TEST_P(PerPreset, FinishWaitingForAMissingTokenIsADeadlock) {
  Vta v(GetParam());
  v.add(make_store(0, v.buffer(MemId::OUT, 1), 1, 1, 1));  // pushes nothing
  v.add(with_deps(make_finish(), false, true, false, false));
  try {
    v.pb->run();
    ADD_FAILURE() << "expected a deadlock error";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("store->compute"), std::string::npos) << e.what();
  }
}

// On-chip buffers keep their contents between runs: a second program that
// only STOREs sees the OUT written by the first.
TEST_P(PerPreset, SramPersistsAcrossRuns) {
  Vta v(GetParam());
  const uint32_t n = 3;
  v.add(make_load(MemId::UOP, 0, v.uops({make_uop(0, 0, 0)}), 1, 1, 1));
  v.add(make_load(MemId::ACC, 0, v.buffer(MemId::ACC, n, nonzero_bytes(n * v.lanes() * 4, 121)), 1, n, n));
  v.add(make_alu(AluOp::MUL, true, 3, 0, 1, 1, n, 0, 1, 0, 0));
  v.add(make_finish());
  v.run();
  std::vector<uint8_t> out_after_first = v.sram(MemId::OUT, 0, n);
  v.next_program();
  const uint32_t dst = v.buffer(MemId::OUT, n);
  v.add(with_deps(make_store(0, dst, 1, n, n), false, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  EXPECT_EQ(v.dram(MemId::OUT, dst, n), out_after_first);
  EXPECT_NE(out_after_first, std::vector<uint8_t>(n * v.lanes(), 0));
}

// ---------------------------------------------------------------------------
// Stats
// ---------------------------------------------------------------------------

// Counters equal what the instructions imply, counted here by hand.
TEST_P(PerPreset, StatsCountWhatTheProgramDoes) {
  Vta v(GetParam());
  const auto e_inp = static_cast<uint64_t>(v.g.sram_bytes(MemId::INP)),
             e_wgt = static_cast<uint64_t>(v.g.sram_bytes(MemId::WGT));
  const uint32_t inp = v.buffer(MemId::INP, 16, random_bytes(16 * e_inp, 131));
  const uint32_t wgt = v.buffer(MemId::WGT, 8, random_bytes(8 * e_wgt, 132));
  const uint32_t uops = v.uops({make_uop(0, 0, 0), make_uop(1, 1, 1), make_uop(2, 2, 2)});
  const uint32_t acc = v.buffer(MemId::ACC, 4, random_bytes(4 * v.lanes() * 4, 133));
  const uint32_t dst = v.buffer(MemId::OUT, 16);
  v.add(make_load(MemId::INP, 0, inp, 2, 3, 5, 1, 0, 1, 0));  // 6 elements from DRAM, 12 written
  v.add(make_load(MemId::INP, 20, inp, 4, 0, 4));             // token-only: 0 bytes
  v.add(make_load(MemId::INP, 30, inp + 8, 1, 4, 4));         // 4 elements
  v.add(with_deps(make_load(MemId::WGT, 0, wgt, 1, 8, 8), false, false, false, true));
  v.add(with_deps(make_load(MemId::UOP, 0, uops, 1, 3, 3), true, false, false, false));
  v.add(make_load(MemId::ACC, 0, acc, 2, 2, 2));
  v.add(make_gemm(true, 0, 1, 2, 1, 1, 0, 0, 0, 0, 0));   // reset: 2 uop iterations, no MACs
  v.add(make_gemm(false, 0, 2, 2, 3, 4, 1, 3, 1, 2, 1));  // 12 uop iterations
  v.add(make_gemm(false, 2, 3, 1, 1));                    // 1 uop iteration
  v.add(with_deps(make_alu(AluOp::ADD, true, 1, 0, 3, 1, 2, 0, 3, 0, 0), false, false, false, true));  // 6
  v.add(with_deps(make_store(0, dst, 2, 5, 8), true, false, true, false));
  v.add(with_deps(make_finish(), false, true, false, false));
  v.run();
  const uint64_t macs_per_uop = static_cast<uint64_t>(v.g.batch * v.g.bi * v.g.bo);
  const auto s = v.stats();
  EXPECT_EQ(s.get("insn.GEMM"), 3u);
  EXPECT_EQ(s.get("insn.LOAD"), 6u);
  EXPECT_EQ(s.get("insn.ALU"), 1u);
  EXPECT_EQ(s.get("insn.STORE"), 1u);
  EXPECT_EQ(s.get("insn.total"), 12u);
  EXPECT_EQ(s.get("uops.gemm"), 2u + 12u + 1u);
  EXPECT_EQ(s.get("uops.alu"), 6u);
  EXPECT_EQ(s.get("gemm.macs"), 13u * macs_per_uop);
  EXPECT_EQ(s.get("dram.read_bytes.INP"), 10u * e_inp);
  EXPECT_EQ(s.get("dram.read_bytes.WGT"), 8u * e_wgt);
  EXPECT_EQ(s.get("dram.write_bytes.OUT"), 10u * v.lanes());
  // SRAM traffic per buffer and ALU lane operations (the energy estimate's
  // activity): 15 GEMM uop iterations (13 with MACs), 6 ALU ones (immediate).
  const uint64_t lanes = static_cast<uint64_t>(v.lanes()), acc_e = lanes * 4, uop_e = 4;
  EXPECT_EQ(s.get("sram.write_bytes.INP"), 16u * e_inp);  // padding written too
  EXPECT_EQ(s.get("sram.write_bytes.WGT"), 8u * e_wgt);
  EXPECT_EQ(s.get("sram.write_bytes.UOP"), 3u * uop_e);
  EXPECT_EQ(s.get("sram.read_bytes.UOP"), (15u + 6u) * uop_e);
  EXPECT_EQ(s.get("sram.read_bytes.INP"), 13u * e_inp);
  EXPECT_EQ(s.get("sram.read_bytes.WGT"), 13u * e_wgt);
  EXPECT_EQ(s.get("sram.read_bytes.ACC"), (13u + 6u) * acc_e);
  EXPECT_EQ(s.get("sram.write_bytes.ACC"), (4u + 15u + 6u) * acc_e);
  EXPECT_EQ(s.get("sram.write_bytes.OUT"), (15u + 6u) * lanes);
  EXPECT_EQ(s.get("sram.read_bytes.OUT"), 10u * lanes);
  EXPECT_EQ(s.get("alu.lane_ops"), 6u * lanes);
  // The reference's counters agree with the hand counts.
  EXPECT_EQ(v.ref.counts.macs, 13u * macs_per_uop);
  EXPECT_EQ(v.ref.counts.gemm_uops, 15u);
  EXPECT_EQ(v.ref.counts.read_bytes[static_cast<size_t>(MemId::INP)], 10u * e_inp);
}

INSTANTIATE_TEST_SUITE_P(Golden, PerPreset, ::testing::ValuesIn(kPresets),
                         [](const auto& tpi) { return param_name(tpi.param); });

}  // namespace
