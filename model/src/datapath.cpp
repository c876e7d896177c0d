// LOAD, STORE, GEMM and ALU semantics, written to read like docs/design.md's spec.
#include "vta/model/datapath.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "gemm_kernels.h"
#include "vta/isa/elem_pack.h"
#include "vta/isa/error.h"
#include "vta/isa/fuzz_coverage.h"
#include "vta/model/alu_block.h"
#include "vta/model/program.h"

namespace vta::model {

using isa::AluOp;
using isa::Insn;
using isa::Member;
using isa::MemId;

// Each op computes its c_expr of isa/include/vta/isa/opcodes.def (the one
// statement of ALU semantics: the OpenCL kernel and the RTL take theirs from
// the same lines).
// (VTA_OPCODE and VTA_MEMORY lines expand to nothing in this file.)
#define VTA_OPCODE(...)
#define VTA_MEMORY(...)
int32_t alu_apply(AluOp op, int32_t a, int32_t b) {
  switch (op) {
#define VTA_ALU_OP(name, value, ext, c_expr, sv_expr, doc) \
  case AluOp::name:                                        \
    return c_expr;
#include "vta/isa/opcodes.def"
#undef VTA_ALU_OP
  }
  return a;
}

namespace {
template <AluOp OP, class B>
void apply_n(int32_t* a, B b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_pointer_v<B>)
      a[i] = alu_apply(OP, a[i], b[i]);
    else
      a[i] = alu_apply(OP, a[i], b);
  }
}
template <class B>
void dispatch_n(AluOp op, int32_t* a, B b, size_t n) {
  switch (op) {
#define VTA_ALU_OP(name, ...) \
  case AluOp::name:           \
    return apply_n<AluOp::name>(a, b, n);
#include "vta/isa/opcodes.def"
#undef VTA_ALU_OP
  }
}
}  // namespace

void alu_apply_n(AluOp op, int32_t* a, const int32_t* b, size_t n) { dispatch_n(op, a, b, n); }
void alu_apply_n(AluOp op, int32_t* a, int32_t imm, size_t n) { dispatch_n(op, a, imm, n); }

Datapath::Datapath(const Config& c) : cfg_(c), layout_(c) {
  const auto& d = c.derived;
  inp_lanes_ = c.gemm.batch * c.gemm.block_in;
  wgt_lanes_ = c.gemm.block_out * c.gemm.block_in;
  acc_lanes_ = c.gemm.batch * c.gemm.block_out;
  inp_bits_ = static_cast<int>(c.dtype.inp_bits);
  wgt_bits_ = static_cast<int>(c.dtype.wgt_bits);
  acc_bits_ = static_cast<int>(c.dtype.acc_bits);
  out_bits_ = static_cast<int>(c.dtype.out_bits);
  uop_raw_.assign(static_cast<size_t>(d.uop_depth), 0);
  uop_.assign(static_cast<size_t>(d.uop_depth), Uop{0, 0, 0});
  inp_.assign(static_cast<size_t>(d.inp_depth * inp_lanes_), 0);
  wgt_.assign(static_cast<size_t>(d.wgt_depth * wgt_lanes_), 0);
  wgt_packed_.assign(static_cast<size_t>(d.wgt_depth * gemm::packed_elems(c.gemm.block_in, c.gemm.block_out)), 0);
  acc_.assign(static_cast<size_t>(d.acc_depth * acc_lanes_), 0);
  out_.assign(static_cast<size_t>(d.out_depth * acc_lanes_), 0);
}

void Datapath::error(const Insn& insn, int64_t index, const std::string& what) const {
  fail("{}: {}", insn_label(layout_, insn, index), what);
}

