// Program generators for bring-up and benchmarks (see programs.h).
#include "vta/kernels/programs.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "vta/isa/error.h"
#include "vta/model/dram.h"

namespace vta::programs {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;


// ---------------------------------------------------------------------------
// ImageBuilder
// ---------------------------------------------------------------------------

ImageBuilder::ImageBuilder(const Config& c, std::string source) : cfg_(c), layout_(c), next_addr_(Dram::kBase) {
  image_.source = std::move(source);
}

uint32_t ImageBuilder::buffer(const std::string& name, MemId mem, uint32_t count, const std::vector<uint8_t>& bytes) {
  const auto e = static_cast<uint64_t>(cfg_.elem_bytes(static_cast<int>(mem)));
  auto pages = [](uint64_t b) { return std::max<uint64_t>(1, (b + Dram::kPageBytes - 1) / Dram::kPageBytes); };
  // dram_base counts elements: elements larger than a page need an aligned start.
  while (next_addr_ % e != 0) {
    const uint64_t gap = e - next_addr_ % e;
    image_.buffers.push_back(ImageBuffer{name + ".align", MemId::INP, std::vector<uint8_t>(gap, 0), 0});
    next_addr_ += pages(gap) * Dram::kPageBytes;
  }
  std::vector<uint8_t> data(count * e, 0);
  if (bytes.size() > data.size()) fail("ImageBuilder::buffer {}: {} bytes for {} elements", name, bytes.size(), count);
  std::copy(bytes.begin(), bytes.end(), data.begin());
  const uint64_t addr = next_addr_;
  next_addr_ += pages(data.size()) * Dram::kPageBytes;
  image_.buffers.push_back(ImageBuffer{name, mem, std::move(data), 0});
  return static_cast<uint32_t>(addr / e);
}

uint32_t ImageBuilder::uops(const std::string& name, const std::vector<Insn>& u) {
  std::vector<uint8_t> bytes(u.size() * 4);
  for (size_t i = 0; i < u.size(); ++i) {
    const uint32_t w = layout_.encode_uop(u[i]);
    std::memcpy(bytes.data() + 4 * i, &w, 4);
  }
  return buffer(name, MemId::UOP, static_cast<uint32_t>(u.size()), bytes);
}

void ImageBuilder::tile(std::vector<Insn> loads, std::vector<Insn> compute, std::vector<Insn> stores) {
  items_.push_back(Item{true, {}, Tile{std::move(loads), std::move(compute), std::move(stores)}});
}

ProgramImage ImageBuilder::finish() {
  std::vector<Tile*> tiles;
  for (auto& it : items_)
    if (it.is_tile) tiles.push_back(&it.tile);
  bool c2l = false, s2c = false;  // a token waits on compute->load / store->compute
  for (size_t k = 0; k < tiles.size(); ++k) {
    Tile& t = *tiles[k];
    if (t.compute.empty()) t.compute.push_back(load(MemId::ACC, 0, 0, 0, 0, 0));  // token-only
    const bool next_loads = k + 1 < tiles.size() && !tiles[k + 1]->loads.empty();
    if (!t.loads.empty()) {
      t.loads.front()[Member::pop_next] = c2l;
      t.loads.back()[Member::push_next] = 1;
    }
    t.compute.front()[Member::pop_prev] = !t.loads.empty();
    t.compute.front()[Member::pop_next] = s2c;
    t.compute.back()[Member::push_prev] = next_loads;
    t.compute.back()[Member::push_next] = !t.stores.empty();
    if (!t.stores.empty()) {
      t.stores.front()[Member::pop_prev] = 1;
      t.stores.back()[Member::push_prev] = 1;
    }
    c2l = next_loads;
    s2c = !t.stores.empty();
  }
  std::vector<Insn> all;
  for (const auto& it : items_) {
    if (!it.is_tile) {
      all.push_back(it.insn);
      continue;
    }
    for (const auto* phase : {&it.tile.loads, &it.tile.compute, &it.tile.stores})
      all.insert(all.end(), phase->begin(), phase->end());
  }
  all.push_back(with_deps(programs::finish(), false, s2c, false, false));
  image_.insns.clear();
  for (const Insn& i : all) image_.insns.push_back(layout_.encode(i));
  return image_;
}

// ---------------------------------------------------------------------------
// Corner programs
// ---------------------------------------------------------------------------
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
  /// ACC bytes whose int32 lanes are taken from `values` in turn.
  std::vector<uint8_t> acc_values(uint32_t n, const std::vector<int32_t>& values) {
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * lanes * 4);
    for (size_t k = 0; k < static_cast<size_t>(n) * lanes; ++k) {
      const int32_t v = values[k % values.size()];
      std::memcpy(bytes.data() + 4 * k, &v, 4);
    }
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
  for (AluOp a : {AluOp::MIN, AluOp::MAX, AluOp::ADD, AluOp::SHR, AluOp::MUL}) {
    if (a == AluOp::MUL && !mul) continue;
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

// ---------------------------------------------------------------------------
// Random programs
// ---------------------------------------------------------------------------
namespace {

/// A range [lo, lo + size) of one SRAM that a program's indices stay in.
struct Window {
  uint32_t lo = 0, size = 0;
};

class Generator {
 public:
  Generator(const Config& c, uint32_t seed) : c_(c), rng_(seed), b_(c, fmt::format("random:{}", seed)) {
    for (MemId m : {MemId::INP, MemId::WGT, MemId::ACC}) win_[static_cast<size_t>(m)] = pick_window(m);
  }

  ProgramImage program() {
    const int tiles = rand(1, 3);
    for (int t = 0; t < tiles; ++t) {
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
        auto a = static_cast<AluOp>(rand(0, 4));
        if (a == AluOp::MUL && !c_.isa.alu_mul) a = AluOp::ADD;
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
  std::mt19937 rng_;
  ImageBuilder b_;
  Window win_[6]{};
};

}  // namespace

ProgramImage random_program(const Config& c, uint32_t seed) { return Generator(c, seed).program(); }

ProgramImage gemm_program(const Config& c, uint32_t gemms, uint32_t iters, uint32_t uops, uint64_t& macs) {
  const auto& d = c.derived;
  uops =
      static_cast<uint32_t>(std::min<int64_t>({int64_t{uops}, d.acc_depth, d.wgt_depth, d.inp_depth / 2, d.uop_depth}));
  iters = static_cast<uint32_t>(std::min<int64_t>(iters, d.inp_depth - uops));
  ImageBuilder b(c, "gemm-benchmark");
  const uint32_t n_inp = uops + iters - 1, n_wgt = uops;
  auto bytes = [&](MemId m, uint32_t n, uint32_t seed) {
    return random_bytes(n * static_cast<size_t>(c.elem_bytes(static_cast<int>(m))), seed);
  };
  const uint32_t inp = b.buffer("inp", MemId::INP, n_inp, bytes(MemId::INP, n_inp, 1));
  const uint32_t wgt = b.buffer("wgt", MemId::WGT, n_wgt, bytes(MemId::WGT, n_wgt, 2));
  std::vector<Insn> u;
  for (uint32_t k = 0; k < uops; ++k) u.push_back(uop(k, k, k));
  const uint32_t ub = b.uops("uop", u);
  const uint32_t out = b.buffer("out", MemId::OUT, uops);
  std::vector<Insn> compute = {load(MemId::UOP, 0, ub, 1, uops, uops), gemm(true, 0, uops, 1, 1)};
  for (uint32_t g = 0; g < gemms; ++g) compute.push_back(gemm(false, 0, uops, iters, 1, 0, 0, 1, 0, 0, 0));
  compute.push_back(alu(AluOp::SHR, true, 8, 0, uops, 1, 1));
  b.tile({load(MemId::INP, 0, inp, 1, n_inp, n_inp), load(MemId::WGT, 0, wgt, 1, n_wgt, n_wgt)}, compute,
         {store(0, out, 1, uops, uops)});
  macs = uint64_t{gemms} * iters * uops * static_cast<uint64_t>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out);
  return b.finish();
}

}  // namespace vta::programs
