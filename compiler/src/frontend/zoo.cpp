// Zoo networks, built node by node while the reference executor runs on a
// seeded input so that every requantization shift is calibrated as it is added.
#include "vta/compiler/frontend/zoo.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>

#include "vta/compiler/frontend/calibrate.h"
#include "vta/compiler/ir/shape_check.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

// The zoo's builder: seeded random weights (int8 q and low bits r, the real
// weight (256 q + r) * 2^-15: zoo.h) and int32 biases, named layers,
// calibrated by the Calibrator at the widths of ZooOptions. At widths other
// than 8/8 a second Calibrator builds the 8-bit network beside it, whose
// accumulator scales give the biases their real values (zoo.h).
class Builder {
 public:
  Builder(std::string name, uint32_t seed, const ZooOptions& o = {})
      : name_(name), cal_(name, o.act_bits, o.wgt_bits), rng_(seed), low_(seed ^ 0x6c6f7721u) {
    if (o.act_bits != 8 || o.wgt_bits != 8) base_.emplace(std::move(name));
  }

  int input(Shape s) {
    if (const std::string p = dims_problem({s.n, s.c, s.h, s.w}); !p.empty())
      fail("zoo model '{}': input {}x{}x{}x{} {}", name_, s.n, s.c, s.h, s.w, p);
    const uint32_t seed = rng_();
    for (Calibrator* c : calibrators()) {
      const int bits = c == &cal_ ? cal_.bits() : 8;
      Graph probe;
      Node in;
      in.out = s;
      in.bits = bits;
      probe.nodes.push_back(in);
      c->input(s, 1 - bits, zoo_input(probe, seed));
    }
    return 0;
  }
  int conv(int x, int64_t oc, int64_t k, int64_t s, int64_t p, bool relu, int64_t groups = 1) {
    const Shape in = cal_.node(x).out;
    check_weights({oc, in.c / groups, k, k});
    const RealParams r = real(x, static_cast<size_t>(oc * (in.c / groups) * k * k), static_cast<size_t>(oc));
    if (base_) base_->conv_real(x, r, oc, k, s, p, relu, groups);
    return cal_.conv_real(x, r, oc, k, s, p, relu, groups);
  }
  int dense(int x, int64_t out, bool relu) {
    const Shape in = cal_.node(x).out;
    check_weights({out, in.c, in.h, in.w});
    const RealParams r = real(x, static_cast<size_t>(out * in.c * in.h * in.w), static_cast<size_t>(out));
    if (base_) base_->dense_real(x, r, out, relu);
    return cal_.dense_real(x, r, out, relu);
  }
  int add(int a, int b, bool relu) {
    return each([&](Calibrator& c) { return c.add(a, b, relu); });
  }
  int max_pool(int x, int64_t k, int64_t s, int64_t p) {
    return each([&](Calibrator& c) { return c.max_pool(x, k, s, p); });
  }
  int avg_pool(int x, int64_t k) {
    return each([&](Calibrator& c) { return c.avg_pool(x, k); });
  }
  int global_avg_pool(int x) {
    return each([&](Calibrator& c) { return c.global_avg_pool(x); });
  }
  int flatten(int x) {
    return each([&](Calibrator& c) { return c.flatten(x); });
  }
  Graph take(int output) { return cal_.take(output); }

