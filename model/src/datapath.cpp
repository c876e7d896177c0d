// LOAD, STORE, GEMM and ALU semantics, written to read like DESIGN.md's spec.
#include "vta/model/datapath.h"

#include <algorithm>
#include <cstring>

#include "vta/isa/error.h"
#include "vta/model/program.h"

namespace vta::model {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;

namespace {

// acc[b][o] += sum_k inp[b][k] * wgt[o][k], with the weights held transposed
// and widened (wt[k][o], int32) so that the inner step is a broadcast
// multiply-add across a row of output channels, written with GCC vector
// types (a template-dependent vector_size is silently ignored by GCC, so the
// widths are fixed typedefs and BO is covered in chunks of L lanes).
typedef int32_t V8 __attribute__((vector_size(32)));
typedef int32_t V16 __attribute__((vector_size(64)));

template <typename V, int L, int BI, int BO>
inline void gemm_uop_fixed(int32_t* __restrict acc, const int8_t* __restrict inp, const int32_t* __restrict wt,
                           int64_t batch) {
  static_assert(BO % L == 0, "fixed kernels cover output channels in whole chunks");
  constexpr int kChunks = BO / L;
  for (int64_t b = 0; b < batch; ++b) {
    const int8_t* in = inp + b * BI;
    V sum[kChunks] = {};
    for (int k = 0; k < BI; ++k) {
      const int32_t x = in[k];
      for (int c = 0; c < kChunks; ++c) {
        V w;
        std::memcpy(&w, wt + k * BO + c * L, sizeof(V));
        sum[c] += x * w;  // |sum| <= 2^14 * BI: no overflow
      }
    }
    int32_t* a = acc + b * BO;
    int32_t s[BO];
    std::memcpy(s, sum, sizeof(s));
    for (int o = 0; o < BO; ++o)  // the accumulator wraps around
      a[o] = static_cast<int32_t>(static_cast<uint32_t>(a[o]) + static_cast<uint32_t>(s[o]));
  }
}

inline void gemm_uop_generic(int32_t* acc, const int8_t* inp, const int32_t* wt, int64_t batch, int64_t block_in,
                             int64_t block_out) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < block_out; ++o) {
      uint32_t sum = 0;
      for (int64_t k = 0; k < block_in; ++k)
        sum += static_cast<uint32_t>(static_cast<int32_t>(inp[b * block_in + k]) * wt[k * block_out + o]);
      acc[b * block_out + o] = static_cast<int32_t>(static_cast<uint32_t>(acc[b * block_out + o]) + sum);
    }
}

using GemmKernel = void (*)(int32_t*, const int8_t*, const int32_t*, int64_t);

// A fixed-shape kernel for the common GEMM shapes, nullptr for the rest.
GemmKernel pick_kernel(int64_t block_in, int64_t block_out) {
  if (block_in == 16 && block_out == 16) return gemm_uop_fixed<V16, 16, 16, 16>;
  if (block_in == 32 && block_out == 32) return gemm_uop_fixed<V16, 16, 32, 32>;
  if (block_in == 8 && block_out == 8) return gemm_uop_fixed<V8, 8, 8, 8>;
  if (block_in == 16 && block_out == 32) return gemm_uop_fixed<V16, 16, 16, 32>;
  if (block_in == 32 && block_out == 16) return gemm_uop_fixed<V16, 16, 32, 16>;
  if (block_in == 64 && block_out == 64) return gemm_uop_fixed<V16, 16, 64, 64>;
  return nullptr;
}

inline void write_out(int8_t* __restrict out, const int32_t* __restrict acc, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(acc[i]);
}

}  // namespace

int32_t alu_apply(AluOp op, int32_t a, int32_t b) {
  switch (op) {
    case AluOp::MIN: return a < b ? a : b;
    case AluOp::MAX: return a > b ? a : b;
    case AluOp::ADD: return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case AluOp::SHR: {
      // The shift amount is the low 6 bits of b, signed (-32..31), as in
      // upstream's ap_int datapath: negative amounts shift left.
      int n = static_cast<int>(static_cast<uint32_t>(b) & 63u);
      if (n >= 32) n -= 64;
      if (n >= 0) return a >> n;
      return n == -32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a) << -n);
    }
    case AluOp::MUL: return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
  return a;
}

