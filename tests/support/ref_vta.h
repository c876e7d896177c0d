#pragma once
// RefVta: an independent plain-loop reference of docs/design.md's ISA contract,
// shared by the golden-model test suites (it never calls vta::model code).
// Included by one translation unit per test executable, so its contents sit
// in an unnamed namespace.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.h"
#include "vta/isa/error.h"
#include "vta/model/backend.h"

namespace {  // NOLINT(google-build-namespaces): test-only, one includer per binary

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
// Independent reference of the ISA contract.
// ---------------------------------------------------------------------------

/// Shapes and depths, derived here from the knobs (not from Config::derived).
struct Geometry {
  int64_t batch = 0, bi = 0, bo = 0;
  int inp_bits = 8, wgt_bits = 8, acc_bits = 32, out_bits = 8;  // dtype
  int64_t uop_depth = 0, inp_depth = 0, wgt_depth = 0, acc_depth = 0;
  int log_acc = 0, log_src = 0, log_wgt = 0;
  int64_t lanes() const { return batch * bo; }
  /// Values per element of `m` (UOP: one 32-bit word).
  int64_t values(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return 1;
      case MemId::WGT:
        return bo * bi;
      case MemId::INP:
        return batch * bi;
      default:
        return lanes();
    }
  }
  /// Bits per value of `m` as SRAM holds it (read_sram's layout).
  int sram_bits(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return 32;
      case MemId::WGT:
        return wgt_bits;
      case MemId::INP:
        return inp_bits;
      case MemId::OUT:
        return out_bits;
      default:
        return acc_bits;
    }
  }
  /// Bits per value of `m` in DRAM (ACC_8BIT: OUT-width values).
  int dram_bits(MemId m) const { return m == MemId::ACC_8BIT ? out_bits : sram_bits(m); }
  /// Bytes of one SRAM element as read_sram returns it.
  int64_t sram_bytes(MemId m) const { return values(m) * sram_bits(m) / 8; }
  /// Bytes of one DRAM element of memory type `m`.
  int64_t dram_bytes(MemId m) const { return values(m) * dram_bits(m) / 8; }
  int64_t depth(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return uop_depth;
      case MemId::WGT:
        return wgt_depth;
      case MemId::INP:
        return inp_depth;
      default:
        return acc_depth;
    }
  }
};

Geometry geometry(const Config& c) {
  Geometry g;
  g.batch = c.gemm.batch;
  g.bi = c.gemm.block_in;
  g.bo = c.gemm.block_out;
  g.inp_bits = static_cast<int>(c.dtype.inp_bits);
  g.wgt_bits = static_cast<int>(c.dtype.wgt_bits);
  g.acc_bits = static_cast<int>(c.dtype.acc_bits);
  g.out_bits = static_cast<int>(c.dtype.out_bits);
  g.uop_depth = c.buffers.uop / 4;
  g.inp_depth = c.buffers.inp / g.sram_bytes(MemId::INP);
  g.wgt_depth = c.buffers.wgt / g.sram_bytes(MemId::WGT);
  g.acc_depth = c.buffers.acc / g.sram_bytes(MemId::ACC);
  auto lg = [](int64_t d) { return static_cast<int>(std::bit_width(static_cast<uint64_t>(d))) - 1; };
  g.log_acc = lg(g.acc_depth);
  g.log_src = std::max(lg(g.acc_depth), lg(g.inp_depth));
  g.log_wgt = lg(g.wgt_depth);
  return g;
}

/// Value `i` of `w` bits from a little-endian bit string, sign-extended
/// (docs/design.md, "Data types"), bit by bit.
int32_t get_value(const uint8_t* bytes, int64_t i, int w) {
  int64_t v = 0;
  for (int b = 0; b < w; ++b) {
    const int64_t at = i * w + b;
    if ((bytes[at / 8] >> (at % 8)) & 1) v |= int64_t{1} << b;
  }
  if (v & (int64_t{1} << (w - 1))) v -= int64_t{1} << w;
  return static_cast<int32_t>(v);
}
/// Writes the low `w` bits of `v` as value `i` of the bit string.
void set_value(uint8_t* bytes, int64_t i, int w, int64_t v) {
  for (int b = 0; b < w; ++b) {
    const int64_t at = i * w + b;
    const auto bit = static_cast<uint8_t>(1u << (at % 8));
    if ((v >> b) & 1)
      bytes[at / 8] = static_cast<uint8_t>(bytes[at / 8] | bit);
    else
      bytes[at / 8] = static_cast<uint8_t>(bytes[at / 8] & ~bit);
  }
}
/// `v` as a `w`-bit two's complement register holds it.
int32_t wrap(int64_t v, int w) {
  const int64_t m = int64_t{1} << w;
  v %= m;
  if (v < 0) v += m;
  if (v >= m / 2) v -= m;
  return static_cast<int32_t>(v);
}

