#pragma once
// Helpers of the RTL backends' tests (test_verilator, test_cosim): a seeded
// random valid program on a ProgramBuilder, and what a program leaves on a
// backend.
#include "vta/model/image_builder.h"
#include "vta/model/random_program.h"

#include "test_support.h"

namespace vta::test {

/// The one random program generator (vta/model/random_program.h), laid out
/// after what p's backend already holds.
inline void random_program(ProgramBuilder& p, const Config& c, uint32_t seed) {
  RandomProgramOptions o;
  o.first_addr = build::next_alloc(p.backend().dram());
  p.add_image(::vta::random_program(c, seed, o));
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
