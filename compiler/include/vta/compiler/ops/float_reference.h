#pragma once
// The float network: a graph's operators in real (double) arithmetic, with
// the same weights and biases standing for the real values they quantize
// (w * 2^w_exp, bias * 2^acc_exp) but no rounding, clipping or
// requantization of activations. Against it, accuracy.h measures what the
// integer network's quantization of activations costs. Defined for graphs
// whose scales are powers of two without zero points (the zoo, float ONNX
// models quantized by the Calibrator); float_form_problem() names the first
// node of any other graph.
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

struct RealTensor {
  Shape shape;
  std::vector<double> data;
};

/// "" when every node of `g` has a float form here; else "node NAME (OP):
/// why" for the first that has none.
std::string float_form_problem(const Graph& g);

/// The real values of an int8 graph value standing for q * 2^exp (or (q -
/// zp) * scale); Softmax nodes: the probabilities of reference.h softmax().
RealTensor dequantize(const Node& n, const Tensor& t, const Node& producer);

/// Runs the float network on the real input `x` (the Input node's values);
/// returns every node's real output (index = node id). Throws vta::Error
/// naming the node when float_form_problem(g) is not "".
std::vector<RealTensor> run_float(const Graph& g, const RealTensor& x);

}  // namespace vta::compiler
