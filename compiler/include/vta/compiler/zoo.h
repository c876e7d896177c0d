#pragma once
// The built-in model zoo: networks built in C++ with deterministic seeded
// int8 weights and int32 biases, quantized post-training on a seeded input
// (each requantization shift is chosen so that the calibration activations
// fill the int8 range). Same name and seed, same network, bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/graph.h"

namespace vta::compiler {

struct ZooOptions {
  uint32_t seed = 1;
  int64_t batch = 1;
  int64_t image = 0;  // input height/width; 0: the network's standard size
};

/// lenet5, resnet18, resnet34, resnet50, vgg16, mobilenet_v1, and the
/// single-layer microbenchmarks "conv:C,H,W,O,K,S,P", "dwconv:C,H,W,K,S,P"
/// (depthwise), "dense:I,O",
/// "maxpool:C,H,W,K,S,P" (after a 1x1 ReLU conv) and "avgpool:C,H,W,K".
Graph build_zoo(const std::string& name, const ZooOptions& opts = {});
std::vector<std::string> zoo_names();
/// The seeded int8 input the network was calibrated on.
Tensor zoo_input(const Graph& g, uint32_t seed);

}  // namespace vta::compiler