std::vector<const uint8_t*> Datapath::check_load(const Insn& insn, int64_t index, const Dram& dram) const {
  const auto mem = insn.mem();
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return {};  // dependency-only
  const uint64_t x_stride = insn[Member::x_stride], dram_base = insn[Member::dram_base];
  const uint64_t xp0 = insn[Member::x_pad_0], xp1 = insn[Member::x_pad_1];
  const uint64_t yp0 = insn[Member::y_pad_0], yp1 = insn[Member::y_pad_1];
  const uint64_t x_total = xp0 + x_size + xp1, y_total = yp0 + y_size + yp1;
  const uint64_t sram_base = insn[Member::sram_base];
  const int64_t dram_elem = cfg_.elem_bytes(static_cast<int>(mem));
  int64_t depth = 0;
  switch (mem) {
    case MemId::UOP:
      depth = cfg_.derived.uop_depth;
      break;
    case MemId::INP:
      depth = cfg_.derived.inp_depth;
      break;
    case MemId::WGT:
      depth = cfg_.derived.wgt_depth;
      break;
    case MemId::ACC:
    case MemId::ACC_8BIT:
      depth = cfg_.derived.acc_depth;
      break;
    default:
      error(insn, index, "LOAD cannot target this memory type");
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
      error(insn, index, fmt::format("row {} reads DRAM {} outside any allocation", y, Dram::range(addr, bytes)));
  }
  return rows;
}

void Datapath::load(const Insn& insn, int64_t index, const Dram& dram) {
  const std::vector<const uint8_t*> rows = check_load(insn, index, dram);  // every check, before any state changes
  const auto mem = insn.mem();
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return;  // dependency-only
  const uint64_t xp0 = insn[Member::x_pad_0], xp1 = insn[Member::x_pad_1];
  const uint64_t yp0 = insn[Member::y_pad_0], yp1 = insn[Member::y_pad_1];
  const uint64_t x_total = xp0 + x_size + xp1;
  const uint64_t sram_base = insn[Member::sram_base];
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
        const bool is_inp = mem == MemId::INP;
        const auto lanes = static_cast<uint64_t>(is_inp ? inp_lanes_ : wgt_lanes_);
        int16_t* dst = (is_inp ? inp_ : wgt_).data() + at * lanes;
        if (src)
          isa::unpack_elems(src, is_inp ? inp_bits_ : wgt_bits_, dst, n * lanes);
        else
          std::memset(dst, 0, n * lanes * sizeof(int16_t));
        if (!is_inp) update_wgt_packed(at, n);
        break;
      }
      case MemId::ACC:
      case MemId::ACC_8BIT: {  // ACC_8BIT: OUT-width elements, sign-extended
        const auto lanes = static_cast<uint64_t>(acc_lanes_);
        int32_t* dst = acc_.data() + at * lanes;
        if (src)
          isa::unpack_elems(src, mem == MemId::ACC ? acc_bits_ : out_bits_, dst, n * lanes);
        else
          std::memset(dst, 0, n * lanes * sizeof(int32_t));
        break;
      }
      default:
        break;
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

void Datapath::update_wgt_packed(uint64_t first, uint64_t count) {
  const int64_t bi = cfg_.gemm.block_in, bo = cfg_.gemm.block_out;
  gemm::pack(wgt_.data() + first * static_cast<uint64_t>(wgt_lanes_),
             wgt_packed_.data() + first * static_cast<uint64_t>(gemm::packed_elems(bi, bo)), count, bi, bo);
}

void Datapath::check_store(const Insn& insn, int64_t index, const Dram& dram) const {
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return;
  const uint64_t x_stride = insn[Member::x_stride], dram_base = insn[Member::dram_base];
  const uint64_t sram_base = insn[Member::sram_base];
  const auto depth = static_cast<uint64_t>(cfg_.derived.out_depth);
  if (sram_base + y_size * x_size > depth)
    error(insn, index,
          fmt::format("reads OUT elements [{}, {}) but the OUT buffer has {}", sram_base, sram_base + y_size * x_size,
                      depth));
  const auto e = static_cast<uint64_t>(cfg_.derived.out_elem_bytes);
  for (uint64_t y = 0; y < y_size; ++y) {
    uint64_t addr = (dram_base + y * x_stride) * e;
    if (!dram.contains(addr, x_size * e))
      error(insn, index, fmt::format("row {} writes DRAM {} outside any allocation", y, Dram::range(addr, x_size * e)));
  }
}

