#pragma once
// ONNX models in the form ONNX Runtime's static quantizer emits by default
// (QDQ, uint8 activations with zero points, int8 symmetric weights with
// per-channel scales along axis 0, int32 biases at input scale x weight
// scale), written with the ONNX protobuf API: the structure of ResNet-18
// (7x7 stem, max pool, four stages of two basic blocks with 1x1 downsampling
// and residual adds, global average pool, fully connected) and of
// MobileNet-v1 (3x3 stem, thirteen depthwise + pointwise blocks, global
// average pool, fully connected), at reduced widths and image sizes. Scales
// are powers of two, so that ONNX Runtime's float arithmetic is exact and
// its result is a function of the integers alone (tests/test_onnx_oracle.cpp
// compares it bit for bit). Weights, biases and zero points are seeded.
#include <onnx/onnx_pb.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "onnx_builder.h"

namespace vta::test {

class AsymQdqBuilder {
 public:
  explicit AsymQdqBuilder(uint32_t seed) : rng_(seed) {}

  /// The model and the name of its uint8 input [1, 3, image, image].
  std::string resnet18(int64_t image, int64_t width, int64_t classes) {
    std::string x = input(image);
    x = conv(x, 3, width, 7, 2, 3, true);
    x = maxpool(x, 3, 2, 1);
    int64_t c = width;
    for (int stage = 0; stage < 4; ++stage) {
      const int64_t oc = width << stage;
      for (int block = 0; block < 2; ++block) {
        const int64_t s = stage > 0 && block == 0 ? 2 : 1;
        const std::string skip = s != 1 || oc != c ? conv(x, c, oc, 1, s, 0, false) : x;
        std::string y = conv(x, c, oc, 3, s, 1, true);
        y = conv(y, oc, oc, 3, 1, 1, false);
        x = add_relu(y, skip);
        c = oc;
      }
    }
    return head(x, c, classes);
  }

  std::string mobilenet_v1(int64_t image, int64_t width, int64_t classes) {
    std::string x = input(image);
    x = conv(x, 3, width, 3, 2, 1, true);
    int64_t c = width;
    // (output channels as multiples of width, stride) of the thirteen blocks
    const int mult[13] = {2, 4, 4, 8, 8, 16, 16, 16, 16, 16, 16, 32, 32};
    const int stride[13] = {1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};
    for (int b = 0; b < 13; ++b) {
      x = conv(x, c, c, 3, stride[b], 1, true, c);  // depthwise
      const int64_t oc = width * mult[b] / 2;
      x = conv(x, c, oc, 1, 1, 0, true);
      c = oc;
    }
    return head(x, c, classes);
  }

  /// One convolution whose output is the graph output, with weights in
  /// [-3, 3], no bias and a requantization shift of 2: a quarter of the
  /// outputs are ties, so that half-to-even rounding decides them.
  std::string tie_conv(int64_t image, int64_t oc, int64_t k, int64_t s, int64_t p) {
    std::string x = input(image);
    wmax_ = 3, bmax_ = 0, shift_ = 2;
    x = conv(x, 3, oc, k, s, p, false);
    const int64_t o = (image + 2 * p - k) / s + 1;
    b_.output(x, onnx::TensorProto::UINT8, {1, oc, o, o});
    return x;
  }

  /// Scales as ONNX Runtime's static quantizer computes them from
  /// calibration ranges instead of powers of two: (max - min) / 255 for
  /// uint8 activations (zero point round(-min / scale), 0 after a ReLU),
  /// max|w| / 127 per tensor for weights (its default, per_channel=False), x_scale * w_scale for
  /// biases. Set before building a net. Add and the global average pool
  /// get calibrated scales too (ONNX Runtime's QLinearAdd and
  /// QLinearGlobalAveragePool, ort_ops.h): resnet18() has its residual adds.
  void ort_scales() { ort_ = true; }
  /// ort_scales() with per_channel=True: max|w| / 127 of each output
  /// channel's float range (the multipliers then differ per channel).
  void ort_per_channel() { ort_ = ort_pc_ = true; }

