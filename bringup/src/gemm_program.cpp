// The GEMM benchmark program (see programs.h).
#include "vta/bringup/programs.h"

#include <algorithm>

namespace vta::programs {

using isa::AluOp;
using isa::Insn;
using isa::MemId;

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
