// Seeded random programs on the golden backend, checked bit-exactly against
// an independent plain-loop reference of DESIGN.md's ISA contract (RefVta,
// tests/support/ref_vta.h, shared with test_golden_semantics.cpp). Every program is valid and correctly synchronised:
// tiles of load -> compute -> store phases chained by dependency tokens, so
// that every legal schedule equals program order, which the reference runs.
// Shapes, padding, strides, uop loops, GEMM/ALU mixes and stores are random
// within the buffers; indices are drawn from small windows (at the bottom,
// the middle or the top of each buffer) so that instructions interact.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ref_vta.h"
#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/backend.h"

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


// ---------------------------------------------------------------------------
// Random program generator.
// ---------------------------------------------------------------------------

/// A range [lo, lo + size) of one SRAM that a program's indices stay in.
struct Window {
  uint32_t lo = 0, size = 0;
};

class Generator {
 public:
  Generator(Vta& v, uint32_t seed) : v_(v), rng_(seed), layout_(v.cfg) {
    for (MemId m : {MemId::INP, MemId::WGT, MemId::ACC}) win_[static_cast<size_t>(m)] = pick_window(m);
  }

  /// Appends one whole program (tiles, then FINISH) to v's builder.
  void program() {
    const int tiles = rand(1, 3);
    const bool final_load = coin(0.3);
    for (int t = 0; t < tiles; ++t) {
      const bool first = t == 0, last = t == tiles - 1;
      // Load phase: INP/WGT loads; waits for the previous compute phase.
      std::vector<Insn> load;
      if (first)  // usually fill the whole windows first, so that GEMMs see data everywhere
        for (MemId m : {MemId::INP, MemId::WGT})
          if (coin(0.8)) load.push_back(window_fill(m));
      for (int k = rand(0, 3); k > 0; --k) load.push_back(random_load(coin(0.5) ? MemId::INP : MemId::WGT));
      if (load.empty()) load.push_back(token_only(MemId::INP));
      load.front()[Member::pop_next] = !first;
      load.back()[Member::push_next] = 1;
      // Compute phase: UOP load, ACC loads, GEMMs and ALUs.
      std::vector<Insn> compute = compute_phase();
      if (first && coin(0.5)) compute.insert(compute.begin(), window_fill(MemId::ACC));
      compute.front()[Member::pop_prev] = 1;
      compute.front()[Member::pop_next] = !first;
      compute.back()[Member::push_prev] = !last || final_load;
      compute.back()[Member::push_next] = 1;
      // Store phase.
      std::vector<Insn> store;
      for (int k = rand(1, 2); k > 0; --k) store.push_back(random_store());
      store.front()[Member::pop_prev] = 1;
      store.back()[Member::push_prev] = 1;
      for (const auto* phase : {&load, &compute, &store})
        for (const Insn& i : *phase) v_.add(i);
    }
    if (final_load) v_.add(with_deps(token_only(MemId::WGT), false, true, false, true));
    v_.add(with_deps(make_finish(), final_load, true, false, false));
  }

 private:
  int rand(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }
  uint32_t urand(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }

  Window pick_window(MemId m) {
    const auto depth = static_cast<uint32_t>(v_.g.depth(m));
    const uint32_t sizes[] = {8, 24, 96};
    Window w;
    w.size = std::min(depth, sizes[rand(0, 2)]);
    const int where = rand(0, 3);
    w.lo = where == 0 ? 0 : where == 1 ? depth - w.size : urand(0, depth - w.size);
    return w;
  }
  const Window& window(MemId m) const { return win_[static_cast<size_t>(m == MemId::ACC_8BIT ? MemId::ACC : m)]; }

  uint32_t pad() {
    const int r = rand(0, 9);
    return r < 6 ? 0 : r < 9 ? urand(1, 2) : urand(3, 15);
  }

  Insn token_only(MemId m) {
    // Rows, pads and a DRAM address that names no buffer: all ignored.
    return make_load(m, urand(0, 100), urand(0, 0xffffff), urand(0, 4), 0, urand(0, 9), pad(), pad(), pad(), pad());
  }

  /// A LOAD of memory `m` (INP, WGT, ACC, ACC_8BIT) into its window, with
  /// random rows, stride and pads, from a fresh random DRAM buffer.
  Insn random_load(MemId m) {
    if (coin(0.08)) return token_only(m);
    const Window& w = window(m);
    uint32_t x, y, yp0, yp1, xp0, xp1, total;
    do {
      x = urand(1, 6);
      y = urand(1, 3);
      yp0 = pad(), yp1 = pad(), xp0 = pad(), xp1 = pad();
      total = (yp0 + y + yp1) * (xp0 + x + xp1);
    } while (total > w.size);
    const uint32_t stride = x + (coin(0.5) ? 0 : urand(1, 3)), off = urand(0, 3);
    const uint32_t count = off + (y - 1) * stride + x;
    const uint32_t buf =
        v_.buffer(m, count, random_bytes(count * static_cast<size_t>(v_.g.dram_bytes(m)), next_seed()));
    return make_load(m, w.lo + urand(0, w.size - total), buf + off, y, x, stride, yp0, yp1, xp0, xp1);
  }

