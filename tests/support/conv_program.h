#pragma once
// The synthetic GEMM-dominated program of the cycle-model benchmarks (about
// 9,400 cycles a tile on 1x16x16; 3,200 tiles are about 30 M cycles): a
// blocked convolution-like loop nest whose input and weight tiles are
// double-buffered (two halves of each SRAM alternate, synchronised by
// dependency tokens) so that loads overlap the GEMMs. Shared by
// bench_systemc, bench_verilator and test_verilator.
#include "test_support.h"

namespace vta::test {

// Per tile t on half h = t % 2 (INP halves of 1024, WGT of 512, ACC of 1024):
//   load:    LOAD INP h (waits for compute to free h), LOAD WGT h -> compute
//   compute: GEMM 16 uops x 64 x 8 = 8192 iterations (waits for the store of
//            tile t-2 to free ACC half h), SHR, MAX -> frees h for load, -> store
//   store:   STORE 512 OUT elements -> compute
inline Launch conv_program(Backend& b, uint32_t tiles) {
  using isa::AluOp;
  using isa::MemId;
  ProgramBuilder p(b);
  std::vector<isa::Insn> uops;
  for (uint32_t h = 0; h < 2; ++h)
    for (uint32_t k = 0; k < 16; ++k) uops.push_back(make_uop(1024 * h, 1024 * h + k, 512 * h + k));
  uops.push_back(make_uop(0, 0, 0));
  uops.push_back(make_uop(1024, 1024, 0));
  const uint32_t u = p.uops(uops);
  const uint32_t inp = p.buffer(MemId::INP, 1024, random_bytes(1024 * 16, 1));
  const uint32_t wgt = p.buffer(MemId::WGT, 128, random_bytes(128 * 256, 2));
  const uint32_t out = p.buffer(MemId::OUT, 512);
  p.add(make_load(MemId::UOP, 0, u, 1, 34, 34));
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t h = t % 2;
    const bool reuse = t >= 2;
    p.add(with_deps(make_load(MemId::INP, 1024 * h, inp, 1, 1024, 1024), false, reuse, false, false));
    p.add(with_deps(make_load(MemId::WGT, 512 * h, wgt, 1, 128, 128), false, false, false, true));
    p.add(with_deps(make_gemm(t < 2, 16 * h, 16 * h + 16, 64, 8, 8, 1, 16, 0, 0, 16), true, reuse, false, false));
    p.add(make_alu(AluOp::SHR, true, 8, 32 + h, 33 + h, 64, 8, 8, 1, 8, 1));
    p.add(with_deps(make_alu(AluOp::MAX, true, 0, 32 + h, 33 + h, 64, 8, 8, 1, 8, 1), false, false, true, true));
    p.add(with_deps(make_store(1024 * h, out, 1, 512, 512), true, false, true, false));
  }
  p.add(with_deps(make_finish(), false, true, false, false));
  return p.install();
}

}  // namespace vta::test
