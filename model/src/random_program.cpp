// The random program generator (see random_program.h).
#include "vta/model/random_program.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "vta/isa/error.h"
#include "vta/model/builders.h"
#include "vta/model/image_builder.h"

namespace vta {

using build::alu;
using build::gemm;
using build::ImageBuilder;
using build::load;
using build::random_bytes;
using build::store;
using build::uop;
using isa::AluOp;
using isa::Insn;
using isa::MemId;

namespace {

/// A range [lo, lo + size) of one SRAM that a program's indices stay in.
struct Window {
  uint32_t lo = 0, size = 0;
};

class Generator {
 public:
  Generator(const Config& c, uint32_t seed, const RandomProgramOptions& o)
      : c_(c), o_(o), rng_(seed), b_(c, fmt::format("random:{}", seed), o.first_addr) {
    for (MemId m : {MemId::INP, MemId::WGT, MemId::ACC}) win_[static_cast<size_t>(m)] = pick_window(m);
    if (o_.racy) b_.unchain_tiles();
  }

  ProgramImage program() {
    const int tiles = rand(1, static_cast<int>(std::max<uint32_t>(o_.size, 1)));
    const int bad_at = o_.fields == RandomProgramOptions::Fields::OUT_OF_RANGE ? rand(0, tiles - 1) : -1;
    for (int t = 0; t < tiles; ++t) {
      if (t == bad_at) out_of_range_tile();
      std::vector<Insn> loads;
      if (t == 0)  // usually fill the whole windows first, so that GEMMs see data everywhere
        for (MemId m : {MemId::INP, MemId::WGT})
          if (coin(0.8)) loads.push_back(window_fill(m));
      for (int k = rand(0, 3); k > 0; --k) loads.push_back(random_load(coin(0.5) ? MemId::INP : MemId::WGT));
      std::vector<Insn> compute = compute_phase();
      if (t == 0 && coin(0.5)) compute.insert(compute.begin(), window_fill(MemId::ACC));
      std::vector<Insn> stores;
      for (int k = rand(0, 2); k > 0; --k) stores.push_back(random_store());
      b_.tile(loads, compute, stores);
    }
    return b_.finish();
  }

 private:
  /// A tile holding one instruction with a field past its buffer.
  void out_of_range_tile() {
    const auto depth16 = [&](MemId m) { return static_cast<uint32_t>(std::min<int64_t>(depth(m), 0xffff)); };
    switch (rand(0, 4)) {
      case 0:  // an INP load running past the end of the INP buffer (or past sram_base's reach)
        b_.tile({load(MemId::INP, depth16(MemId::INP) - 1, b_.buffer("bad", MemId::INP, 2), 1, 2, 2)}, {}, {});
        break;
      case 1:  // a store reading past the end of the OUT buffer
        b_.tile({}, {}, {store(depth16(MemId::ACC) - 1, b_.buffer("bad", MemId::OUT, 2), 1, 2, 2)});
        break;
      case 2: {  // a GEMM whose uop range ends past the UOP buffer
        const auto u = static_cast<uint32_t>(depth(MemId::UOP));
        b_.tile({}, {gemm(false, u - 1, u + 1, 1, 1)}, {});
        break;
      }
      case 3:  // a load reading past the end of its DRAM buffer
        b_.tile({load(MemId::WGT, 0, b_.buffer("bad", MemId::WGT, 1), 1, 2, 2)}, {}, {});
        break;
      default: {  // a GEMM whose loop steps its ACC index past the buffer
        const auto a = static_cast<uint32_t>(depth(MemId::ACC));
        const uint32_t u = b_.uops("bad", {uop(a - 1, 0, 0)});
        b_.tile({}, {load(MemId::UOP, 0, u, 1, 1, 1), gemm(false, 0, 1, 2, 1, 1)}, {});
      }
    }
  }

  int rand(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }
  uint32_t urand(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  uint32_t seed() { return static_cast<uint32_t>(rng_()); }
  int64_t depth(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return c_.derived.uop_depth;
      case MemId::INP:
        return c_.derived.inp_depth;
      case MemId::WGT:
        return c_.derived.wgt_depth;
      case MemId::OUT:
        return c_.derived.out_depth;
      default:
        return c_.derived.acc_depth;
    }
  }
  uint64_t elem(MemId m) const { return static_cast<uint64_t>(c_.elem_bytes(static_cast<int>(m))); }

  Window pick_window(MemId m) {
    const auto d = static_cast<uint32_t>(std::min<int64_t>(depth(m), 0x10000));  // sram_base has 16 bits
    const uint32_t sizes[] = {8, 24, 96};
    Window w;
    w.size = std::min(d, sizes[rand(0, 2)]);
    const int where = rand(0, 3);
    w.lo = where == 0 ? 0 : where == 1 ? d - w.size : urand(0, d - w.size);
    return w;
  }
  const Window& window(MemId m) const { return win_[static_cast<size_t>(m == MemId::ACC_8BIT ? MemId::ACC : m)]; }

  uint32_t pad() {
    const int r = rand(0, 9);
    return r < 6 ? 0 : r < 9 ? urand(1, 2) : urand(3, 15);
  }

  Insn token_only(MemId m) {
    // Rows, pads and a DRAM address that names no buffer: all ignored.
    return load(m, urand(0, 100), urand(0, 0xffffff), urand(0, 4), 0, urand(0, 9), pad(), pad(), pad(), pad());
  }

