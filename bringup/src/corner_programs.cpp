// The corner programs of the bring-up battery (see programs.h).
#include "vta/bringup/programs.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "vta/isa/elem_pack.h"
#include "vta/isa/error.h"
#include "vta/model/dram.h"

namespace vta::programs {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;

namespace {

/// Shared state of the corner generators: the config, a seed stream and
/// small windows of each buffer.
struct Corners {
  const Config& c;
  std::mt19937 rng;
  uint32_t lanes, win_inp, win_wgt, win_acc;

  Corners(const Config& cfg, uint32_t seed) : c(cfg), rng(seed) {
    lanes = static_cast<uint32_t>(c.gemm.batch * c.gemm.block_out);
    win_inp = static_cast<uint32_t>(std::min<int64_t>(8, c.derived.inp_depth));
    win_wgt = static_cast<uint32_t>(std::min<int64_t>(8, c.derived.wgt_depth));
    win_acc = static_cast<uint32_t>(std::min<int64_t>(8, c.derived.acc_depth));
  }
  uint32_t seed() { return static_cast<uint32_t>(rng()); }
  int64_t depth(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return c.derived.uop_depth;
      case MemId::INP:
        return c.derived.inp_depth;
      case MemId::WGT:
        return c.derived.wgt_depth;
      default:
        return c.derived.acc_depth;
    }
  }
  uint64_t elem(MemId m) const { return static_cast<uint64_t>(c.elem_bytes(static_cast<int>(m))); }
  /// A LOAD of `n` random elements of `m` to SRAM `sram`, from a new buffer.
  Insn fill(ImageBuilder& b, MemId m, uint32_t sram, uint32_t n) {
    const uint32_t at = b.buffer(fmt::format("fill{}", sram), m, n, random_bytes(n * elem(m), seed()));
    return load(m, sram, at, 1, n, n);
  }
  /// A STORE of OUT elements [sram, sram+n) to a new, randomly pre-filled buffer.
  Insn dump(ImageBuilder& b, uint32_t sram, uint32_t n) {
    const uint32_t at = b.buffer("out", MemId::OUT, n, random_bytes(n * elem(MemId::OUT), seed()));
    return store(sram, at, 1, n, n);
  }
  /// ACC bytes whose lanes are taken from `values` in turn, packed at
  /// dtype.acc_bits (each value's low bits).
  std::vector<uint8_t> acc_values(uint32_t n, const std::vector<int32_t>& values) {
    const size_t count = static_cast<size_t>(n) * lanes;
    std::vector<int32_t> v(count);
    for (size_t k = 0; k < count; ++k) v[k] = values[k % values.size()];
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * elem(MemId::ACC));
    isa::pack_elems(v.data(), static_cast<int>(c.dtype.acc_bits), bytes.data(), count);
    return bytes;
  }
  bool fits(MemId m, uint64_t sram, uint64_t elems) const { return sram + elems <= static_cast<uint64_t>(depth(m)); }
};

using Build = std::function<bool(Corners&, ImageBuilder&)>;  // false: does not fit this config

/// A LOAD of `m` with the given shape over a window pre-filled with random
/// data (so that the zero padding is visible), then the window stored back
/// where it can be (ACC through an ALU pass to OUT).
Build padded_load(MemId m, uint32_t y, uint32_t x, uint32_t stride, uint32_t yp0, uint32_t yp1, uint32_t xp0,
                  uint32_t xp1, bool at_end = false) {
  return [=](Corners& k, ImageBuilder& b) {
    const uint64_t total = uint64_t{yp0 + y + yp1} * (xp0 + x + xp1);
    if (total > static_cast<uint64_t>(k.depth(m))) return false;
    const auto sram = static_cast<uint64_t>(at_end ? k.depth(m) - static_cast<int64_t>(total) : 0);
    if (sram > 0xffff) return false;  // sram_base has 16 bits
    const MemId fill_mem = m == MemId::ACC_8BIT ? MemId::ACC : m;
    const uint32_t count = y == 0 ? 1 : (y - 1) * stride + x;
    const uint32_t src = b.buffer("src", m, count, random_bytes(count * k.elem(m), k.seed()));
    const Insn l = load(m, static_cast<uint32_t>(sram), src, y, x, stride, yp0, yp1, xp0, xp1);
    const Insn pre = k.fill(b, fill_mem, static_cast<uint32_t>(sram), static_cast<uint32_t>(total));
    if (m == MemId::INP || m == MemId::WGT) {
      b.tile({pre, l}, {}, {});
    } else {
      // Compute-module loads; make ACC visible in DRAM through OUT (ALU ADD 0).
      const uint32_t u = b.uops("uop", {uop(static_cast<uint32_t>(sram), static_cast<uint32_t>(sram), 0)});
      std::vector<Insn> compute = {pre, l};
      if (m != MemId::UOP) {
        compute.push_back(load(MemId::UOP, 0, u, 1, 1, 1));
        compute.push_back(alu(AluOp::ADD, true, 0, 0, 1, static_cast<uint32_t>(total), 1, 1, 0, 1, 0));
      }
      std::vector<Insn> st;
      if (m != MemId::UOP) st.push_back(k.dump(b, static_cast<uint32_t>(sram), static_cast<uint32_t>(total)));
      b.tile({}, compute, st);
    }
    return true;
  };
}