  /// ResNet-18's convolutions (7x7 stem, max pool, four stages of two
  /// blocks of two 3x3 convolutions) without the residual adds and 1x1 skips.
  std::string resnet18_plain(int64_t image, int64_t width, int64_t classes) {
    std::string x = input(image);
    x = conv(x, 3, width, 7, 2, 3, true);
    x = maxpool(x, 3, 2, 1);
    int64_t c = width;
    for (int stage = 0; stage < 4; ++stage) {
      const int64_t oc = width << stage;
      for (int block = 0; block < 2; ++block) {
        const int64_t s = stage > 0 && block == 0 ? 2 : 1;
        x = conv(x, c, oc, 3, s, 1, true);
        x = conv(x, oc, oc, 3, 1, 1, true);
        c = oc;
      }
    }
    return head(x, c, classes);
  }

  OnnxBuilder& builder() { return b_; }
  /// The input's name and dims.
  const std::string& input_name() const { return in_; }
  const std::vector<int64_t>& input_dims() const { return in_dims_; }
  /// Node counts of the model: convolutions and fully connected layers.
  int convs() const { return convs_; }
  int denses() const { return denses_; }

 private:
  struct Q {  // a quantized activation: scale exponent, uint8 zero point, spatial size
    int exp;
    int zp;
    int64_t hw;
    float scale = 0;  // ort_scales(): the scale (0: 2^exp)
    float value() const { return scale != 0 ? scale : std::ldexp(1.0f, exp); }
  };

  std::string input(int64_t image) {
    in_ = "input";
    in_dims_ = {1, 3, image, image};
    b_.input(in_, onnx::TensorProto::UINT8, in_dims_);
    q_[in_] = Q{-6, 128 + pick(-20, 20), image};
    if (ort_) {  // a calibration range of about [-1, 1.5]
      const float lo = -1.0f + 0.01f * static_cast<float>(pick(-20, 20)), hi = 1.5f;
      q_[in_].scale = (hi - lo) / 255.0f;
      q_[in_].zp = static_cast<int>(std::lround(-lo / q_[in_].scale));
    }
    return in_;
  }

  std::string name(const std::string& what) { return fmt::format("{}{}", what, ++count_); }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  // DequantizeLinear of an activation.
  std::string dq(const std::string& x) {
    const Q& q = q_.at(x);
    const std::string f = x + "_dq";
    if (!dqd_.insert(f).second) return f;
    b_.scalar(f + "_s", q.value());
    b_.ints(f + "_z", onnx::TensorProto::UINT8, {}, {q.zp});
    b_.node("DequantizeLinear", {x, f + "_s", f + "_z"}, {f});
    return f;
  }

  // QuantizeLinear of the float `f` to uint8 (zero point 0 after a ReLU, as
  // the quantizer calibrates a non-negative range).
  std::string quantize(const std::string& f, int exp, bool relu, int64_t hw, float spread = 0) {
    const std::string q = name("q");
    int zp = relu ? 0 : 128 + pick(-16, 16);
    float scale = 0;
    if (ort_) {  // the calibrated range: [0, spread] after a ReLU, else about [-spread, spread]
      const float lo = relu ? 0.0f : -spread * (1.0f + 0.01f * static_cast<float>(pick(-10, 10)));
      scale = (spread - lo) / 255.0f;
      zp = static_cast<int>(std::lround(-lo / scale));
    }
    b_.scalar(q + "_s", scale != 0 ? scale : std::ldexp(1.0f, exp));
    b_.ints(q + "_z", onnx::TensorProto::UINT8, {}, {zp});
    b_.node("QuantizeLinear", {f, q + "_s", q + "_z"}, {q});
    q_[q] = Q{exp, zp, hw, scale};
    return q;
  }