Datapath::Datapath(const Config& c) : cfg_(c), layout_(c) {
  const auto& d = c.derived;
  inp_elem_ = d.inp_elem_bytes;
  wgt_elem_ = d.wgt_elem_bytes;
  acc_lanes_ = c.gemm.batch * c.gemm.block_out;
  out_elem_ = d.out_elem_bytes;
  uop_raw_.assign(static_cast<size_t>(d.uop_depth), 0);
  uop_.assign(static_cast<size_t>(d.uop_depth), Uop{0, 0, 0});
  inp_.assign(static_cast<size_t>(d.inp_depth * inp_elem_), 0);
  wgt_.assign(static_cast<size_t>(d.wgt_depth * wgt_elem_), 0);
  wgt_t_.assign(static_cast<size_t>(d.wgt_depth * wgt_elem_), 0);
  acc_.assign(static_cast<size_t>(d.acc_depth * acc_lanes_), 0);
  out_.assign(static_cast<size_t>(d.out_depth * out_elem_), 0);
}

void Datapath::error(const Insn& insn, int64_t index, const std::string& what) const {
  fail("{}: {}", insn_label(layout_, insn, index), what);
}

void Datapath::load(const Insn& insn, int64_t index, const Dram& dram) {
  const auto mem = insn.mem();
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return;  // dependency-only
  const uint64_t x_stride = insn[Member::x_stride], dram_base = insn[Member::dram_base];
  const uint64_t xp0 = insn[Member::x_pad_0], xp1 = insn[Member::x_pad_1];
  const uint64_t yp0 = insn[Member::y_pad_0], yp1 = insn[Member::y_pad_1];
  const uint64_t x_total = xp0 + x_size + xp1, y_total = yp0 + y_size + yp1;
  const uint64_t sram_base = insn[Member::sram_base];
  const int64_t dram_elem = cfg_.elem_bytes(static_cast<int>(mem));
  int64_t depth = 0;
  switch (mem) {
    case MemId::UOP: depth = cfg_.derived.uop_depth; break;
    case MemId::INP: depth = cfg_.derived.inp_depth; break;
    case MemId::WGT: depth = cfg_.derived.wgt_depth; break;
    case MemId::ACC:
    case MemId::ACC_8BIT: depth = cfg_.derived.acc_depth; break;
    default: error(insn, index, "LOAD cannot target this memory type");
  }
  if (sram_base + y_total * x_total > static_cast<uint64_t>(depth))
    error(insn, index,
          fmt::format("writes {} SRAM elements [{}, {}) but the {} buffer has {}", y_total * x_total, sram_base,
                      sram_base + y_total * x_total, isa::mem_name(mem), depth));
  // Check every DRAM row before touching any state.
  std::vector<const uint8_t*> rows(y_size);
  for (uint64_t y = 0; y < y_size; ++y) {
    uint64_t addr = (dram_base + y * x_stride) * static_cast<uint64_t>(dram_elem);
    uint64_t bytes = x_size * static_cast<uint64_t>(dram_elem);
    rows[y] = dram.find(addr, bytes);
    if (!rows[y])
      error(insn, index,
            fmt::format("row {} reads DRAM {} outside any allocation", y, Dram::range(addr, bytes)));
  }
  // Writes `n` elements starting at SRAM element `at` from `src` (nullptr: zeros).
  auto put = [&](uint64_t at, const uint8_t* src, uint64_t n) {
    switch (mem) {
      case MemId::UOP:
        for (uint64_t i = 0; i < n; ++i) {
          uint32_t w = 0;
          if (src) std::memcpy(&w, src + 4 * i, 4);
          uop_raw_[at + i] = w;
          Insn u = layout_.decode_uop(w);
          uop_[at + i] = Uop{u[Member::dst], u[Member::src], u[Member::wgt]};
        }
        break;
      case MemId::INP:
      case MemId::WGT: {
        auto& buf = mem == MemId::INP ? inp_ : wgt_;
        int64_t e = mem == MemId::INP ? inp_elem_ : wgt_elem_;
        int8_t* dst = buf.data() + at * static_cast<uint64_t>(e);
        if (src)
          std::memcpy(dst, src, n * static_cast<uint64_t>(e));
        else
          std::memset(dst, 0, n * static_cast<uint64_t>(e));
        if (mem == MemId::WGT) update_wgt_t(at, n);
        break;
      }
      case MemId::ACC: {
        int32_t* dst = acc_.data() + at * static_cast<uint64_t>(acc_lanes_);
        if (src)
          std::memcpy(dst, src, n * static_cast<uint64_t>(acc_lanes_) * 4);
        else
          std::memset(dst, 0, n * static_cast<uint64_t>(acc_lanes_) * 4);
        break;
      }
      case MemId::ACC_8BIT: {
        int32_t* dst = acc_.data() + at * static_cast<uint64_t>(acc_lanes_);
        const auto* s8 = reinterpret_cast<const int8_t*>(src);
        for (uint64_t i = 0; i < n * static_cast<uint64_t>(acc_lanes_); ++i) dst[i] = src ? s8[i] : 0;
        break;
      }
      default: break;
    }
  };
  uint64_t at = sram_base;
  put(at, nullptr, yp0 * x_total);
  at += yp0 * x_total;
  for (uint64_t y = 0; y < y_size; ++y) {
    put(at, nullptr, xp0);
    put(at + xp0, rows[y], x_size);
    put(at + xp0 + x_size, nullptr, xp1);
    at += x_total;
  }
  put(at, nullptr, yp1 * x_total);
}