/// Counters the reference computes from the instructions it runs.
struct RefCounts {
  std::array<uint64_t, 5> insns{};
  std::array<uint64_t, 6> read_bytes{};
  uint64_t write_bytes = 0, gemm_uops = 0, alu_uops = 0, macs = 0;
  std::array<uint64_t, 4> pushed{};  // L2C, C2L, C2S, S2C
};

int32_t ref_alu(uint32_t op, int32_t a, int32_t b) {
  switch (op) {
    case 0:
      return std::min(a, b);
    case 1:
      return std::max(a, b);
    case 2:
      return static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(a) + b));
    case 3: {
      const int n = static_cast<int>((static_cast<uint32_t>(b) & 63u) ^ 32u) - 32;  // 6-bit signed
      if (n >= 0) return static_cast<int32_t>(static_cast<int64_t>(a) >> n);
      return static_cast<int32_t>(static_cast<uint32_t>(uint64_t{static_cast<uint32_t>(a)} << -n));
    }
    case 4:
      return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(a) * b)));
  }
  throw std::logic_error("reference: bad ALU opcode");
}

/// A sequential, program-order executor of the ISA contract.
class RefVta {
 public:
  explicit RefVta(const Config& c)
      : g_(geometry(c)),
        uop_(static_cast<size_t>(g_.uop_depth), 0),
        inp_(static_cast<size_t>(g_.inp_depth * g_.values(MemId::INP)), 0),
        wgt_(static_cast<size_t>(g_.wgt_depth * g_.values(MemId::WGT)), 0),
        out_(static_cast<size_t>(g_.acc_depth * g_.lanes()), 0),
        acc_(static_cast<size_t>(g_.acc_depth * g_.lanes()), 0) {}

  /// Takes a copy of every DRAM allocation (the program's inputs).
  void snapshot(const vta::Dram& d) {
    dram_.clear();
    for (const auto& [addr, a] : d.allocations())
      dram_[addr] = std::vector<uint8_t>(a.data.begin(), a.data.begin() + static_cast<long>(a.bytes));
  }

  /// Runs `prog` in program order. A pop that finds no token means the test
  /// program relies on an order other than program order: a bug in the test.
  void run(const std::vector<Insn>& prog) {
    counts = RefCounts{};
    std::array<int64_t, 4> tokens{};
    for (size_t n = 0; n < prog.size(); ++n) {
      const Insn& i = prog[n];
      const auto op = static_cast<Opcode>(i[Member::opcode]);
      // Module: 0 load, 1 compute, 2 store. Queues: 0 L2C, 1 C2L, 2 C2S, 3 S2C.
      const auto mem = static_cast<MemId>(i[Member::memory_type]);
      const int mod = op == Opcode::STORE ? 2 : op == Opcode::LOAD && (mem == MemId::INP || mem == MemId::WGT) ? 0 : 1;
      const int pop_prev_q[3] = {-1, 0, 2}, pop_next_q[3] = {1, 3, -1};
      const int push_prev_q[3] = {-1, 1, 3}, push_next_q[3] = {0, 2, -1};
      auto pop = [&](Member flag, int q) {
        if (!i[flag]) return;
        if (q < 0 || tokens[static_cast<size_t>(q)] == 0)
          throw std::logic_error("reference: instruction " + std::to_string(n) +
                                 " pops an empty queue in program order");
        --tokens[static_cast<size_t>(q)];
      };
      pop(Member::pop_prev, pop_prev_q[mod]);
      pop(Member::pop_next, pop_next_q[mod]);
      ++counts.insns[static_cast<size_t>(op)];
      switch (op) {
        case Opcode::LOAD:
          load(i);
          break;
        case Opcode::STORE:
          store(i);
          break;
        case Opcode::GEMM:
          gemm(i);
          break;
        case Opcode::ALU:
          alu(i);
          break;
        case Opcode::FINISH:
          break;
      }
      for (auto [flag, q] :
           {std::pair{Member::push_prev, push_prev_q[mod]}, std::pair{Member::push_next, push_next_q[mod]}}) {
        if (!i[flag]) continue;
        if (q < 0) throw std::logic_error("reference: push to a missing neighbour");
        ++tokens[static_cast<size_t>(q)];
        ++counts.pushed[static_cast<size_t>(q)];
      }
    }
  }

