#include "vta/compiler/frontend/calibrate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "vta/compiler/ir/graph.h"
#include "vta/compiler/ir/shape_check.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {
// 8-bit activations: the rounding constant 2^(shift-1) fits the ALU's 16-bit
// immediate; wider ones may shift further (requant.h: a plain SHR first).
int max_shift(int act_bits) { return act_bits > 8 ? 30 : 15; }

// A 16-bit product's accumulators are kept below this (calibration_accs()).
constexpr int64_t kAccLimit = int64_t{1} << 30;
}  // namespace

Calibrator::Calibrator(std::string graph_name, int act_bits, int wgt_bits) : act_bits_(act_bits) {
  if ((act_bits != 4 && act_bits != 8 && act_bits != 16) || (wgt_bits != 4 && wgt_bits != 8 && wgt_bits != 16))
    fail("{}: activations of {} bits and weights of {} bits: give 4, 8 or 16", graph_name, act_bits, wgt_bits);
  g_.name = std::move(graph_name);
  g_.wgt_bits = wgt_bits;
}

std::string Calibrator::name_for(std::string name, const char* prefix, int& counter) {
  ++counter;
  return name.empty() ? fmt::format("{}{}", prefix, counter) : name;
}

int Calibrator::input(const Shape& s, int exp, Tensor calibration) {
  if (!(calibration.shape == s)) fail("calibration input of {} does not have the input's shape", g_.name);
  Node n;
  n.name = "input";
  n.op = Op::Input;
  n.out = s;
  n.exp = exp;
  n.bits = act_bits_;
  const int id = g_.add(n);
  values_.push_back(std::move(calibration));
  return id;
}

int Calibrator::conv(int x, std::vector<int16_t> w, std::vector<int32_t> bias, int w_exp, int64_t out_c, int64_t k,
                     int64_t s, int64_t p, bool relu, int64_t groups, std::string name) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name_for(std::move(name), "conv", convs_);
  n.op = Op::Conv2d;
  n.inputs = {x};
  n.kernel = k, n.stride = s, n.pad = p, n.groups = groups;
  n.out = Shape{in.n, out_c, (in.h + 2 * p - k) / s + 1, (in.w + 2 * p - k) / s + 1};
  if (w.size() != static_cast<size_t>(out_c * (in.c / groups) * k * k) || bias.size() != static_cast<size_t>(out_c))
    fail("{}: weight or bias size does not match the layer", n.name);
  n.weight = std::move(w);
  n.bias = std::move(bias);
  n.relu = relu;
  return finish(std::move(n), w_exp);
}

int Calibrator::dense(int x, std::vector<int16_t> w, std::vector<int32_t> bias, int w_exp, int64_t out, bool relu,
                      std::string name) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name_for(std::move(name), "fc", dense_);
  n.op = Op::Dense;
  n.inputs = {x};
  n.out = Shape{in.n, out, 1, 1};
  if (w.size() != static_cast<size_t>(out * in.c * in.h * in.w) || bias.size() != static_cast<size_t>(out))
    fail("{}: weight or bias size does not match the layer", n.name);
  n.weight = std::move(w);
  n.bias = std::move(bias);
  n.relu = relu;
  return finish(std::move(n), w_exp);
}

int Calibrator::add(int a, int b, bool relu, std::string name) {
  Node n;
  n.name = name_for(std::move(name), "add", adds_);
  n.op = Op::Add;
  n.inputs = {a, b};
  n.out = g_.at(a).out;
  if (!(n.out == g_.at(b).out)) fail("{}: add of different shapes", n.name);
  const int base = std::min(g_.at(a).exp, g_.at(b).exp);
  n.shift_a = g_.at(a).exp - base;
  n.shift_b = g_.at(b).exp - base;
  n.relu = relu;
  const Tensor& ta = value(a);
  const Tensor& tb = value(b);
  std::vector<int64_t> mag(ta.data.size());
  for (size_t i = 0; i < mag.size(); ++i)
    mag[i] = std::abs((int64_t{ta.data[i]} << n.shift_a) + (int64_t{tb.data[i]} << n.shift_b));
  n.shift = calibrated_shift(mag);
  n.exp = base + n.shift;
  return push(std::move(n));
}