void Datapath::store(const Insn& insn, int64_t index, Dram& dram) {
  check_store(insn, index, dram);  // every row is inside an allocation from here on
  const uint64_t y_size = insn[Member::y_size], x_size = insn[Member::x_size];
  if (x_size == 0) return;
  const uint64_t x_stride = insn[Member::x_stride], dram_base = insn[Member::dram_base];
  const uint64_t sram_base = insn[Member::sram_base];
  const auto e = static_cast<uint64_t>(cfg_.derived.out_elem_bytes);
  const auto lanes = static_cast<uint64_t>(acc_lanes_);
  for (uint64_t y = 0; y < y_size; ++y)
    isa::pack_elems(out_.data() + (sram_base + y * x_size) * lanes, out_bits_,
                    dram.find((dram_base + y * x_stride) * e, x_size * e), x_size * lanes);
}

void Datapath::check(const Insn& insn, int64_t index, const Dram& dram) {
  switch (insn.opcode()) {
    case isa::Opcode::LOAD:
      // A uop load is carried out: the GEMM/ALU checks read the uop buffer.
      if (insn.mem() == MemId::UOP)
        load(insn, index, dram);
      else
        check_load(insn, index, dram);
      break;
    case isa::Opcode::STORE:
      check_store(insn, index, dram);
      break;
    case isa::Opcode::GEMM:
      check_loop_bounds(insn, index, true);
      break;
    case isa::Opcode::ALU:
      check_loop_bounds(insn, index, false);
      break;
    case isa::Opcode::FINISH:
      break;
  }
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
      error(insn, index,
            fmt::format("uop {} reaches ACC index {} but the ACC buffer has {}", u, op.dst + dmax, acc_depth));
    if (op.src + smax >= src_depth)
      error(insn, index,
            fmt::format("uop {} reaches {} index {} but the {} buffer has {}", u, is_gemm ? "INP" : "ACC",
                        op.src + smax, is_gemm ? "INP" : "ACC", src_depth));
    if (is_gemm && op.wgt + wmax >= wgt_depth)
      error(insn, index,
            fmt::format("uop {} reaches WGT index {} but the WGT buffer has {}", u, op.wgt + wmax, wgt_depth));
  }
}

void Datapath::gemm(const Insn& insn, int64_t index) {
  check_loop_bounds(insn, index, true);
  const gemm::Loop g{uop_.data(),
                     insn[Member::uop_bgn],
                     insn[Member::uop_end],
                     insn[Member::iter_out],
                     insn[Member::iter_in],
                     insn[Member::dst_factor_out],
                     insn[Member::dst_factor_in],
                     insn[Member::src_factor_out],
                     insn[Member::src_factor_in],
                     insn[Member::wgt_factor_out],
                     insn[Member::wgt_factor_in],
                     acc_.data(),
                     out_.data(),
                     inp_.data(),
                     wgt_packed_.data(),
                     cfg_.gemm.batch,
                     cfg_.gemm.block_in,
                     cfg_.gemm.block_out,
                     32 - acc_bits_,
                     32 - out_bits_};
  if (insn[Member::reset] == 0) {
    gemm::pick(g.bi, g.bo, g.acc_shift, g.out_shift)(g);
    return;
  }
  // Reset writes zero to ACC and OUT at every destination of the loop nest.
  const auto lanes = static_cast<size_t>(acc_lanes_);
  for (uint32_t i = 0; i < g.io; ++i)
    for (uint32_t j = 0; j < g.ii; ++j)
      for (uint32_t u = g.bgn; u < g.end; ++u) {
        const uint64_t dst = uop_[u].dst + i * g.dfo + j * g.dfi;
        std::memset(acc_.data() + dst * lanes, 0, lanes * 4);
        std::memset(out_.data() + dst * lanes, 0, lanes * sizeof(int16_t));
      }
}