 private:
  std::vector<Calibrator*> calibrators() {
    std::vector<Calibrator*> v{&cal_};
    if (base_) v.push_back(&*base_);
    return v;
  }
  template <class F>
  int each(F f) {
    if (base_) f(*base_);
    return f(cal_);
  }
  // Before the weights are allocated: a layer of 10^11 weights is an error, not std::bad_alloc.
  void check_weights(const std::vector<int64_t>& dims) const {
    if (const std::string p = dims_problem(dims); !p.empty()) fail("zoo model '{}': weights {}", name_, p);
  }
  // The real weights and biases of a layer reading node x: the biases from
  // the main stream at the 8-bit network's accumulator scale, then q from
  // the main stream (the 8-bit zoo's draws, in its order), r from the second.
  RealParams real(int x, size_t weights, size_t outputs) {
    RealParams r;
    const double acc_scale = std::ldexp(1.0, (base_ ? base_->node(x) : cal_.node(x)).exp - 7);
    std::uniform_int_distribution<int> b(-512, 512);
    r.bias.resize(outputs);
    for (auto& v : r.bias) v = b(rng_) * acc_scale;
    std::uniform_int_distribution<int> d(-127, 127);
    std::vector<int16_t> w(weights);
    for (auto& v : w) v = static_cast<int16_t>(d(rng_) * 256);
    for (auto& v : w) v = static_cast<int16_t>(v + d(low_));
    r.w = std::move(w);
    r.w_exp = -15;
    return r;
  }

  std::string name_;
  Calibrator cal_;
  std::optional<Calibrator> base_;  // the 8-bit network, at other widths
  std::mt19937 rng_, low_;
};

Graph lenet5(const ZooOptions& o) {
  Builder b("lenet5", o.seed, o);
  const int64_t img = o.image ? o.image : 32;
  int x = b.input({o.batch, 1, img, img});
  x = b.conv(x, 6, 5, 1, 0, true);
  x = b.avg_pool(x, 2);
  x = b.conv(x, 16, 5, 1, 0, true);
  x = b.avg_pool(x, 2);
  x = b.flatten(x);
  x = b.dense(x, 120, true);
  x = b.dense(x, 84, true);
  return b.take(b.dense(x, 10, false));
}

Graph resnet(const std::string& name, const std::vector<int>& blocks, bool bottleneck, const ZooOptions& o) {
  Builder b(name, o.seed, o);
  const int64_t img = o.image ? o.image : 224;
  int x = b.input({o.batch, 3, img, img});
  x = b.conv(x, 64, 7, 2, 3, true);
  x = b.max_pool(x, 3, 2, 1);
  int64_t channels = 64;
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t width = 64 << stage;
    for (int i = 0; i < blocks[stage]; ++i) {
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      const int64_t out_c = bottleneck ? width * 4 : width;
      int shortcut = x;
      if (stride != 1 || channels != out_c) shortcut = b.conv(x, out_c, 1, stride, 0, false);
      int y = x;
      if (bottleneck) {
        y = b.conv(y, width, 1, 1, 0, true);
        y = b.conv(y, width, 3, stride, 1, true);
        y = b.conv(y, out_c, 1, 1, 0, false);
      } else {
        y = b.conv(y, width, 3, stride, 1, true);
        y = b.conv(y, width, 3, 1, 1, false);
      }
      x = b.add(y, shortcut, true);
      channels = out_c;
    }
  }
  x = b.global_avg_pool(x);
  x = b.flatten(x);
  return b.take(b.dense(x, 1000, false));
}

Graph vgg16(const ZooOptions& o) {
  Builder b("vgg16", o.seed, o);
  const int64_t img = o.image ? o.image : 224;
  int x = b.input({o.batch, 3, img, img});
  const int64_t cfg[5][2] = {{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}};
  for (const auto& stage : cfg) {
    for (int64_t i = 0; i < stage[1]; ++i) x = b.conv(x, stage[0], 3, 1, 1, true);
    x = b.max_pool(x, 2, 2, 0);
  }
  x = b.flatten(x);
  x = b.dense(x, 4096, true);
  x = b.dense(x, 4096, true);
  return b.take(b.dense(x, 1000, false));
}