/// INP, WGT and ACC windows filled with random data and the uops loaded;
/// `body` then adds the compute instructions, and the ACC window is stored.
Build compute_case(std::vector<Insn> (*uops_of)(Corners&),
                   std::function<std::vector<Insn>(Corners&, ImageBuilder&)> body, std::vector<int32_t> acc_init = {}) {
  return [=](Corners& k, ImageBuilder& b) {
    if (k.win_inp < 8 || k.win_wgt < 8 || k.win_acc < 8) return false;
    const std::vector<Insn> u = uops_of(k);
    std::vector<Insn> loads = {k.fill(b, MemId::INP, 0, k.win_inp), k.fill(b, MemId::WGT, 0, k.win_wgt)};
    Insn acc = acc_init.empty()
                   ? k.fill(b, MemId::ACC, 0, k.win_acc)
                   : load(MemId::ACC, 0, b.buffer("acc", MemId::ACC, k.win_acc, k.acc_values(k.win_acc, acc_init)), 1,
                          k.win_acc, k.win_acc);
    std::vector<Insn> compute = {acc, load(MemId::UOP, 0, b.uops("uop", u), 1, static_cast<uint32_t>(u.size()),
                                           static_cast<uint32_t>(u.size()))};
    for (const Insn& i : body(k, b)) compute.push_back(i);
    b.tile(loads, compute, {k.dump(b, 0, k.win_acc)});
    return true;
  };
}

std::vector<Insn> one_uop(Corners&) { return {uop(1, 2, 3)}; }
std::vector<Insn> two_uops(Corners&) { return {uop(0, 1, 2), uop(1, 0, 0)}; }
std::vector<Insn> same_dst_uops(Corners&) { return {uop(2, 1, 0), uop(2, 3, 4), uop(2, 5, 6)}; }
std::vector<Insn> alu_uops(Corners&) { return {uop(0, 4, 0), uop(1, 5, 0)}; }
std::vector<Insn> self_uops(Corners&) { return {uop(3, 3, 0), uop(5, 5, 0)}; }
std::vector<Insn> chain_uops(Corners&) { return {uop(1, 0, 0)}; }
std::vector<Insn> far_src_uops(Corners&) { return {uop(0, 4, 0)}; }

std::vector<Insn> list(std::initializer_list<Insn> l) { return l; }

}  // namespace