  /// A LOAD of random data over the whole window of `m`.
  Insn window_fill(MemId m) {
    const Window& w = window(m);
    const uint32_t buf =
        v_.buffer(m, w.size, random_bytes(w.size * static_cast<size_t>(v_.g.dram_bytes(m)), next_seed()));
    return make_load(m, w.lo, buf, 1, w.size, w.size);
  }

  Insn random_store() {
    const Window& w = window(MemId::ACC);
    if (coin(0.08)) return make_store(urand(0, 100), urand(0, 0xffffff), urand(0, 3), 0, urand(0, 9));
    uint32_t x, y;
    do {
      x = urand(1, 6);
      y = urand(1, 3);
    } while (x * y > w.size);
    const uint32_t stride = x + (coin(0.5) ? 0 : urand(1, 3)), off = urand(0, 3);
    const uint32_t count = off + (y - 1) * stride + x;
    // Pre-filled, so that a byte written where it should not be is visible.
    const uint32_t buf =
        v_.buffer(MemId::OUT, count, random_bytes(count * static_cast<size_t>(v_.g.lanes()), next_seed()));
    return make_store(w.lo + urand(0, w.size - x * y), buf + off, y, x, stride);
  }

  /// Loop trip counts and factors whose largest index step stays below each limit.
  struct Loop {
    uint32_t io, ii, f[6];  // dst out/in, src out/in, wgt out/in
    uint32_t max(int k) const { return (io - 1) * f[k] + (ii - 1) * f[k + 1]; }
  };
  Loop random_loop(uint32_t dst_lim, uint32_t src_lim, uint32_t wgt_lim) {
    for (int tries = 0; tries < 50; ++tries) {
      Loop l{urand(1, 3), urand(1, 3), {}};
      for (auto& f : l.f) f = coin(0.3) ? 0 : urand(1, 4);
      if (l.max(0) < dst_lim && l.max(2) < src_lim && l.max(4) < wgt_lim) return l;
    }
    return Loop{1, 1, {}};
  }

  std::vector<Insn> compute_phase() {
    std::vector<Insn> ops, uops;
    const uint32_t uop_base = urand(0, static_cast<uint32_t>(v_.g.uop_depth) - 64);
    const Window &wa = window(MemId::ACC), &wi = window(MemId::INP), &ww = window(MemId::WGT);
    for (int k = rand(1, 4); k > 0; --k) {
      const int kind = rand(0, 9);
      if (kind < 2) {
        ops.push_back(random_load(coin(0.5) ? MemId::ACC : MemId::ACC_8BIT));
        continue;
      }
      const bool gemm = kind < 6;
      const Loop l = random_loop(wa.size, gemm ? wi.size : wa.size, gemm ? ww.size : 1);
      const auto bgn = static_cast<uint32_t>(uops.size()) + uop_base;
      for (int n = rand(1, 3); n > 0; --n) {
        const uint32_t dst = wa.lo + urand(0, wa.size - 1 - l.max(0));
        const Window& ws = gemm ? wi : wa;
        const uint32_t src = ws.lo + urand(0, ws.size - 1 - l.max(2));
        const uint32_t wgt = gemm ? ww.lo + urand(0, ww.size - 1 - l.max(4)) : urand(0, 3);  // ALU ignores wgt
        uops.push_back(make_uop(dst, src, wgt));
      }
      const auto end = static_cast<uint32_t>(uops.size()) + uop_base;
      if (gemm) {
        ops.push_back(make_gemm(coin(0.15), bgn, end, l.io, l.ii, l.f[0], l.f[1], l.f[2], l.f[3], l.f[4], l.f[5]));
      } else {
        const auto op = static_cast<AluOp>(rand(0, 4));
        const bool use_imm = coin(0.5);
        static constexpr int32_t kShrEdges[] = {31, -32, 32, -33, 63, -1, 0, 30, -31};
        const int32_t imm = op != AluOp::SHR ? (coin(0.5) ? rand(-300, 300) : rand(-32768, 32767))
                            : coin(0.3)      ? kShrEdges[rand(0, 8)]
                                             : rand(-40, 40);
        ops.push_back(make_alu(op, use_imm, imm, bgn, end, l.io, l.ii, l.f[0], l.f[1], l.f[2], l.f[3]));
      }
    }
    std::vector<Insn> phase;
    if (!uops.empty()) phase.push_back(uop_load(uops, uop_base));
    phase.insert(phase.end(), ops.begin(), ops.end());
    if (phase.empty() || coin(0.1)) phase.push_back(token_only(MemId::ACC));
    return phase;
  }