Graph mobilenet_v1(const ZooOptions& o) {
  Builder b("mobilenet_v1", o.seed, o);
  const int64_t img = o.image ? o.image : 224;
  int x = b.input({o.batch, 3, img, img});
  x = b.conv(x, 32, 3, 2, 1, true);
  const int64_t blocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},  {512, 2}, {512, 1},
                                 {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  int64_t channels = 32;
  for (const auto& blk : blocks) {
    x = b.conv(x, channels, 3, blk[1], 1, true, channels);  // depthwise
    x = b.conv(x, blk[0], 1, 1, 0, true);                   // pointwise
    channels = blk[0];
  }
  x = b.global_avg_pool(x);
  x = b.flatten(x);
  return b.take(b.dense(x, 1000, false));
}

std::vector<int64_t> parse_ints(const std::string& spec, size_t count, const std::string& name) {
  std::vector<int64_t> v;
  std::stringstream ss(spec);
  for (std::string t; std::getline(ss, t, ',');) {
    try {
      size_t pos = 0;
      v.push_back(std::stoll(t, &pos));
      if (pos != t.size() || v.back() < 0) throw std::invalid_argument(t);
    } catch (...) {
      fail("zoo model '{}': '{}' is not a non-negative integer", name, t);
    }
  }
  if (v.size() != count) fail("zoo model '{}': expected {} comma-separated numbers", name, count);
  return v;
}

}  // namespace

std::vector<std::string> zoo_names() {
  return {"lenet5",         "resnet18",           "resnet34",           "resnet50",  "vgg16",
          "mobilenet_v1",   "conv:C,H,W,O,K,S,P", "dwconv:C,H,W,K,S,P", "dense:I,O", "maxpool:C,H,W,K,S,P",
          "avgpool:C,H,W,K"};
}

Tensor zoo_input(const Graph& g, uint32_t seed) {
  const Shape s = g.at(0).out;
  std::mt19937 rng(seed);
  if (g.at(0).real) {  // a float ONNX input (quantized by a host Quantize node): uniform in [-1, 1]
    std::uniform_real_distribution<float> f(-1.0f, 1.0f);
    Tensor t{s, {}, {}, std::vector<float>(static_cast<size_t>(s.size()))};
    for (auto& x : t.real) x = f(rng);
    return t;
  }
  std::uniform_int_distribution<int> d(-128, 127);
  const int bits = g.at(0).bits;  // int8 values at A bits: shifted left, or rounded (half up) and clipped
  Tensor t{s, std::vector<int16_t>(static_cast<size_t>(s.size()))};
  for (auto& x : t.data) {
    const int v = d(rng);
    x = static_cast<int16_t>(bits >= 8 ? v * (1 << (bits - 8))
                                       : std::min((v + (1 << (7 - bits))) >> (8 - bits), elem_max(bits)));
  }
  return t;
}