  Insn random_load(MemId m) {
    if (coin(0.08)) return token_only(m);
    const Window& w = window(m);
    uint32_t x, y, yp0, yp1, xp0, xp1, total;
    int tries = 0;
    do {
      x = urand(1, 6);
      y = urand(1, 3);
      yp0 = pad(), yp1 = pad(), xp0 = pad(), xp1 = pad();
      total = (yp0 + y + yp1) * (xp0 + x + xp1);
      if (++tries > 100) x = y = 1, yp0 = yp1 = xp0 = xp1 = 0, total = 1;
    } while (total > w.size);
    const uint32_t stride = x + (coin(0.5) ? 0 : urand(1, 3)), off = urand(0, 3);
    const uint32_t count = off + (y - 1) * stride + x;
    const uint32_t buf = b_.buffer("load", m, count, random_bytes(count * elem(m), seed()));
    return load(m, w.lo + urand(0, w.size - total), buf + off, y, x, stride, yp0, yp1, xp0, xp1);
  }

  Insn window_fill(MemId m) {
    const Window& w = window(m);
    const uint32_t buf = b_.buffer("fill", m, w.size, random_bytes(w.size * elem(m), seed()));
    return load(m, w.lo, buf, 1, w.size, w.size);
  }

  Insn random_store() {
    const Window& w = window(MemId::ACC);
    if (coin(0.08)) return store(urand(0, 100), urand(0, 0xffffff), urand(0, 3), 0, urand(0, 9));
    uint32_t x, y;
    do {
      x = urand(1, 6);
      y = urand(1, 3);
    } while (x * y > w.size);
    const uint32_t stride = x + (coin(0.5) ? 0 : urand(1, 3)), off = urand(0, 3);
    const uint32_t count = off + (y - 1) * stride + x;
    const uint32_t buf = b_.buffer("out", MemId::OUT, count, random_bytes(count * elem(MemId::OUT), seed()));
    return store(w.lo + urand(0, w.size - x * y), buf + off, y, x, stride);
  }

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
    const auto udepth = static_cast<uint32_t>(std::min<int64_t>(depth(MemId::UOP), 1u << 30));
    const uint32_t uop_base = udepth > 64 ? urand(0, udepth - 64) : 0;
    const Window &wa = window(MemId::ACC), &wi = window(MemId::INP), &ww = window(MemId::WGT);
    for (int k = rand(1, 4); k > 0; --k) {
      const int kind = rand(0, 9);
      if (kind < 2) {
        ops.push_back(random_load(coin(0.5) || !c_.isa.acc_8bit ? MemId::ACC : MemId::ACC_8BIT));
        continue;
      }
      if (uop_base + uops.size() + 3 > udepth) continue;
      const bool is_gemm = kind < 6;
      const Loop l = random_loop(wa.size, is_gemm ? wi.size : wa.size, is_gemm ? ww.size : 1);
      const auto bgn = static_cast<uint32_t>(uops.size()) + uop_base;
      for (int n = rand(1, 3); n > 0; --n) {
        const uint32_t dst = wa.lo + urand(0, wa.size - 1 - l.max(0));
        const Window& ws = is_gemm ? wi : wa;
        const uint32_t src = ws.lo + urand(0, ws.size - 1 - l.max(2));
        const uint32_t wgt = is_gemm ? ww.lo + urand(0, ww.size - 1 - l.max(4)) : urand(0, 3);
        uops.push_back(uop(dst, src, wgt));
      }
      const auto end = static_cast<uint32_t>(uops.size()) + uop_base;
      if (is_gemm) {
        ops.push_back(gemm(coin(0.15), bgn, end, l.io, l.ii, l.f[0], l.f[1], l.f[2], l.f[3], l.f[4], l.f[5]));
      } else {
        const isa::Code& op = isa::alu_ops()[static_cast<size_t>(rand(0, static_cast<int>(isa::alu_ops().size()) - 1))];
        const AluOp a = op.enabled(c_) ? static_cast<AluOp>(op.value) : AluOp::ADD;
        static constexpr int32_t kShrEdges[] = {31, -32, 32, -33, 63, -1, 0, 30, -31};
        const int32_t imm = a != AluOp::SHR ? (coin(0.5) ? rand(-300, 300) : rand(-32768, 32767))
                            : coin(0.3)     ? kShrEdges[rand(0, 8)]
                                            : rand(-40, 40);
        ops.push_back(alu(a, coin(0.5), imm, bgn, end, l.io, l.ii, l.f[0], l.f[1], l.f[2], l.f[3]));
      }
    }
    std::vector<Insn> phase;
    if (!uops.empty()) phase.push_back(uop_load(uops, uop_base));
    phase.insert(phase.end(), ops.begin(), ops.end());
    if (phase.empty() || coin(0.1)) phase.push_back(token_only(MemId::ACC));
    return phase;
  }

  /// LOAD UOP of `uops` to `base`: one row, or two rows with garbage between.
  Insn uop_load(const std::vector<Insn>& uops, uint32_t base) {
    const auto n = static_cast<uint32_t>(uops.size());
    const bool two_rows = n % 2 == 0 && coin(0.4);
    const uint32_t x = two_rows ? n / 2 : n, gap = two_rows ? urand(1, 3) : 0, y = two_rows ? 2 : 1;
    const uint32_t count = y * x + gap;
    std::vector<uint8_t> bytes = random_bytes(count * 4, seed());
    const isa::Layout layout(c_);
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t at = k < x ? k : k + gap;
      const uint32_t word = layout.encode_uop(uops[k]);
      std::memcpy(bytes.data() + at * 4, &word, 4);
    }
    return load(MemId::UOP, base, b_.buffer("uop", MemId::UOP, count, bytes), y, x, x + gap);
  }

  const Config& c_;
  const RandomProgramOptions& o_;
  std::mt19937 rng_;
  ImageBuilder b_;
  Window win_[6]{};
};

}  // namespace

ProgramImage random_program(const Config& c, uint32_t seed, const RandomProgramOptions& options) {
  return Generator(c, seed, options).program();
}

}  // namespace vta
