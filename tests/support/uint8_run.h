#pragma once
// Runs a compiled network of an asymmetric (uint8) ONNX model on a seeded
// input and holds every backend to the integer reference.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "vta/compiler/ops/reference.h"
#include "vta/compiler/run/runtime.h"
#include "vta/isa/config.h"
#include "vta/model/backend.h"

namespace vta::test {

/// Runs `net` (compiled from `g`) on golden and, with `with_systemc`, on
/// SystemC, with a seeded input of uint8 values held as int8 (value - 128),
/// and expects the integer reference's output (not saturated) on each;
/// returns how many output values each backend compared.
inline size_t expect_bit_exact_on_uint8_input(const compiler::Graph& g, const compiler::CompiledNetwork& net,
                                              const Config& cfg, const std::string& label, bool with_systemc) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> u8(0, 255);
  compiler::Tensor in{g.at(0).out, {}};
  for (int64_t i = 0; i < in.shape.size(); ++i) in.data.push_back(static_cast<int8_t>(u8(rng) - 128));
  const compiler::Tensor ref = compiler::run_graph(g, in)[static_cast<size_t>(g.output)];
  const std::set<int> values(ref.data.begin(), ref.data.end());
  EXPECT_GT(values.size(), 3u) << label << ": the logits should not be saturated";
  for (const std::string be : {"golden", "systemc"}) {
    if (be == "systemc" && !with_systemc) continue;
    auto backend = make_backend(be, cfg);
    EXPECT_EQ(compiler::run_network(net, *backend, in).output.data, ref.data) << label << " on " << be;
  }
  return ref.data.size();
}

}  // namespace vta::test
