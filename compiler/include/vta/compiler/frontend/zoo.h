#pragma once
// The built-in model zoo: networks built in C++ with deterministic seeded
// int8 weights and int32 biases, quantized post-training on a seeded input
// (each requantization shift is chosen so that the calibration activations
// fill the int8 range). Same name and seed, same network, bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

struct ZooOptions {
  uint32_t seed = 1;
  int64_t batch = 1;
  int64_t image = 0;  // input height/width; 0: the network's standard size
};

/// Limits on ZooOptions, checked before anything is allocated: the
/// calibration keeps every layer's activations (int8 and int32), which grow
/// with batch x image^2, so the input may hold at most kMaxZooPixels pixels
/// (83 images of 224 x 224, or one of 2048 x 2048: about 2 GB for ResNet-18).
inline constexpr int64_t kMaxZooBatch = 1024;
inline constexpr int64_t kMaxZooImage = 2048;
inline constexpr int64_t kMaxZooPixels = int64_t{1} << 22;

/// lenet5, resnet18, resnet34, resnet50, vgg16, mobilenet_v1, and the
/// single-layer microbenchmarks "conv:C,H,W,O,K,S,P", "dwconv:C,H,W,K,S,P"
/// (depthwise), "dense:I,O",
/// "maxpool:C,H,W,K,S,P" (after a 1x1 ReLU conv) and "avgpool:C,H,W,K".
/// Throws vta::Error naming --batch / --image and the limit when `opts` is
/// over the limits above.
Graph build_zoo(const std::string& name, const ZooOptions& opts = {});
std::vector<std::string> zoo_names();
/// The seeded int8 input the network was calibrated on.
Tensor zoo_input(const Graph& g, uint32_t seed);

}  // namespace vta::compiler