  // Conv (groups 1 or depthwise) with per-channel weight scales 2^-7 or 2^-8.
  std::string conv(const std::string& x, int64_t c, int64_t oc, int64_t k, int64_t s, int64_t p, bool relu,
                   int64_t groups = 1) {
    ++convs_;
    const Q in = q_.at(x);
    const std::string n = name("conv");
    const int64_t cin = c / groups, fan = cin * k * k;
    std::vector<int64_t> w(static_cast<size_t>(oc * fan)), bias(static_cast<size_t>(oc));
    std::vector<float> ws(static_cast<size_t>(oc)), bs(static_cast<size_t>(oc));
    int wmin = 0;
    float ort_ws = 0;
    for (int64_t o = 0; o < oc; ++o) {
      const int e = -7 - pick(0, 1);
      wmin = std::min(wmin, e);
      ws[static_cast<size_t>(o)] = std::ldexp(1.0f, e);
      bs[static_cast<size_t>(o)] = std::ldexp(1.0f, e + in.exp);
      for (int64_t i = 0; i < fan; ++i) w[static_cast<size_t>(o * fan + i)] = pick(-wmax_, wmax_);
      if (ort_) {  // max|w| / 127 of a float range in [0.05, 2], per tensor (the quantizer's default per_channel=False)
        if (o == 0 || ort_pc_) ort_ws = 0.05f * static_cast<float>(pick(1, 40)) / 127.0f;
        ws[static_cast<size_t>(o)] = ort_ws;
        bs[static_cast<size_t>(o)] = in.value() * ws[static_cast<size_t>(o)];
        w[static_cast<size_t>(o * fan + static_cast<int64_t>(pick(0, static_cast<int>(fan) - 1)))] =
            pick(0, 1) ? 127 : -127;
      }
      bias[static_cast<size_t>(o)] = pick(-bmax_, bmax_);
    }
    b_.ints(n + "_w", onnx::TensorProto::INT8, {oc, cin, k, k}, w);
    b_.floats(n + "_ws", {oc}, ws);
    b_.ints(n + "_wz", onnx::TensorProto::INT8, {oc}, std::vector<int64_t>(static_cast<size_t>(oc), 0));
    auto* dw = b_.node("DequantizeLinear", {n + "_w", n + "_ws", n + "_wz"}, {n + "_wf"});
    OnnxBuilder::attr(dw, "axis", int64_t{0});
    b_.ints(n + "_b", onnx::TensorProto::INT32, {oc}, bias);
    b_.floats(n + "_bs", {oc}, bs);
    b_.ints(n + "_bz", onnx::TensorProto::INT32, {oc}, std::vector<int64_t>(static_cast<size_t>(oc), 0));
    auto* db = b_.node("DequantizeLinear", {n + "_b", n + "_bs", n + "_bz"}, {n + "_bf"});
    OnnxBuilder::attr(db, "axis", int64_t{0});
    auto* cv = b_.node("Conv", {dq(x), n + "_wf", n + "_bf"}, {n + "_f"});
    cv->set_name(n);
    OnnxBuilder::attr(cv, "kernel_shape", std::vector<int64_t>{k, k});
    OnnxBuilder::attr(cv, "strides", std::vector<int64_t>{s, s});
    OnnxBuilder::attr(cv, "pads", std::vector<int64_t>{p, p, p, p});
    OnnxBuilder::attr(cv, "group", groups);
    std::string f = n + "_f";
    if (relu) {
      b_.node("Relu", {f}, {f + "_relu"});
      f += "_relu";
    }
    // The accumulator's spread: about sqrt(fan) * 64 * 74 units of the finest
    // channel scale; the output scale puts it at about +-48.
    const int shift =
        shift_ >= 0 ? shift_
                    : static_cast<int>(std::lround(std::log2(std::sqrt(static_cast<double>(fan)) * 64 * 74 / 48)));
    // ort_scales(): about 3 standard deviations of the real output (weights uniform, inputs about +-64 units)
    float mean_ws = 0;
    for (float v : ws) mean_ws += v / static_cast<float>(oc);
    const float spread = 3.0f * in.value() * mean_ws * std::sqrt(static_cast<float>(fan)) * 64 * 74;
    return quantize(f, in.exp + wmin + shift, relu, (in.hw + 2 * p - k) / s + 1, spread);
  }

