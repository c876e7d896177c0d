#pragma once
// The built-in model zoo: networks built in C++ with deterministic seeded
// weights and int32 biases, quantized post-training on a seeded input (each
// requantization shift is chosen so that the calibration activations fill
// the A-bit range). Same name, seed and widths, same network, bit for bit.
//
// Each weight is drawn as an int8 q (the seeded stream of the 8-bit zoo) and
// 8 low bits r in [-127, 127] from a second seeded stream: the real weight is
// (256 q + r) * 2^-15, which the float network uses. At W = 8 bits it rounds
// to q * 2^-7 (the 8-bit zoo's weights, bit for bit), at 16 it is kept, at 4
// it rounds to 2^-3 steps (clip [-8, 7]). Biases are drawn at the 8-bit
// network's accumulator scale; at other widths they are that real value at
// the layer's own scale, so every width compares with one float network.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

struct ZooOptions {
  uint32_t seed = 1;
  int64_t batch = 1;
  int64_t image = 0;  // input height/width; 0: the network's standard size
  int act_bits = 8;   // activation width A (dtype.inp_bits = dtype.out_bits): 4, 8 or 16
  int wgt_bits = 8;   // weight width W (dtype.wgt_bits): 4, 8 or 16
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
/// The seeded input the network was calibrated on: int8 values at A = 8
/// bits, shifted left (A = 16) or rounded right (A = 4) to the input node's
/// width, the same real values (q * 2^(1 - A)).
Tensor zoo_input(const Graph& g, uint32_t seed);

}  // namespace vta::compiler