  /// The whole of SRAM `m` in read_sram's layout (values packed at their width).
  std::vector<uint8_t> sram(MemId m) const {
    switch (m) {
      case MemId::UOP:
        return as_bytes(uop_);
      case MemId::INP:
        return packed(inp_, g_.inp_bits);
      case MemId::WGT:
        return packed(wgt_, g_.wgt_bits);
      case MemId::OUT:
        return packed(out_, g_.out_bits);
      default:
        return packed(acc_, g_.acc_bits);
    }
  }
  const std::map<uint64_t, std::vector<uint8_t>>& dram() const { return dram_; }
  int32_t acc(int64_t index, int64_t lane) const { return acc_[static_cast<size_t>(index * g_.lanes() + lane)]; }
  const Geometry& geo() const { return g_; }

  RefCounts counts;

 private:
  template <typename T>
  static std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
    std::vector<uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());  // little-endian host, as the ISA
    return b;
  }

  static std::vector<uint8_t> packed(const std::vector<int32_t>& v, int w) {
    std::vector<uint8_t> b((v.size() * static_cast<size_t>(w) + 7) / 8, 0);
    for (size_t i = 0; i < v.size(); ++i) set_value(b.data(), static_cast<int64_t>(i), w, v[i]);
    return b;
  }

  uint8_t* dram_at(uint64_t addr, uint64_t bytes) {
    auto it = dram_.upper_bound(addr);
    if (it == dram_.begin()) throw std::logic_error("reference: DRAM access outside the buffers");
    --it;
    if (addr + bytes > it->first + it->second.size())
      throw std::logic_error("reference: DRAM access outside the buffers");
    return it->second.data() + (addr - it->first);
  }

  void check_index(int64_t index, int64_t depth) const {
    if (index < 0 || index >= depth) throw std::logic_error("reference: SRAM index out of range");
  }

  // Writes SRAM element `index` of `mem` from DRAM element bytes `src` (nullptr: zeros).
  void put(MemId mem, int64_t index, const uint8_t* src) {
    check_index(index, g_.depth(mem));
    const auto ix = static_cast<size_t>(index);
    switch (mem) {
      case MemId::UOP: {
        uint32_t w = 0;
        if (src) w = uint32_t{src[0]} | uint32_t{src[1]} << 8 | uint32_t{src[2]} << 16 | uint32_t{src[3]} << 24;
        uop_[ix] = w;
        break;
      }
      case MemId::INP:
      case MemId::WGT:
      case MemId::ACC:
      case MemId::ACC_8BIT: {
        auto& buf = mem == MemId::INP ? inp_ : mem == MemId::WGT ? wgt_ : acc_;
        const int64_t n = g_.values(mem);
        for (int64_t k = 0; k < n; ++k)
          buf[static_cast<size_t>(index * n + k)] = src ? get_value(src, k, g_.dram_bits(mem)) : 0;
        break;
      }
      case MemId::OUT:
        throw std::logic_error("reference: LOAD OUT");
    }
  }

  void load(const Insn& i) {
    const auto mem = static_cast<MemId>(i[Member::memory_type]);
    const int64_t x = i[Member::x_size], y = i[Member::y_size], stride = i[Member::x_stride];
    const int64_t xp0 = i[Member::x_pad_0], xp1 = i[Member::x_pad_1], yp0 = i[Member::y_pad_0],
                  yp1 = i[Member::y_pad_1];
    if (x == 0) return;
    const auto e = static_cast<uint64_t>(g_.dram_bytes(mem));
    counts.read_bytes[static_cast<size_t>(mem)] += static_cast<uint64_t>(x * y) * e;
    const int64_t row = xp0 + x + xp1;
    int64_t at = i[Member::sram_base];
    for (int64_t r = 0; r < yp0 * row; ++r) put(mem, at++, nullptr);
    for (int64_t r = 0; r < y; ++r) {
      for (int64_t c = 0; c < xp0; ++c) put(mem, at++, nullptr);
      for (int64_t c = 0; c < x; ++c)
        put(mem, at++, dram_at((uint64_t{i[Member::dram_base]} + static_cast<uint64_t>(r * stride + c)) * e, e));
      for (int64_t c = 0; c < xp1; ++c) put(mem, at++, nullptr);
    }
    for (int64_t r = 0; r < yp1 * row; ++r) put(mem, at++, nullptr);
  }

  void store(const Insn& i) {
    const int64_t x = i[Member::x_size], y = i[Member::y_size], stride = i[Member::x_stride];
    if (x == 0) return;
    const int64_t e = g_.dram_bytes(MemId::OUT);
    counts.write_bytes += static_cast<uint64_t>(x * y * e);
    for (int64_t r = 0; r < y; ++r)
      for (int64_t c = 0; c < x; ++c) {
        const int64_t src = i[Member::sram_base] + r * x + c;
        check_index(src, g_.acc_depth);
        uint8_t* d =
            dram_at((uint64_t{i[Member::dram_base]} + static_cast<uint64_t>(r * stride + c)) * static_cast<uint64_t>(e),
                    static_cast<uint64_t>(e));
        for (int64_t l = 0; l < g_.lanes(); ++l)
          set_value(d, l, g_.out_bits, out_[static_cast<size_t>(src * g_.lanes() + l)]);
      }
  }

  struct Fields {
    int64_t dst, src, wgt;
  };
  Fields uop(uint32_t u) const {
    const uint32_t w = uop_[u];
    auto bits = [&](int lsb, int width) {
      return static_cast<int64_t>((uint64_t{w} >> lsb) & ((uint64_t{1} << width) - 1));
    };
    return {bits(0, g_.log_acc), bits(g_.log_acc, g_.log_src), bits(g_.log_acc + g_.log_src, g_.log_wgt)};
  }

  void write_out(int64_t dst) {
    for (int64_t l = 0; l < g_.lanes(); ++l)
      out_[static_cast<size_t>(dst * g_.lanes() + l)] =
          wrap(acc_[static_cast<size_t>(dst * g_.lanes() + l)], g_.out_bits);
  }

  void gemm(const Insn& in) {
    const bool reset = in[Member::reset] != 0;
    for (int64_t i = 0; i < in[Member::iter_out]; ++i)
      for (int64_t j = 0; j < in[Member::iter_in]; ++j)
        for (uint32_t u = in [Member::uop_bgn]; u < in[Member::uop_end]; ++u) {
          ++counts.gemm_uops;
          if (!reset) counts.macs += static_cast<uint64_t>(g_.batch * g_.bi * g_.bo);
          const Fields f = uop(u);
          const int64_t dst = f.dst + i * in[Member::dst_factor_out] + j * in[Member::dst_factor_in];
          const int64_t src = f.src + i * in[Member::src_factor_out] + j * in[Member::src_factor_in];
          const int64_t w = f.wgt + i * in[Member::wgt_factor_out] + j * in[Member::wgt_factor_in];
          check_index(dst, g_.acc_depth);
          check_index(src, g_.inp_depth);
          check_index(w, g_.wgt_depth);
          for (int64_t b = 0; b < g_.batch; ++b)
            for (int64_t o = 0; o < g_.bo; ++o) {
              int32_t& a = acc_[static_cast<size_t>(dst * g_.lanes() + b * g_.bo + o)];
              if (reset) {
                a = 0;
                continue;
              }
              int64_t sum = a;
              for (int64_t k = 0; k < g_.bi; ++k)
                sum += int64_t{inp_[static_cast<size_t>((src * g_.batch + b) * g_.bi + k)]} *
                       wgt_[static_cast<size_t>((w * g_.bo + o) * g_.bi + k)];
              a = wrap(sum, g_.acc_bits);
            }
          write_out(dst);
        }
  }

  void alu(const Insn& in) {
    const bool use_imm = in[Member::use_imm] != 0;
    const int32_t imm = static_cast<int16_t>(static_cast<uint16_t>(in[Member::imm] & 0xffffu));
    for (int64_t i = 0; i < in[Member::iter_out]; ++i)
      for (int64_t j = 0; j < in[Member::iter_in]; ++j)
        for (uint32_t u = in [Member::uop_bgn]; u < in[Member::uop_end]; ++u) {
          ++counts.alu_uops;
          const Fields f = uop(u);
          const int64_t dst = f.dst + i * in[Member::dst_factor_out] + j * in[Member::dst_factor_in];
          const int64_t src = f.src + i * in[Member::src_factor_out] + j * in[Member::src_factor_in];
          check_index(dst, g_.acc_depth);
          check_index(src, g_.acc_depth);
          for (int64_t l = 0; l < g_.lanes(); ++l) {
            const int32_t b = use_imm ? imm : acc_[static_cast<size_t>(src * g_.lanes() + l)];
            int32_t& a = acc_[static_cast<size_t>(dst * g_.lanes() + l)];
            a = wrap(ref_alu(in[Member::alu_opcode], a, b), g_.acc_bits);
          }
          write_out(dst);
        }
  }

  Geometry g_;
  std::vector<uint32_t> uop_;
  std::vector<int32_t> inp_, wgt_, out_, acc_;  // one value each, sign-extended from its width
  std::map<uint64_t, std::vector<uint8_t>> dram_;
};

