#pragma once
// Helpers of the RTL backends' tests (test_verilator, test_cosim): a seeded
// random valid program, and what a program leaves on a backend.
#include <random>

#include "test_support.h"

namespace vta::test {

// A seeded random valid program: LOAD UOP, then tiles of load (INP with
// random shape, stride and padding; WGT) -> compute (an optional ACC or
// ACC_8BIT load, a GEMM over a random uop range and loop nest, 0-2 ALU ops)
// -> store, chained by tokens so that every legal schedule computes the
// same values. Indices stay below 64 (WGT 32) so that every preset fits.
inline void random_program(ProgramBuilder& p, const Config& c, uint32_t seed) {
  using isa::AluOp;
  using isa::MemId;
  std::mt19937 rng(seed);
  auto bytes = [&](MemId m, uint32_t n, uint32_t s) {
    return random_bytes(n * static_cast<size_t>(c.elem_bytes(static_cast<int>(m))), s);
  };
  auto rnd = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  std::vector<isa::Insn> uops;
  const uint32_t n_uops = rnd(1, 6);
  for (uint32_t k = 0; k < n_uops; ++k) uops.push_back(make_uop(rnd(0, 15), rnd(0, 15), rnd(0, 7)));
  const uint32_t u = p.uops(uops);
  const uint32_t inp = p.buffer(MemId::INP, 64, bytes(MemId::INP, 64, seed));
  const uint32_t wgt = p.buffer(MemId::WGT, 16, bytes(MemId::WGT, 16, seed + 1));
  const uint32_t acc = p.buffer(MemId::ACC, 16, bytes(MemId::ACC, 16, seed + 2));
  const uint32_t acc8 = p.buffer(MemId::ACC_8BIT, 16, bytes(MemId::ACC_8BIT, 16, seed + 3));
  const uint32_t out = p.buffer(MemId::OUT, 64);
  p.add(make_load(MemId::UOP, 0, u, 1, n_uops, n_uops));
  const uint32_t tiles = rnd(1, 4);
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t y = rnd(1, 3), x = rnd(1, 4);
    p.add(with_deps(make_load(MemId::INP, rnd(0, 8), inp + rnd(0, 8), y, x, x + rnd(0, 3), rnd(0, 1), rnd(0, 1),
                              rnd(0, 2), rnd(0, 1)),
                    false, t > 0, false, false));
    p.add(with_deps(make_load(MemId::WGT, rnd(0, 4), wgt + rnd(0, 4), 1, rnd(1, 8), 8), false, false, false, true));
    std::vector<isa::Insn> compute;
    if (rnd(0, 2) == 0) compute.push_back(make_load(MemId::ACC, rnd(0, 8), acc + rnd(0, 4), rnd(1, 2), rnd(1, 4), 4));
    if (rnd(0, 3) == 0) compute.push_back(make_load(MemId::ACC_8BIT, rnd(0, 8), acc8 + rnd(0, 4), 1, rnd(1, 4), 4));
    const uint32_t bgn = rnd(0, n_uops - 1), end = rnd(bgn + 1, n_uops);
    compute.push_back(make_gemm(rnd(0, 3) == 0, bgn, end, rnd(1, 3), rnd(1, 3), rnd(0, 4), rnd(0, 4), rnd(0, 4),
                                rnd(0, 4), rnd(0, 2), rnd(0, 2)));
    for (uint32_t a = rnd(0, 2); a > 0; --a) {
      const auto op = static_cast<AluOp>(rnd(0, 4));
      const bool imm = rnd(0, 1) == 1;
      const int32_t v = op == AluOp::SHR ? static_cast<int32_t>(rnd(0, 6)) : static_cast<int32_t>(rnd(0, 200)) - 100;
      compute.push_back(
          make_alu(op, imm, v, bgn, end, rnd(1, 2), rnd(1, 3), rnd(0, 4), rnd(0, 4), rnd(0, 4), rnd(0, 4)));
    }
    for (size_t k = 0; k < compute.size(); ++k) {
      const bool gemm = compute[k].opcode() == isa::Opcode::GEMM;
      const bool first = k == 0, last = k + 1 == compute.size();
      p.add(with_deps(compute[k], gemm, first && t > 0, last, last));
    }
    p.add(with_deps(make_store(rnd(0, 16), out + 16 * (t % 4), rnd(1, 2), rnd(1, 4), 8), true, false, true, false));
  }
  p.add(with_deps(make_finish(), false, true, false, false));
}

/// What a program leaves: DRAM and the stats.
struct Outcome {
  std::vector<std::vector<uint8_t>> dram;  // every allocation, in address order
  RunStats stats;
};

/// Runs the program `build` makes on a new backend.
template <typename Build>
Outcome run_on(const std::string& backend, const Config& cfg, Build&& build, const BackendOptions& o = {}) {
  auto b = make_backend(backend, cfg, o);
  ProgramBuilder p(*b);
  build(p);
  p.run();
  Outcome r;
  for (const auto& [addr, a] : b->dram().allocations()) r.dram.push_back(b->dram().read(addr, a.bytes));
  r.stats = b->stats();
  return r;
}

}  // namespace vta::test