void Datapath::update_wgt_t(uint64_t first, uint64_t count) {
  const int64_t bi = cfg_.gemm.block_in, bo = cfg_.gemm.block_out;
  for (uint64_t e = first; e < first + count; ++e) {
    const int8_t* w = wgt_.data() + e * static_cast<uint64_t>(wgt_elem_);
    int32_t* t = wgt_t_.data() + e * static_cast<uint64_t>(wgt_elem_);
    for (int64_t o = 0; o < bo; ++o)
      for (int64_t k = 0; k < bi; ++k) t[k * bo + o] = w[o * bi + k];
  }
}

void Datapath::store(const Insn& insn, int64_t index, Dram& dram) {
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return;
  const uint64_t x_stride = insn[Member::x_stride], dram_base = insn[Member::dram_base];
  const uint64_t sram_base = insn[Member::sram_base];
  const auto depth = static_cast<uint64_t>(cfg_.derived.out_depth);
  if (sram_base + y_size * x_size > depth)
    error(insn, index,
          fmt::format("reads OUT elements [{}, {}) but the OUT buffer has {}", sram_base,
                      sram_base + y_size * x_size, depth));
  const auto e = static_cast<uint64_t>(out_elem_);
  std::vector<uint8_t*> rows(y_size);
  for (uint64_t y = 0; y < y_size; ++y) {
    uint64_t addr = (dram_base + y * x_stride) * e;
    rows[y] = dram.find(addr, x_size * e);
    if (!rows[y])
      error(insn, index, fmt::format("row {} writes DRAM {} outside any allocation", y, Dram::range(addr, x_size * e)));
  }
  for (uint64_t y = 0; y < y_size; ++y)
    std::memcpy(rows[y], out_.data() + (sram_base + y * x_size) * e, x_size * e);
}

void Datapath::check_loop_bounds(const Insn& insn, int64_t index, bool is_gemm) const {
  const uint64_t bgn = insn[Member::uop_bgn], end = insn[Member::uop_end];
  const uint64_t io = insn[Member::iter_out], ii = insn[Member::iter_in];
  if (bgn >= end || io == 0 || ii == 0) return;
  if (end > uop_.size())
    error(insn, index, fmt::format("uop_end {} exceeds the uop buffer depth {}", end, uop_.size()));
  // Indices grow with the loop counters, so the last iteration is the largest.
  auto last = [&](Member out, Member in) { return (io - 1) * insn[out] + (ii - 1) * insn[in]; };
  const uint64_t dmax = last(Member::dst_factor_out, Member::dst_factor_in);
  const uint64_t smax = last(Member::src_factor_out, Member::src_factor_in);
  const uint64_t wmax = is_gemm ? last(Member::wgt_factor_out, Member::wgt_factor_in) : 0;
  const auto acc_depth = static_cast<uint64_t>(cfg_.derived.acc_depth);
  const auto src_depth = static_cast<uint64_t>(is_gemm ? cfg_.derived.inp_depth : cfg_.derived.acc_depth);
  const auto wgt_depth = static_cast<uint64_t>(cfg_.derived.wgt_depth);
  for (uint64_t u = bgn; u < end; ++u) {
    const Uop& op = uop_[u];
    if (op.dst + dmax >= acc_depth)
      error(insn, index, fmt::format("uop {} reaches ACC index {} but the ACC buffer has {}", u, op.dst + dmax, acc_depth));
    if (op.src + smax >= src_depth)
      error(insn, index, fmt::format("uop {} reaches {} index {} but the {} buffer has {}", u, is_gemm ? "INP" : "ACC",
                                     op.src + smax, is_gemm ? "INP" : "ACC", src_depth));
    if (is_gemm && op.wgt + wmax >= wgt_depth)
      error(insn, index, fmt::format("uop {} reaches WGT index {} but the WGT buffer has {}", u, op.wgt + wmax, wgt_depth));
  }
}