std::vector<NamedProgram> corner_programs(const Config& c, uint32_t seed) {
  std::vector<std::pair<std::string, Build>> cases = {
      {"load_inp", padded_load(MemId::INP, 2, 3, 3, 0, 0, 0, 0)},
      {"load_inp_pad_y0", padded_load(MemId::INP, 2, 2, 2, 2, 0, 0, 0)},
      {"load_inp_pad_y1", padded_load(MemId::INP, 2, 2, 2, 0, 2, 0, 0)},
      {"load_inp_pad_x0", padded_load(MemId::INP, 2, 2, 2, 0, 0, 2, 0)},
      {"load_inp_pad_x1", padded_load(MemId::INP, 2, 2, 2, 0, 0, 0, 2)},
      {"load_inp_pad_all", padded_load(MemId::INP, 2, 3, 4, 1, 2, 3, 1)},
      {"load_inp_pad_max", padded_load(MemId::INP, 1, 1, 1, 15, 15, 15, 15)},
      {"load_inp_stride", padded_load(MemId::INP, 3, 2, 5, 0, 0, 0, 0)},
      {"load_inp_buffer_end", padded_load(MemId::INP, 2, 2, 3, 1, 0, 0, 1, true)},
      {"load_inp_pads_only", padded_load(MemId::INP, 0, 2, 2, 1, 2, 1, 1)},
      {"load_wgt_pad", padded_load(MemId::WGT, 2, 2, 3, 1, 1, 1, 1)},
      {"load_wgt_buffer_end", padded_load(MemId::WGT, 1, 3, 3, 0, 0, 0, 0, true)},
      {"load_acc_pad", padded_load(MemId::ACC, 2, 2, 3, 1, 0, 1, 0)},
      {"load_acc_buffer_end", padded_load(MemId::ACC, 2, 2, 2, 0, 1, 0, 1, true)},
      {"load_uop_rows", padded_load(MemId::UOP, 3, 4, 6, 0, 1, 1, 0)},
  };
  if (c.isa.acc_8bit) {
    cases.emplace_back("load_acc8_sign_extend", padded_load(MemId::ACC_8BIT, 2, 3, 4, 0, 0, 0, 0));
    cases.emplace_back("load_acc8_pad", padded_load(MemId::ACC_8BIT, 1, 2, 2, 1, 1, 1, 1));
  }
  cases.emplace_back("load_token_only", [](Corners& k, ImageBuilder& b) {
    // x_size 0: no data moves, whatever the other fields say; tokens still flow.
    const Insn pre = k.fill(b, MemId::INP, 0, k.win_inp);
    b.tile({pre, load(MemId::INP, 0, 0x7fffff, 3, 0, 9, 2, 2, 2, 2)},
           {load(MemId::ACC, 1, 0x123456, 2, 0, 1, 1, 1, 1, 1)}, {store(0, 0x654321, 3, 0, 7)});
    return true;
  });
  cases.emplace_back("gemm_basic",
                     compute_case(one_uop, [](Corners&, ImageBuilder&) { return list({gemm(false, 0, 1, 1, 1)}); }));
  cases.emplace_back("gemm_reset", compute_case(two_uops, [](Corners&, ImageBuilder&) {
                       return list({gemm(true, 0, 2, 2, 2, 2, 4, 0, 0, 0, 0)});
                     }));
  cases.emplace_back("gemm_loops", compute_case(two_uops, [](Corners&, ImageBuilder&) {
                       return list({gemm(false, 0, 2, 2, 3, 3, 1, 2, 1, 1, 2)});
                     }));
  cases.emplace_back("gemm_accumulate", compute_case(same_dst_uops, [](Corners&, ImageBuilder&) {
                       return list({gemm(false, 0, 3, 1, 1), gemm(false, 1, 3, 2, 1, 0, 0, 1, 0, 1, 0)});
                     }));
  cases.emplace_back("gemm_reset_then_accumulate", compute_case(two_uops, [](Corners&, ImageBuilder&) {
                       return list({gemm(true, 0, 2, 1, 1), gemm(false, 0, 2, 1, 2, 0, 0, 0, 3, 0, 4)});
                     }));
  cases.emplace_back("gemm_wraps_at_32_bits",
                     compute_case(one_uop, [](Corners&, ImageBuilder&) { return list({gemm(false, 0, 1, 3, 1)}); },
                                  {2147483000, -2147483000, 2147483647, -2147483647 - 1}));
  const bool mul = c.isa.alu_mul;
  for (const isa::Code& op : isa::alu_ops()) {
    if (!op.enabled(c)) continue;
    const auto a = static_cast<AluOp>(op.value);
    for (bool imm : {true, false}) {
      cases.emplace_back(fmt::format("alu_{}_{}", isa::alu_name(a), imm ? "imm" : "vector"),
                         compute_case(alu_uops, [a, imm](Corners& k, ImageBuilder&) {
                           const int32_t v = a == AluOp::SHR ? static_cast<int32_t>(k.rng() % 81) - 40
                                                             : static_cast<int32_t>(k.rng() % 65536) - 32768;
                           return list({alu(a, imm, v, 0, 2, 2, 2, 2, 4, 1, 0)});
                         }));
    }
  }
  cases.emplace_back("alu_shr_negative_imm", compute_case(alu_uops, [](Corners&, ImageBuilder&) {
                       return list({alu(AluOp::SHR, true, -3, 0, 2, 1, 1)});
                     }));
  cases.emplace_back("alu_shr_imm_edges", compute_case(alu_uops, [](Corners&, ImageBuilder&) {
                       std::vector<Insn> v;
                       for (int32_t s : {31, -32, 32, -33, 63, -1, 0, -31, 64, -64})
                         v.push_back(alu(AluOp::SHR, true, s, 0, 2, 1, 1));
                       return v;
                     }));
  cases.emplace_back(
      "alu_shr_vector_edges",
      compute_case(alu_uops, [](Corners&, ImageBuilder&) { return list({alu(AluOp::SHR, false, 0, 0, 2, 1, 1)}); },
                   {31, -32, 32, -33, 63, -1, 0, -31, 1, 1000, -1000, 2147483647}));
  cases.emplace_back(
      "alu_dst_equals_src", compute_case(self_uops, [mul](Corners&, ImageBuilder&) {
        return list({alu(AluOp::ADD, false, 0, 0, 1, 1, 1), alu(mul ? AluOp::MUL : AluOp::SHR, false, 0, 1, 2, 1, 1)});
      }));
  cases.emplace_back("alu_imm_extremes", compute_case(alu_uops, [mul](Corners&, ImageBuilder&) {
                       std::vector<Insn> v = {
                           alu(AluOp::ADD, true, -32768, 0, 2, 1, 1), alu(AluOp::ADD, true, 32767, 0, 2, 1, 1),
                           alu(AluOp::MAX, true, -32768, 0, 2, 1, 1), alu(AluOp::MIN, true, 32767, 0, 2, 1, 1)};
                       if (mul) v.push_back(alu(AluOp::MUL, true, -32768, 0, 2, 1, 1));
                       return v;
                     }));
  // Every address factor distinct and nonzero: ALU's src_factor_* fields
  // are LOG_ACC bits wide and GEMM's LOG_INP bits, so a decoder that reads
  // an ALU instruction in the GEMM format takes src_factor_in from the wrong
  // bits where the INP and ACC depths differ (dst 0..3, src 4, 6, 5, 7).
  cases.emplace_back("alu_src_factors", compute_case(far_src_uops, [](Corners&, ImageBuilder&) {
                       return list({alu(AluOp::ADD, false, 0, 0, 1, 2, 2, 2, 1, 1, 2)});
                     }));
  cases.emplace_back("alu_loop_order", compute_case(chain_uops, [](Corners&, ImageBuilder&) {
                       // Each iteration reads what the one before wrote (dst 1..6, src 0..5).
                       return list({alu(AluOp::ADD, false, 0, 0, 1, 6, 1, 1, 0, 1, 0)});
                     }));
  cases.emplace_back("store_strided", [](Corners& k, ImageBuilder& b) {
    if (k.win_acc < 8) return false;
    const uint32_t u = b.uops("uop", {uop(0, 0, 0)});
    const uint32_t out = b.buffer("out", MemId::OUT, 16, random_bytes(16 * k.elem(MemId::OUT), k.seed()));
    b.tile({},
           {k.fill(b, MemId::ACC, 0, k.win_acc), load(MemId::UOP, 0, u, 1, 1, 1),
            alu(AluOp::MAX, true, -7, 0, 1, k.win_acc, 1, 1, 0, 1, 0)},
           {store(0, out + 1, 3, 2, 5), store(6, out + 13, 1, 2, 2)});
    return true;
  });
  cases.emplace_back("tokens_all_queues", [](Corners& k, ImageBuilder& b) {
    // Three tiles: load->compute, compute->load, compute->store and
    // store->compute all carry tokens; each tile reuses the same windows.
    if (k.win_inp < 8 || k.win_wgt < 8 || k.win_acc < 8) return false;
    const uint32_t u = b.uops("uop", {uop(0, 0, 0), uop(1, 1, 1)});
    for (int t = 0; t < 3; ++t) {
      b.tile({k.fill(b, MemId::INP, 0, 2), k.fill(b, MemId::WGT, 0, 2)},
             {load(MemId::UOP, 0, u, 1, 2, 2), gemm(t == 0, 0, 2, 1, 1), gemm(false, 0, 2, 1, 1)}, {k.dump(b, 0, 2)});
    }
    return true;
  });
  cases.emplace_back("finish_pops_prev_and_next", [](Corners& k, ImageBuilder& b) {
    // The load module's last token goes to FINISH, as does the store's.
    const Insn l = with_deps(k.fill(b, MemId::INP, 0, 1), false, false, false, true);
    b.add(l);
    b.add(with_deps(k.fill(b, MemId::ACC, 0, 1), false, false, false, true));
    b.add(with_deps(k.dump(b, 0, 1), true, false, true, false));
    return true;  // FINISH gets its pops below
  });
  cases.emplace_back("acc_load_keeps_out", compute_case(one_uop, [](Corners& k, ImageBuilder& b) {
                       // GEMM writes OUT; a later ACC load must not touch it.
                       return list({gemm(false, 0, 1, 1, 1), k.fill(b, MemId::ACC, 0, k.win_acc)});
                     }));

  std::vector<NamedProgram> out;
  Corners k(c, seed);
  for (auto& [name, build] : cases) {
    ImageBuilder b(c, "corner:" + name);
    if (!build(k, b)) continue;
    ProgramImage img = b.finish();
    if (name == "finish_pops_prev_and_next") {
      // FINISH pops the load->compute and store->compute tokens.
      isa::Layout layout(c);
      img.insns.back() = layout.encode(with_deps(programs::finish(), true, true, false, false));
    }
    out.push_back(NamedProgram{name, std::move(img)});
  }
  return out;
}

}  // namespace vta::programs