Graph build_zoo(const std::string& name, const ZooOptions& o) {
  if (o.batch < 1) fail("zoo: batch must be at least 1");
  if (o.batch > kMaxZooBatch) fail("--batch {} is over the limit of {}", o.batch, kMaxZooBatch);
  if (o.image < 0 || o.image > kMaxZooImage)
    fail("--image {} is outside 0 (the network's standard size) .. {}", o.image, kMaxZooImage);
  // The smallest input a whole network takes: its total stride (every
  // stride-2 conv and pool halves the image; below it the deeper layers
  // compute on padding alone and a run measures nothing); LeNet-5's two
  // unpadded 5x5 convs and 2x2 pools need 16.
  const bool whole =
      name == "resnet18" || name == "resnet34" || name == "resnet50" || name == "vgg16" || name == "mobilenet_v1";
  const int64_t min_image = name == "lenet5" ? 16 : whole ? 32 : 0;
  if (o.image != 0 && o.image < min_image)
    fail("--image {} is below {}'s minimum of {} (0: the network's standard size)", o.image, name, min_image);
  // The whole networks' input size (the microbenchmarks' is in their name and
  // bounded per tensor by the calibrator).
  const int64_t img = o.image ? o.image : name == "lenet5" ? 32 : name.find(':') == std::string::npos ? 224 : 0;
  if (img > 0 && o.batch * img * img > kMaxZooPixels)
    fail(
        "--batch {} x --image {} is {} input pixels ({} x {}^2), over the limit of {}: the calibration keeps every "
        "layer's activations",
        o.batch, o.image, o.batch * img * img, o.batch, img, kMaxZooPixels);
  if (name == "lenet5") return lenet5(o);
  if (name == "resnet18") return resnet("resnet18", {2, 2, 2, 2}, false, o);
  if (name == "resnet34") return resnet("resnet34", {3, 4, 6, 3}, false, o);
  if (name == "resnet50") return resnet("resnet50", {3, 4, 6, 3}, true, o);
  if (name == "vgg16") return vgg16(o);
  if (name == "mobilenet_v1") return mobilenet_v1(o);
  if (name.rfind("conv:", 0) == 0) {
    auto v = parse_ints(name.substr(5), 7, name);
    Builder b(name, o.seed, o);
    int x = b.input({o.batch, v[0], v[1], v[2]});
    for (int i = 0; i < 6; ++i)
      if (v[static_cast<size_t>(i)] == 0) fail("zoo model '{}': C, H, W, O, K and S must be positive", name);
    if (v[4] > v[1] + 2 * v[6] || v[4] > v[2] + 2 * v[6])
      fail("zoo model '{}': kernel larger than the padded input", name);
    return b.take(b.conv(x, v[3], v[4], v[5], v[6], true));
  }
  if (name.rfind("dwconv:", 0) == 0) {
    auto v = parse_ints(name.substr(7), 6, name);
    for (size_t i = 0; i < 5; ++i)
      if (v[i] == 0) fail("zoo model '{}': C, H, W, K and S must be positive", name);
    if (v[3] > v[1] + 2 * v[5] || v[3] > v[2] + 2 * v[5])
      fail("zoo model '{}': kernel larger than the padded input", name);
    Builder b(name, o.seed, o);
    int x = b.input({o.batch, v[0], v[1], v[2]});
    return b.take(b.conv(x, v[0], v[3], v[4], v[5], true, v[0]));
  }
  if (name.rfind("maxpool:", 0) == 0 || name.rfind("avgpool:", 0) == 0) {
    const bool max = name[0] == 'm';
    auto v = parse_ints(name.substr(8), max ? 6 : 4, name);
    for (size_t i = 0; i < (max ? 5u : 4u); ++i)
      if (v[i] == 0) fail("zoo model '{}': C, H, W, K{} must be positive", name, max ? " and S" : "");
    Builder b(name, o.seed, o);
    int x = b.input({o.batch, v[0], v[1], v[2]});
    if (max) {
      if (v[3] > v[1] + 2 * v[5] || v[3] > v[2] + 2 * v[5] || v[5] >= v[3]) fail("zoo model '{}': bad window", name);
      // A ReLU conv first, so that padded windows may run on VTA (see partition.cpp).
      x = b.conv(x, v[0], 1, 1, 0, true);
      return b.take(b.max_pool(x, v[3], v[4], v[5]));
    }
    if (v[3] > v[1] || v[3] > v[2] || !std::has_single_bit(static_cast<uint64_t>(v[3] * v[3])))
      fail("zoo model '{}': the window must fit and its area be a power of two", name);
    return b.take(b.avg_pool(x, v[3]));
  }
  if (name.rfind("dense:", 0) == 0) {
    auto v = parse_ints(name.substr(6), 2, name);
    if (v[0] == 0 || v[1] == 0) fail("zoo model '{}': I and O must be positive", name);
    Builder b(name, o.seed, o);
    int x = b.input({o.batch, v[0], 1, 1});
    return b.take(b.dense(x, v[1], false));
  }
  std::string known;
  for (const auto& z : zoo_names()) known += (known.empty() ? "" : ", ") + z;
  fail("unknown zoo model '{}' (known: {})", name, known);
}

}  // namespace vta::compiler