/// Equal byte strings, or the first difference named by element.
::testing::AssertionResult same_bytes(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, int64_t elem,
                                      const std::string& what) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << what << ": golden has " << got.size() << " bytes, reference "
                                         << want.size();
  size_t diffs = 0, first = 0;
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k] != want[k] && diffs++ == 0) first = k;
  if (diffs == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << fmt::format(
             "{}: {} bytes differ; first at element {} byte {}: golden {:#04x}, reference {:#04x}", what, diffs,
             first / static_cast<size_t>(elem), first % static_cast<size_t>(elem), got[first], want[first]);
}

// ---------------------------------------------------------------------------
// Harness: one backend (test_backend(), golden by default) plus the
// reference, fed the same programs.
// ---------------------------------------------------------------------------

class Vta {
 public:
  explicit Vta(const std::string& preset_name)
      : cfg(vta::test::preset(preset_name)),
        g(geometry(cfg)),
        backend(vta::make_backend(vta::test::test_backend(), cfg)),
        ref(cfg) {
    next_program();
  }

  /// Starts a new program on the same backend (SRAM contents persist).
  void next_program() { pb = std::make_unique<ProgramBuilder>(*backend); }
  uint32_t buffer(MemId m, uint32_t count, const std::vector<uint8_t>& bytes = {}) {
    return pb->buffer(m, count, bytes);
  }
  uint32_t uops(const std::vector<Insn>& u) { return pb->uops(u); }
  void add(const Insn& i) { pb->add(i); }

