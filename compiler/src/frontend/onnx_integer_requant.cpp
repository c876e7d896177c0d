// The export's integer requantization of a ConvInteger / MatMulInteger sum
// (integer_requant() in onnx.h), read back into the plain shift form. See
// onnx_integer.h; tests/test_onnx.cpp (round trips) and
// tests/test_onnx_op_errors.cpp (OnnxIntegerRequantErrors) test it.
#include <fmt/ranges.h>

#include <bit>
#include <cmath>

#include "frontend/onnx_integer.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

constexpr const char* kSteps[] = {"Add", "Clip", "Div", "Sub", "DequantizeLinear", "QuantizeLinear"};

class Step {
 public:
  Step(const onnx::NodeProto& n, IntegerImport& ctx) : n_(n), r_(ctx.reader), ctx_(ctx) {}

  // The first step: Add of the sum and the int32 bias + offset, one per
  // output channel ([O, 1, 1] after a ConvInteger, [O] after a MatMulInteger).
  void start(int id) {
    Node& nd = ctx_.graph.nodes[static_cast<size_t>(id)];
    if (n_.input_size() != 2 || n_.output_size() != 1) r_.bad(n_, "needs two inputs and one output");
    if (nd.x_zp != 0 || nd.w_zp != 0 || nd.weight_sets != 1)
      r_.bad(n_, fmt::format("'{}' has zero points other than 128 (uint8) or 0 (int8), or a batched B; the integer "
                             "requantization reads the symmetric form only",
                             n_.input(0)));
    single_use();
    const onnx::TensorProto& b = r_.initializer(n_, 1);
    if (b.data_type() != onnx::TensorProto::INT32) r_.bad(n_, fmt::format("'{}' must be int32", b.name()));
    std::vector<int64_t> dims(b.dims().begin(), b.dims().end());
    while (!dims.empty() && dims.front() == 1 && dims.size() > (nd.op == Op::Conv2d ? 3u : 1u))
      dims.erase(dims.begin());
    const std::vector<int64_t> want =
        nd.op == Op::Conv2d ? std::vector<int64_t>{nd.out.c, 1, 1} : std::vector<int64_t>{nd.out.c};
    if (dims != want)
      r_.bad(n_, fmt::format("'{}' must hold one value per output channel ({} values, dims [{}])", b.name(), nd.out.c,
                             fmt::join(want, ", ")));
    Int32Chain c;
    c.node = id;
    c.step = 1;
    c.bias = r_.int_values(b, n_);
    ctx_.tensors.erase(n_.input(0));  // the int32 sum is read by this chain only
    ctx_.chains[n_.output(0)] = std::move(c);
  }

  void next(Int32Chain c) {
    const std::string& op = n_.op_type();
    if (c.step > 5 || op != kSteps[c.step])
      r_.bad(n_, fmt::format("'{}' is an int32 step of the integer requantization of '{}': {} must come next",
                             n_.input(0), ctx_.graph.at(c.node).name, kSteps[std::min(c.step, 5)]));
    if (n_.output_size() != 1) r_.bad(n_, "needs one output");
    single_use();
    if (op == "Clip") {
      if (n_.input_size() != 3) r_.bad(n_, "needs the minimum and the maximum");
      if (scalar(1) != 0) r_.bad(n_, "the minimum must be 0 (the dividend of Div is non-negative)");
      c.hi = scalar(2);
    } else if (op == "Div") {
      c.div = scalar(1);
    } else if (op == "Sub") {
      c.k = scalar(1);
    } else if (op == "DequantizeLinear") {
      c.exp = pow2_scale();
      if (n_.input_size() > 2 && !n_.input(2).empty() && scalar(2) != 0) r_.bad(n_, "the zero point must be 0");
    } else {  // QuantizeLinear: the end
      if (pow2_scale() != c.exp) r_.bad(n_, "the scale differs from the DequantizeLinear's before it");
      if (n_.input_size() < 3 || n_.input(2).empty()) r_.bad(n_, "needs an int8 zero point of 0");
      const onnx::TensorProto& z = r_.initializer(n_, 2);
      if (z.data_type() != onnx::TensorProto::INT8 || r_.int_values(z, n_) != std::vector<int64_t>{0})
        r_.bad(n_, fmt::format("zero point '{}' must be int8 0", z.name()));
      finish(c);
      return;
    }
    ++c.step;
    ctx_.chains[n_.output(0)] = std::move(c);
  }