int Calibrator::max_pool(int x, int64_t k, int64_t s, int64_t p, std::string name) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name_for(std::move(name), "maxpool", pools_);
  n.op = Op::MaxPool;
  n.inputs = {x};
  n.pool = k, n.pool_stride = s, n.pool_pad = p;
  n.out = Shape{in.n, in.c, (in.h + 2 * p - k) / s + 1, (in.w + 2 * p - k) / s + 1};
  n.exp = g_.at(x).exp;
  return push(std::move(n));
}

int Calibrator::avg_pool(int x, int64_t k, std::string name) {
  const Shape in = g_.at(x).out;
  if (!std::has_single_bit(static_cast<uint64_t>(k * k)))
    fail("{}: average pool window {}x{} is not a power of two", g_.name, k, k);
  Node n;
  n.name = name_for(std::move(name), "avgpool", pools_);
  n.op = Op::AvgPool;
  n.inputs = {x};
  n.pool = k, n.pool_stride = k;
  n.shift = std::countr_zero(static_cast<uint64_t>(k * k));
  n.out = Shape{in.n, in.c, in.h / k, in.w / k};
  n.exp = g_.at(x).exp;
  return push(std::move(n));
}

int Calibrator::global_avg_pool(int x, std::string name) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name.empty() ? "global_avg_pool" : std::move(name);
  n.op = Op::GlobalAvgPool;
  n.inputs = {x};
  n.shift = 12;
  n.mult = static_cast<int32_t>(std::lround(4096.0 / static_cast<double>(in.h * in.w)));
  n.out = Shape{in.n, in.c, 1, 1};
  n.exp = g_.at(x).exp;
  return push(std::move(n));
}

int Calibrator::flatten(int x, std::string name) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name.empty() ? "flatten" : std::move(name);
  n.op = Op::Flatten;
  n.inputs = {x};
  n.out = Shape{in.n, in.c * in.h * in.w, 1, 1};
  n.exp = g_.at(x).exp;
  return push(std::move(n));
}

int Calibrator::reshape(int x, const Shape& s, std::string name) {
  const Node& in = g_.at(x);
  if (s.size() != in.out.size()) fail("{}: reshape of {} elements to {}", name, in.out.size(), s.size());
  Node n;
  n.name = name.empty() ? "reshape" : std::move(name);
  n.op = Op::Reshape;
  n.inputs = {x};
  n.out = s;
  n.exp = in.exp;
  return push(std::move(n));
}

int Calibrator::softmax(int x, std::string name) {
  Node n;
  n.name = name.empty() ? "softmax" : std::move(name);
  n.op = Op::Softmax;
  n.inputs = {x};
  n.out = g_.at(x).out;
  n.exp = g_.at(x).exp;
  return push(std::move(n));
}

Graph Calibrator::take(int output) {
  g_.output = output;
  return std::move(g_);
}

int Calibrator::calibrated_shift(std::vector<int64_t>& mag) const {
  // 8 bits and fewer: the 99.9th percentile of the magnitudes onto the top
  // value (the rare larger ones clip; a finer step for the rest). 16 bits
  // have steps to spare: the largest magnitude onto half the range, so that
  // other inputs' values clip neither.
  const bool wide = act_bits_ > 8;
  const size_t at =
      wide ? mag.size() - 1 : std::min(mag.size() - 1, static_cast<size_t>(static_cast<double>(mag.size()) * 0.999));
  std::nth_element(mag.begin(), mag.begin() + static_cast<long>(at), mag.end());
  const int64_t top = wide ? elem_max(act_bits_ - 1) : elem_max(act_bits_);
  int shift = 0;
  while (shift < max_shift(act_bits_) && (mag[at] >> shift) > top) ++shift;
  return shift;
}

int Calibrator::conv_real(int x, const RealParams& p, int64_t out_c, int64_t k, int64_t s, int64_t pad, bool relu,
                          int64_t groups) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name_for("", "conv", convs_);
  n.op = Op::Conv2d;
  n.inputs = {x};
  n.kernel = k, n.stride = s, n.pad = pad, n.groups = groups;
  n.out = Shape{in.n, out_c, (in.h + 2 * pad - k) / s + 1, (in.w + 2 * pad - k) / s + 1};
  if (p.w.size() != static_cast<size_t>(out_c * (in.c / groups) * k * k) || p.bias.size() != static_cast<size_t>(out_c))
    fail("{}: weight or bias size does not match the layer", n.name);
  n.relu = relu;
  return finish_real(std::move(n), p);
}