  std::string maxpool(const std::string& x, int64_t k, int64_t s, int64_t p) {
    const std::string n = name("maxpool");
    auto* mp = b_.node("MaxPool", {x}, {n});
    OnnxBuilder::attr(mp, "kernel_shape", std::vector<int64_t>{k, k});
    OnnxBuilder::attr(mp, "strides", std::vector<int64_t>{s, s});
    OnnxBuilder::attr(mp, "pads", std::vector<int64_t>{p, p, p, p});
    Q q = q_.at(x);
    q.hw = (q.hw + 2 * p - k) / s + 1;
    q_[n] = q;
    return n;
  }

  // ort_scales(): the calibrated range of the sum, about 3/4 of the sum of
  // both inputs' ranges.
  std::string add_relu(const std::string& a, const std::string& b) {
    const std::string n = name("add");
    b_.node("Add", {dq(a), dq(b)}, {n + "_f"});
    b_.node("Relu", {n + "_f"}, {n + "_relu"});
    const float spread = 0.75f * 255.0f * (q_.at(a).value() + q_.at(b).value());
    return quantize(n + "_relu", std::max(q_.at(a).exp, q_.at(b).exp) + 1, true, q_.at(a).hw, spread);
  }

  // Global average pool, Flatten, Gemm. ort_scales(): the pool's calibrated
  // range is about 3/4 of its input's.
  std::string head(const std::string& x, int64_t c, int64_t classes) {
    const std::string gap = name("gap");
    b_.node("GlobalAveragePool", {dq(x)}, {gap + "_f"});
    const std::string pooled = quantize(gap + "_f", q_.at(x).exp, false, 1, 0.75f * 127.5f * q_.at(x).value());
    const std::string flat = name("flatten");
    auto* fl = b_.node("Flatten", {pooled}, {flat});
    OnnxBuilder::attr(fl, "axis", int64_t{1});
    q_[flat] = q_.at(pooled);
    ++denses_;
    const std::string n = name("fc");
    const Q in = q_.at(flat);
    std::vector<int64_t> w(static_cast<size_t>(classes * c)), bias(static_cast<size_t>(classes));
    for (auto& v : w) v = pick(-127, 127);
    for (auto& v : bias) v = pick(-3000, 3000);
    b_.ints(n + "_w", onnx::TensorProto::INT8, {classes, c}, w);
    const float fws = ort_ ? 1.3f / 127.0f : std::ldexp(1.0f, -7);
    b_.scalar(n + "_ws", fws);
    b_.ints(n + "_wz", onnx::TensorProto::INT8, {}, {0});
    b_.node("DequantizeLinear", {n + "_w", n + "_ws", n + "_wz"}, {n + "_wf"});
    b_.ints(n + "_b", onnx::TensorProto::INT32, {classes}, bias);
    b_.scalar(n + "_bs", ort_ ? in.value() * fws : std::ldexp(1.0f, in.exp - 7));
    b_.ints(n + "_bz", onnx::TensorProto::INT32, {}, {0});
    b_.node("DequantizeLinear", {n + "_b", n + "_bs", n + "_bz"}, {n + "_bf"});
    auto* gm = b_.node("Gemm", {dq(flat), n + "_wf", n + "_bf"}, {n + "_f"});
    gm->set_name(n);
    OnnxBuilder::attr(gm, "transB", int64_t{1});
    const int shift = static_cast<int>(std::lround(std::log2(std::sqrt(static_cast<double>(c)) * 64 * 74 / 48)));
    const std::string out = quantize(n + "_f", in.exp - 7 + shift, false, 1,
                                     3.0f * in.value() * fws * std::sqrt(static_cast<float>(c)) * 64 * 74);
    b_.output(out, onnx::TensorProto::UINT8, {1, classes});
    return out;
  }

  OnnxBuilder b_;
  std::mt19937 rng_;
  std::map<std::string, Q> q_;
  std::set<std::string> dqd_;
  std::string in_;
  std::vector<int64_t> in_dims_;
  int count_ = 0, convs_ = 0, denses_ = 0;
  bool ort_ = false, ort_pc_ = false;
  int wmax_ = 127, bmax_ = 3000, shift_ = -1;  // weight and bias ranges; requantization shift (-1: from the spread)
};

}  // namespace vta::test