  /// Runs the program on the reference and on the golden backend, then
  /// expects every DRAM buffer and every SRAM to agree bit-exactly.
  void run() {
    ref.snapshot(backend->dram());
    ref.run(pb->insns());
    pb->run();
    expect_same_state();
  }

  /// Expects every DRAM buffer and every SRAM of the backend to equal the reference's.
  void expect_same_state() {
    for (const auto& [addr, bytes] : ref.dram())
      EXPECT_TRUE(
          same_bytes(backend->dram().read(addr, bytes.size()), bytes, 1, fmt::format("DRAM buffer at 0x{:x}", addr)));
    for (MemId m : {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT})
      EXPECT_TRUE(same_bytes(backend->read_sram(m, 0, static_cast<uint32_t>(g.depth(m))), ref.sram(m), g.sram_bytes(m),
                             std::string("SRAM ") + vta::isa::mem_name(m)));
  }

  std::vector<uint8_t> dram(MemId m, uint32_t at, uint32_t count) const { return pb->read(m, at, count); }
  std::vector<uint8_t> sram(MemId m, uint32_t index, uint32_t count = 1) const {
    return backend->read_sram(m, index, count);
  }
  std::vector<int32_t> acc(uint32_t index) const {
    auto b = backend->read_sram(MemId::ACC, index, 1);
    std::vector<int32_t> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), b.size());
    return v;
  }
  std::vector<int8_t> out(uint32_t index) const {
    auto b = backend->read_sram(MemId::OUT, index, 1);
    return std::vector<int8_t>(b.begin(), b.end());
  }
  vta::Stats stats() const { return backend->stats().total; }
  uint32_t lanes() const { return static_cast<uint32_t>(g.lanes()); }

  Config cfg;
  Geometry g;
  std::unique_ptr<vta::Backend> backend;
  RefVta ref;
  std::unique_ptr<ProgramBuilder> pb;
};

}  // namespace