 private:
  void single_use() const {
    auto u = ctx_.uses.find(n_.input(0));
    const int count = u == ctx_.uses.end() ? 0 : u->second;
    if (count != 1)
      r_.bad(n_, fmt::format("the int32 tensor '{}' has {} uses; the integer requantization must be its only one",
                             n_.input(0), count));
  }

  int64_t scalar(int k) const {
    const onnx::TensorProto& t = r_.initializer(n_, k);
    if (t.data_type() != onnx::TensorProto::INT32) r_.bad(n_, fmt::format("'{}' must be an int32 scalar", t.name()));
    const std::vector<int64_t> v = r_.int_values(t, n_);
    if (v.size() != 1) r_.bad(n_, fmt::format("'{}' must be one value", t.name()));
    return v[0];
  }

  int pow2_scale() const {
    const float v = r_.float_scalar(n_, 1);
    int e = 0;
    if (!(v > 0) || std::frexp(v, &e) != 0.5f) r_.bad(n_, fmt::format("scale {} is not a power of two", v));
    return e - 1;
  }

  // Every constant must be integer_requant()'s for the shift Div gives and
  // the ReLU Sub gives; then the node is the plain shift form.
  void finish(const Int32Chain& c) const {
    Node& nd = ctx_.graph.nodes[static_cast<size_t>(c.node)];
    if (c.div < 1 || !std::has_single_bit(static_cast<uint64_t>(c.div)))
      r_.bad(n_, fmt::format("the divisor {} of '{}' is not a power of two", c.div, nd.name));
    const int shift = std::countr_zero(static_cast<uint64_t>(c.div));
    if (c.k != 0 && c.k != 128)
      r_.bad(n_, fmt::format("Sub of {} in '{}': 0 (after a ReLU) or 128 expected", c.k, nd.name));
    const bool relu = c.k == 0;
    const auto form = integer_requant(shift, relu);
    if (!form)
      r_.bad(n_, fmt::format("the shift {} of '{}' has no integer form (Clip's maximum leaves int32)", shift, nd.name));
    if (c.hi != form->hi)
      r_.bad(n_, fmt::format("Clip's maximum {} in '{}' is not {} ((128 + {}) * {} - 1)", c.hi, nd.name, form->hi, c.k,
                             c.div));
    std::vector<int32_t> bias;
    for (int64_t b : c.bias) {
      const int64_t v = b - form->offset;
      if (v < INT32_MIN)
        r_.bad(n_, fmt::format("the bias of '{}' less the offset {} leaves int32", nd.name, form->offset));
      bias.push_back(static_cast<int32_t>(v));
    }
    Node out = nd;
    out.bias = std::move(bias);
    out.shift = shift;
    out.relu = relu;
    out.exp = c.exp;
    out.int32_out = false;
    out.round_even = false;
    out.name = n_.output(0);
    if (acc_bound(out) + form->offset > INT32_MAX)
      r_.bad(n_, fmt::format("the accumulator of '{}' (up to {}) plus the offset {} can overflow int32", out.name,
                             acc_bound(out), form->offset));
    nd = std::move(out);
    ctx_.tensors[n_.output(0)] = c.node;
  }

  const onnx::NodeProto& n_;
  const OnnxReader& r_;
  IntegerImport& ctx_;
};

}  // namespace

bool import_integer_requant(const onnx::NodeProto& n, IntegerImport& ctx) {
  if (n.input_size() < 1) return false;
  if (auto c = ctx.chains.find(n.input(0)); c != ctx.chains.end()) {
    Int32Chain state = c->second;
    ctx.chains.erase(c);
    Step(n, ctx).next(std::move(state));
    return true;
  }
  auto q = ctx.tensors.find(n.input(0));
  if (n.op_type() != "Add" || q == ctx.tensors.end() || !ctx.graph.at(q->second).int32_out) return false;
  Step(n, ctx).start(q->second);
  return true;
}

}  // namespace vta::compiler