  /// LOAD UOP of `uops` to `base`: one row, or two rows from DRAM rows with a
  /// gap of garbage words between them.
  Insn uop_load(const std::vector<Insn>& uops, uint32_t base) {
    const auto n = static_cast<uint32_t>(uops.size());
    const bool two_rows = n % 2 == 0 && coin(0.4);
    const uint32_t x = two_rows ? n / 2 : n, gap = two_rows ? urand(1, 3) : 0, y = two_rows ? 2 : 1;
    const uint32_t count = y * x + gap;
    std::vector<uint8_t> bytes = random_bytes(count * 4, next_seed());
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t at = k < x ? k : k + gap;
      const uint32_t word = layout_.encode_uop(uops[k]);
      std::memcpy(bytes.data() + at * 4, &word, 4);
    }
    return make_load(MemId::UOP, base, v_.buffer(MemId::UOP, count, bytes), y, x, x + gap);
  }

  uint32_t next_seed() { return static_cast<uint32_t>(rng_()); }

  Vta& v_;
  std::mt19937 rng_;
  vta::isa::Layout layout_;
  std::array<Window, 6> win_{};
};

constexpr int kProgramsPerPreset = 100;

class RandomPrograms : public ::testing::TestWithParam<std::string> {};

// Each seeded program runs on a fresh golden backend (a third of them run a
// second program on the same backend, so SRAM carries over) and must match
// the reference in every DRAM buffer, every SRAM and the run's counters.
TEST_P(RandomPrograms, MatchReferenceBitExactly) {
  const std::string preset_name = GetParam();
  uint64_t macs = 0, alu_uops = 0, stored = 0, nonzero_out = 0;
  for (int p = 0; p < kProgramsPerPreset; ++p) {
    uint32_t seed = 2166136261u;  // FNV-1a of the preset name, then the program number
    for (char ch : preset_name) seed = (seed ^ static_cast<uint8_t>(ch)) * 16777619u;
    seed += static_cast<uint32_t>(p);
    SCOPED_TRACE(testing::Message() << preset_name << " program " << p << " seed " << seed);
    Vta v(preset_name);
    Generator gen(v, seed);
    const int runs = p % 3 == 2 ? 2 : 1;
    for (int r = 0; r < runs; ++r) {
      if (r > 0) v.next_program();
      gen.program();
      v.run();
      const vta::Stats s = v.stats();
      const RefCounts& c = v.ref.counts;
      for (int op = 0; op < 5; ++op)
        EXPECT_EQ(s.get(std::string("insn.") + vta::isa::opcode_name(static_cast<Opcode>(op))),
                  c.insns[static_cast<size_t>(op)])
            << vta::isa::opcode_name(static_cast<Opcode>(op));
      EXPECT_EQ(s.get("gemm.macs"), c.macs);
      EXPECT_EQ(s.get("uops.gemm"), c.gemm_uops);
      EXPECT_EQ(s.get("uops.alu"), c.alu_uops);
      for (int m = 0; m < 6; ++m)
        if (m != static_cast<int>(MemId::OUT)) {
          EXPECT_EQ(s.get(std::string("dram.read_bytes.") + vta::isa::mem_name(static_cast<MemId>(m))),
                    c.read_bytes[static_cast<size_t>(m)])
              << vta::isa::mem_name(static_cast<MemId>(m));
        }
      EXPECT_EQ(s.get("dram.write_bytes.OUT"), c.write_bytes);
      EXPECT_EQ(s.get("tokens.load->compute"), c.pushed[0]);
      EXPECT_EQ(s.get("tokens.compute->load"), c.pushed[1]);
      EXPECT_EQ(s.get("tokens.compute->store"), c.pushed[2]);
      EXPECT_EQ(s.get("tokens.store->compute"), c.pushed[3]);
      macs += c.macs;
      alu_uops += c.alu_uops;
      stored += c.write_bytes;
      const auto out = v.ref.sram(MemId::OUT);
      nonzero_out += static_cast<uint64_t>(std::count_if(out.begin(), out.end(), [](uint8_t b) { return b != 0; }));
    }
    if (HasFailure()) {
      const vta::isa::Layout layout(v.cfg);
      std::cerr << "first failing program (" << preset_name << ", seed " << seed << ", last run):\n";
      for (size_t i = 0; i < v.pb->insns().size(); ++i)
        std::cerr << "  " << i << ": " << layout.disasm(v.pb->insns()[i]) << "\n";
      return;
    }
  }
  // The generator exercises the datapath, not only tokens.
  EXPECT_GT(macs, 0u);
  EXPECT_GT(alu_uops, 0u);
  EXPECT_GT(stored, 0u);
  EXPECT_GT(nonzero_out, 0u);
}

INSTANTIATE_TEST_SUITE_P(Golden, RandomPrograms, ::testing::Values("vta-1x16x16", "vta-4x16x16", "vta-1x32x32"),
                         [](const auto& tpi) {
                           std::string s = tpi.param;
                           for (auto& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

}  // namespace