int Calibrator::dense_real(int x, const RealParams& p, int64_t out, bool relu) {
  const Shape in = g_.at(x).out;
  Node n;
  n.name = name_for("", "fc", dense_);
  n.op = Op::Dense;
  n.inputs = {x};
  n.out = Shape{in.n, out, 1, 1};
  if (p.w.size() != static_cast<size_t>(out * in.c * in.h * in.w) || p.bias.size() != static_cast<size_t>(out))
    fail("{}: weight or bias size does not match the layer", n.name);
  n.relu = relu;
  return finish_real(std::move(n), p);
}

int Calibrator::finish_real(Node n, const RealParams& p) {
  check_output_shape(g_.name, n);
  const int wb = g_.wgt_bits;
  const int in_exp = g_.at(n.inputs[0]).exp;
  n.real_weight = p.w;
  n.real_w_exp = p.w_exp;
  n.real_bias = p.bias;
  // w = clip(round(real / 2^e)) half away from zero, bias = round(real / 2^(in_exp + e)).
  const auto quantize = [&](int e) {
    const int drop = e - p.w_exp;
    std::vector<int16_t> w(p.w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      const int32_t v = p.w[i];
      const int32_t m = std::abs(v), r = drop > 0 ? (m + (1 << (drop - 1))) >> drop : m << -drop;
      w[i] = static_cast<int16_t>(std::clamp(v < 0 ? -r : r, elem_min(wb), elem_max(wb)));
    }
    n.weight = std::move(w);
    n.bias.resize(p.bias.size());
    for (size_t i = 0; i < p.bias.size(); ++i)
      n.bias[i] = static_cast<int32_t>(std::clamp<double>(std::round(std::ldexp(p.bias[i], -(in_exp + e))),
                                                          std::numeric_limits<int32_t>::min(),
                                                          std::numeric_limits<int32_t>::max()));
  };
  int e = std::max(p.w_exp, 1 - wb);
  quantize(e);
  const Tensor& input = value(n.inputs[0]);
  const bool wide = wb > 8 || act_bits_ > 8;
  if (!wide) return finish(std::move(n), e);
  // 16-bit operands: the exact accumulators, and a coarser weight exponent
  // while any reaches kAccLimit (each step halves them).
  std::vector<int64_t> acc = accumulators64(n, input);
  for (;;) {
    int64_t top = 0;
    for (int64_t v : acc) top = std::max(top, v < 0 ? -v : v);
    if (top < kAccLimit) break;
    int more = 1;
    while ((top >> more) >= kAccLimit) ++more;
    quantize(e += more);
    acc = accumulators64(n, input);
  }
  std::vector<int64_t> mag(acc.size());
  std::vector<int32_t> acc32(acc.size());
  for (size_t i = 0; i < acc.size(); ++i)
    mag[i] = acc[i] < 0 ? -acc[i] : acc[i], acc32[i] = static_cast<int32_t>(acc[i]);
  n.shift = calibrated_shift(mag);
  n.exp = in_exp + e + n.shift;
  n.bits = act_bits_;
  Tensor out = requantize_all(n, std::move(acc32));
  return push(std::move(n), std::move(out));
}

int Calibrator::finish(Node n, int w_exp) {
  n.bits = act_bits_;
  check_output_shape(g_.name, n);  // before accumulators() allocates the output
  std::vector<int32_t> acc = accumulators(n, value(n.inputs[0]));
  std::vector<int64_t> mag(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) mag[i] = std::abs(static_cast<int64_t>(acc[i]));
  n.shift = calibrated_shift(mag);
  n.exp = g_.at(n.inputs[0]).exp + w_exp + n.shift;
  Tensor out = requantize_all(n, std::move(acc));  // the node's value without a second product
  return push(std::move(n), std::move(out));
}

int Calibrator::push(Node n) {
  n.bits = act_bits_;
  check_output_shape(g_.name, n);  // before run_node allocates the output
  std::vector<const Tensor*> ins;
  for (int k : n.inputs) ins.push_back(&values_[static_cast<size_t>(k)]);
  Tensor out = run_node(n, ins);
  return push(std::move(n), std::move(out));
}

int Calibrator::push(Node n, Tensor out) {
  const int id = g_.add(std::move(n));
  values_.push_back(std::move(out));
  return id;
}

}  // namespace vta::compiler