namespace {

// The ALU loop nest for one operation, so that the per-lane operation is
// known at compile time and the lane loop vectorises.
template <AluOp OP, bool IMM>
VTA_NO_FUZZ_COVERAGE void alu_loop(const Uop* uops, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii, uint32_t dfo,
                                   uint32_t dfi, uint32_t sfo, uint32_t sfi, int32_t imm, int32_t* acc, int16_t* out,
                                   uint64_t lanes, int acc_bits, int out_bits) {
  for (uint32_t i = 0; i < io; ++i)
    for (uint32_t j = 0; j < ii; ++j)
      for (uint32_t u = bgn; u < end; ++u) {
        const uint64_t dst = uops[u].dst + i * dfo + j * dfi;
        const uint64_t src = uops[u].src + i * sfo + j * sfi;
        int32_t* a = acc + dst * lanes;
        const int32_t* b = acc + src * lanes;  // may equal a: each lane reads before it writes
        int16_t* o = out + dst * lanes;
        for (uint64_t l = 0; l < lanes; ++l) {
          a[l] = isa::wrap_bits(alu_apply(OP, a[l], IMM ? imm : b[l]), acc_bits);
          o[l] = static_cast<int16_t>(isa::wrap_bits(a[l], out_bits));
        }
      }
}

using AluFn = void (*)(const Uop*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                       int32_t, int32_t*, int16_t*, uint64_t, int, int);

template <AluOp OP>
AluFn pick_alu(bool use_imm) {
  return use_imm ? alu_loop<OP, true> : alu_loop<OP, false>;
}

}  // namespace

void Datapath::alu(const Insn& insn, int64_t index) {
  check_loop_bounds(insn, index, false);
  AluFn fn = nullptr;
  const bool imm = insn[Member::use_imm] != 0;
  switch (insn.alu()) {
#define VTA_ALU_OP(name, ...)        \
  case AluOp::name:                  \
    fn = pick_alu<AluOp::name>(imm); \
    break;
#include "vta/isa/opcodes.def"
#undef VTA_ALU_OP
#undef VTA_OPCODE
#undef VTA_MEMORY
  }
  if (!fn) error(insn, index, "unknown ALU opcode");
  fn(uop_.data(), insn[Member::uop_bgn], insn[Member::uop_end], insn[Member::iter_out], insn[Member::iter_in],
     insn[Member::dst_factor_out], insn[Member::dst_factor_in], insn[Member::src_factor_out],
     insn[Member::src_factor_in], insn.imm(), acc_.data(), out_.data(), static_cast<uint64_t>(acc_lanes_), acc_bits_,
     out_bits_);
}

std::vector<uint8_t> Datapath::read_sram(MemId mem, uint32_t index, uint32_t count) const {
  // Packs `count` elements of `lanes` values of `bits` bits from `base`.
  auto slice = [&](const auto* base, size_t lanes, size_t depth, int bits) {
    if (static_cast<uint64_t>(index) + count > depth)
      fail("read_sram: {} elements [{}, {}) are outside the {} buffer of {} elements", isa::mem_name(mem), index,
           static_cast<uint64_t>(index) + count, isa::mem_name(mem), depth);
    std::vector<uint8_t> bytes(isa::packed_bytes(bits, count * lanes));
    isa::pack_elems(base + index * lanes, bits, bytes.data(), count * lanes);
    return bytes;
  };
  const auto acc_lanes = static_cast<size_t>(acc_lanes_);
  switch (mem) {
    case MemId::UOP:
      return slice(reinterpret_cast<const int32_t*>(uop_raw_.data()), 1, uop_raw_.size(), 32);
    case MemId::INP:
      return slice(inp_.data(), static_cast<size_t>(inp_lanes_), inp_.size() / static_cast<size_t>(inp_lanes_),
                   inp_bits_);
    case MemId::WGT:
      return slice(wgt_.data(), static_cast<size_t>(wgt_lanes_), wgt_.size() / static_cast<size_t>(wgt_lanes_),
                   wgt_bits_);
    case MemId::ACC:
    case MemId::ACC_8BIT:
      return slice(acc_.data(), acc_lanes, acc_.size() / acc_lanes, acc_bits_);
    case MemId::OUT:
      return slice(out_.data(), acc_lanes, out_.size() / acc_lanes, out_bits_);
  }
  fail("read_sram: unknown memory type {}", static_cast<int>(mem));
}

}  // namespace vta::model
