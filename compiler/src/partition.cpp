// Partitioning between VTA and the host.
//
// On VTA: Conv2d with groups 1 (channel counts below the block size, like the
// RGB stem, are zero-padded to the block), Dense, and Add when the config has
// ACC_8BIT loads. On the host: pools, flatten, softmax, depthwise
// convolutions. Each node's device is decided from the node itself (not from
// a traversal order), so every residual block is labelled alike; copies
// between devices are the pack/unpack at segment boundaries (runtime.cpp).
#include "vta/compiler/compile.h"

namespace vta::compiler {

Graph partition(const Graph& g, const Config& c) {
  Graph out = g;
  for (auto& n : out.nodes) {
    switch (n.op) {
      case Op::Conv2d: n.device = n.groups == 1 && n.pad <= 15 ? Device::Vta : Device::Host; break;
      case Op::Dense: n.device = Device::Vta; break;
      case Op::Add: n.device = c.isa.acc_8bit ? Device::Vta : Device::Host; break;
      default: n.device = Device::Host; break;
    }
  }
  return out;
}

}  // namespace vta::compiler
