#pragma once
// Post-training quantization by calibration: a network is built node by node
// while the integer reference runs on a calibration input, and every
// requantization shift is chosen as the node is added, so that the
// calibration activations fill the A-bit range (8 bits: the 99.9th
// percentile of the magnitudes maps onto 127; 16 bits: the largest onto
// half the range, 2^14, so that no input's values clip). The zoo and the
// float ONNX importer build through this one class.
#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/ir/graph.h"

namespace vta::compiler {

/// The weights and biases of a layer in real values (the float network's):
/// weight w * 2^w_exp, bias as is. conv_real() / dense_real() quantize them
/// to the Calibrator's weight width.
struct RealParams {
  SharedVector<int16_t> w;
  int w_exp = 0;
  std::vector<double> bias;
};

class Calibrator {
 public:
  /// Activations of act_bits (4, 8 or 16: the calibration fills
  /// [-2^(A-1), 2^(A-1) - 1]) and weights of wgt_bits (conv_real(), dense_real()).
  explicit Calibrator(std::string graph_name, int act_bits = 8, int wgt_bits = 8);

  /// The network input: its shape, scale exponent and calibration values.
  int input(const Shape& s, int exp, Tensor calibration);
  /// Conv2d with int8 weights standing for w * 2^w_exp and int32 biases at
  /// the accumulator's scale (input exp + w_exp).
  int conv(int x, std::vector<int16_t> w, std::vector<int32_t> bias, int w_exp, int64_t out_c, int64_t k, int64_t s,
           int64_t p, bool relu, int64_t groups, std::string name = "");
  int dense(int x, std::vector<int16_t> w, std::vector<int32_t> bias, int w_exp, int64_t out, bool relu,
            std::string name = "");
  /// Conv2d / Dense from real weights and biases (RealParams), quantized to
  /// wgt_bits with the exponent 1 - wgt_bits (w = clip(round(real / 2^e)));
  /// with 16-bit operands the exponent is coarsened until every calibration
  /// accumulator is below 2^30 in magnitude (int32 with a bit of headroom:
  /// the 32-bit accumulator does not wrap). The node keeps the real values
  /// (Node::real_weight, real_bias) for the float network.
  int conv_real(int x, const RealParams& p, int64_t out_c, int64_t k, int64_t s, int64_t pad, bool relu,
                int64_t groups);
  int dense_real(int x, const RealParams& p, int64_t out, bool relu);
  /// out = requantized (a << shift_a) + (b << shift_b) on the finer scale.
  int add(int a, int b, bool relu, std::string name = "");
  int max_pool(int x, int64_t k, int64_t s, int64_t p, std::string name = "");
  int avg_pool(int x, int64_t k, std::string name = "");  // k*k must be a power of two
  int global_avg_pool(int x, std::string name = "");
  int flatten(int x, std::string name = "");
  /// Host-only Reshape to `s` (the same element count, NCHW data unchanged).
  int reshape(int x, const Shape& s, std::string name = "");
  /// The final Softmax over the channels: the int8 logits pass through and
  /// softmax() (reference.h) turns them into probabilities.
  int softmax(int x, std::string name = "");

  const Node& node(int id) const { return g_.at(id); }
  int bits() const { return act_bits_; }
  const Tensor& value(int id) const { return values_.at(static_cast<size_t>(id)); }
  Graph take(int output);

 private:
  int calibrated_shift(std::vector<int64_t>& magnitudes) const;
  int finish(Node n, int w_exp);                 // calibrates a Conv2d/Dense and adds it
  int finish_real(Node n, const RealParams& p);  // quantizes its weights, then as finish()
  int push(Node n);                              // runs the node on the calibration values
  int push(Node n, Tensor out);                  // adds it with its value already computed
  std::string name_for(std::string name, const char* prefix, int& counter);

  Graph g_;
  int act_bits_ = 8;
  std::vector<Tensor> values_;
  int convs_ = 0, dense_ = 0, adds_ = 0, pools_ = 0;
};

}  // namespace vta::compiler