void Datapath::gemm(const Insn& insn, int64_t index) {
  check_loop_bounds(insn, index, true);
  const uint32_t bgn = insn[Member::uop_bgn], end = insn[Member::uop_end];
  const uint32_t io = insn[Member::iter_out], ii = insn[Member::iter_in];
  const uint32_t dfo = insn[Member::dst_factor_out], dfi = insn[Member::dst_factor_in];
  const uint32_t sfo = insn[Member::src_factor_out], sfi = insn[Member::src_factor_in];
  const uint32_t wfo = insn[Member::wgt_factor_out], wfi = insn[Member::wgt_factor_in];
  const bool reset = insn[Member::reset] != 0;
  const int64_t batch = cfg_.gemm.batch, bo = cfg_.gemm.block_out, bi = cfg_.gemm.block_in;
  const GemmKernel kernel = pick_kernel(bi, bo);
  for (uint32_t i = 0; i < io; ++i) {
    for (uint32_t j = 0; j < ii; ++j) {
      for (uint32_t u = bgn; u < end; ++u) {
        const Uop& op = uop_[u];
        const uint64_t dst = op.dst + i * dfo + j * dfi;
        int32_t* acc = acc_.data() + dst * static_cast<uint64_t>(acc_lanes_);
        if (reset) {
          std::memset(acc, 0, static_cast<size_t>(acc_lanes_) * 4);
        } else {
          const int8_t* in = inp_.data() + (op.src + i * sfo + j * sfi) * static_cast<uint64_t>(inp_elem_);
          const int32_t* w = wgt_t_.data() + (op.wgt + i * wfo + j * wfi) * static_cast<uint64_t>(wgt_elem_);
          if (kernel)
            kernel(acc, in, w, batch);
          else
            gemm_uop_generic(acc, in, w, batch, bi, bo);
        }
        write_out(out_.data() + dst * static_cast<uint64_t>(out_elem_), acc, acc_lanes_);
      }
    }
  }
}

void Datapath::alu(const Insn& insn, int64_t index) {
  check_loop_bounds(insn, index, false);
  const uint32_t bgn = insn[Member::uop_bgn], end = insn[Member::uop_end];
  const uint32_t io = insn[Member::iter_out], ii = insn[Member::iter_in];
  const uint32_t dfo = insn[Member::dst_factor_out], dfi = insn[Member::dst_factor_in];
  const uint32_t sfo = insn[Member::src_factor_out], sfi = insn[Member::src_factor_in];
  const bool use_imm = insn[Member::use_imm] != 0;
  const int32_t imm = insn.imm();
  const AluOp op = insn.alu();
  const auto lanes = static_cast<uint64_t>(acc_lanes_);
  for (uint32_t i = 0; i < io; ++i) {
    for (uint32_t j = 0; j < ii; ++j) {
      for (uint32_t u = bgn; u < end; ++u) {
        const Uop& uop = uop_[u];
        const uint64_t dst = uop.dst + i * dfo + j * dfi;
        const uint64_t src = uop.src + i * sfo + j * sfi;
        int32_t* a = acc_.data() + dst * lanes;
        const int32_t* b = acc_.data() + src * lanes;
        // Read the source before writing (dst may equal src).
        for (uint64_t l = 0; l < lanes; ++l) a[l] = alu_apply(op, a[l], use_imm ? imm : b[l]);
        write_out(out_.data() + dst * static_cast<uint64_t>(out_elem_), a, acc_lanes_);
      }
    }
  }
}

std::vector<uint8_t> Datapath::read_sram(MemId mem, uint32_t index, uint32_t count) const {
  auto slice = [&](const void* base, size_t elem_bytes, size_t depth) {
    if (static_cast<uint64_t>(index) + count > depth)
      fail("read_sram: {} elements [{}, {}) are outside the {} buffer of {} elements", isa::mem_name(mem), index,
           static_cast<uint64_t>(index) + count, isa::mem_name(mem), depth);
    const auto* p = static_cast<const uint8_t*>(base) + index * elem_bytes;
    return std::vector<uint8_t>(p, p + count * elem_bytes);
  };
  switch (mem) {
    case MemId::UOP: return slice(uop_raw_.data(), 4, uop_raw_.size());
    case MemId::INP: return slice(inp_.data(), inp_elem_, inp_.size() / inp_elem_);
    case MemId::WGT: return slice(wgt_.data(), wgt_elem_, wgt_.size() / wgt_elem_);
    case MemId::ACC:
    case MemId::ACC_8BIT: return slice(acc_.data(), acc_lanes_ * 4, acc_.size() / acc_lanes_);
    case MemId::OUT: return slice(out_.data(), out_elem_, out_.size() / out_elem_);
  }
  fail("read_sram: unknown memory type {}", static_cast<int>(mem));
}

}  // namespace vta::model
