// QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger -> Graph. See onnx_integer.h.
//
// uint8 tensors are held as int8 (value - 128) with their zero points moved
// alike, which leaves every (x - zero point) unchanged. ONNX requantizes
// with a float multiplier M = x_scale * w_scale / y_scale and rounds half to
// even. A power-of-two M is a shift rounding half to even (VTA, with the
// input zero point folded into the bias where nothing pads; the host where
// zero points remain); any other M is computed as ONNX Runtime does, in
// float (Node::fmult), so results are ONNX Runtime's bit for bit: on VTA
// through its exact ALU form (Node::frq, requant_float.h) where the node has
// no input or weight zero point and one exists, else on the host.
#include <bit>
#include <cmath>

#include "frontend/onnx_integer.h"
#include "vta/compiler/ops/acc_bound.h"
#include "vta/compiler/ops/requant.h"
#include "vta/compiler/ops/requant_float.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

class IntegerOp {
 public:
  IntegerOp(const onnx::NodeProto& n, IntegerImport& ctx) : n_(n), r_(ctx.reader), ctx_(ctx) {}

  void run() {
    const std::string& op = n_.op_type();
    const bool qlinear = op == "QLinearConv" || op == "QLinearMatMul";
    const bool conv = op == "QLinearConv" || op == "ConvInteger";
    if (n_.output_size() != 1) r_.bad(n_, "needs exactly one output");
    if (qlinear && n_.input_size() < 8)
      r_.bad(n_, "needs 8 inputs (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point)");
    if (!qlinear && n_.input_size() < 2) r_.bad(n_, "needs the inputs x and w");
    if (!conv) r_.only_attrs(n_, {});
    if (op == "QLinearMatMul" && n_.input_size() > 8) r_.bad(n_, "has more than 8 inputs");
    if (op == "ConvInteger" && n_.input_size() > 4) r_.bad(n_, "has more than 4 inputs");
    if (op == "MatMulInteger" && n_.input_size() > 4) r_.bad(n_, "has more than 4 inputs");

    // Input positions of x, its zero point, w and its zero point.
    const int xk = 0, xzk = 2, wk = qlinear ? 3 : 1, wzk = qlinear ? 5 : 3;
    bool x_uint8 = false;
    const int x = activation(xk, x_uint8);
    const Node& xn = ctx_.graph.at(x);
    Node out;
    out.name = n_.output(0);
    out.inputs = {x};
    out.x_zp = zero_point(xzk, x_uint8, "x_zero_point");
    const onnx::TensorProto& w = r_.initializer(n_, wk);
    const bool w_uint8 = w.data_type() == onnx::TensorProto::UINT8;
    if (!w_uint8 && w.data_type() != onnx::TensorProto::INT8)
      r_.bad(n_, fmt::format("weight '{}' must be int8 or uint8", w.name()));
    std::vector<int16_t> wv;
    for (int64_t v : r_.int_values(w, n_)) wv.push_back(static_cast<int16_t>(w_uint8 ? v - 128 : v));
    out.w_zp = zero_point(wzk, w_uint8, "w_zero_point");
    const std::vector<int64_t> wd(w.dims().begin(), w.dims().end());
    if (conv)
      conv_node(out, xn.out, wd, std::move(wv));
    else
      matmul_node(out, xn.out, wd, wv);

    if (qlinear) {
      requantization(out, r_.float_scalar(n_, 1) * static_cast<double>(r_.float_scalar(n_, 4)), r_.float_scalar(n_, 6));
      if (op == "QLinearConv" && n_.input_size() > 8 && !n_.input(8).empty()) bias(out);
      // ONNX rounds half to even. A power-of-two multiplier is a shift,
      // which VTA rounds so (requant_steps()), with the input zero point
      // folded into the bias when nothing pads and the weights have none;
      // any other multiplier is ONNX Runtime's float requantization (host).
      out.round_even = true;
      if (out.mult == 1 && out.w_zp == 0 && (out.pad == 0 || out.x_zp == 0) && out.weight_sets == 1) {
        fold_input_zero_point(out);
        if (out.zp != 0) out.vta_rq = VtaRequant{0, 1, out.shift};
      } else if (out.mult != 1) {
        out.fmult = static_cast<float>(r_.float_scalar(n_, 1) * r_.float_scalar(n_, 4)) / r_.float_scalar(n_, 6);
        // Without input and weight zero points: the exact VTA form of the
        // float requantization, as for DQ -> Conv -> Q (requant_float.h).
        if (out.x_zp == 0 && out.w_zp == 0 && out.weight_sets == 1)
          if (const auto f = lower_float_requant(out.fmult, out.zp, out.relu, acc_bound(out))) out.frq = *f;
      }
    } else {
      out.int32_out = true;  // the accumulators themselves
    }
    ctx_.tensors[n_.output(0)] = ctx_.graph.add(std::move(out));
  }

 private:
  // The node of an 8-bit tensor input, and whether that tensor is uint8 (a
  // uint8 view of an int8 node holds the node's values).
  int activation(int k, bool& uint8) const {
    if (auto v = ctx_.views.find(n_.input(k)); v != ctx_.views.end()) {
      uint8 = true;
      return v->second;
    }
    auto it = ctx_.tensors.find(n_.input(k));
    if (it == ctx_.tensors.end())
      r_.bad(n_, fmt::format("input '{}' must be an int8 or uint8 tensor (a graph input or a quantized result)",
                             n_.input(k)));
    if (ctx_.graph.at(it->second).int32_out)
      r_.bad(n_, fmt::format("input '{}' is int32; it must be 8-bit", n_.input(k)));
    uint8 = ctx_.graph.at(it->second).uint8;
    return it->second;
  }

  // A scalar zero point of the given signedness, as int8 (uint8 - 128); an
  // absent one is 0 (as int8: -128 for a uint8 tensor).
  int32_t zero_point(int k, bool uint8, const char* what) const {
    if (n_.input_size() <= k || n_.input(k).empty()) return uint8 ? -128 : 0;
    const onnx::TensorProto& t = r_.initializer(n_, k);
    const auto want = uint8 ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8;
    if (t.data_type() != want)
      r_.bad(n_, fmt::format("{} '{}' must be {} like its tensor", what, t.name(), uint8 ? "uint8" : "int8"));
    const std::vector<int64_t> v = r_.int_values(t, n_);
    if (v.size() != 1)
      r_.bad(n_,
             fmt::format("{} '{}' has {} values: only per-tensor zero points are supported", what, t.name(), v.size()));
    return static_cast<int32_t>(uint8 ? v[0] - 128 : v[0]);
  }

  void conv_node(Node& out, const Shape& is, const std::vector<int64_t>& wd, std::vector<int16_t> wv) const {
    r_.only_attrs(n_, {"kernel_shape", "strides", "pads", "group", "dilations", "auto_pad"});
    if (wd.size() != 4) r_.bad(n_, "weight must be 4-D [O, C/group, K, K]");
    if (wd[2] != wd[3]) r_.bad(n_, "only square kernels are supported (weight dims)");
    const auto k = r_.attr_ints(n_, "kernel_shape"), s = r_.attr_ints(n_, "strides"), p = r_.attr_ints(n_, "pads");
    if (!k.empty() && (k.size() != 2 || k[0] != wd[2] || k[1] != wd[3]))
      r_.bad(n_, "attribute kernel_shape differs from the weight dims");
    if (!s.empty() && (s.size() != 2 || s[0] != s[1])) r_.bad(n_, "attribute strides must be two equal values");
    if (!p.empty() && (p.size() != 4 || p[0] != p[1] || p[0] != p[2] || p[0] != p[3]))
      r_.bad(n_, "attribute pads must be four equal values (symmetric padding)");
    for (auto d : r_.attr_ints(n_, "dilations"))
      if (d != 1) r_.bad(n_, "attribute dilations must be 1");
    for (const auto& a : n_.attribute())
      if (a.name() == "auto_pad" && a.s() != "NOTSET")
        r_.bad(n_, "attribute auto_pad is not supported (use explicit pads)");
    out.op = Op::Conv2d;
    out.kernel = wd[2], out.stride = s.empty() ? 1 : s[0], out.pad = p.empty() ? 0 : p[0];
    out.groups = r_.attr_i(n_, "group", 1);
    if (out.groups != 1 && out.groups != is.c)
      r_.bad(n_, "attribute group must be 1 or depthwise");  // before the product
    if (wd[1] * out.groups != is.c) r_.bad(n_, "weight dims must be [O, C/group, K, K] matching the input");
    if (out.groups != 1 && !(out.groups == is.c && wd[0] == is.c)) r_.bad(n_, "attribute group must be 1 or depthwise");
    r_.check_window(n_, out.kernel, out.stride, out.pad, is);
    out.out = Shape{is.n, wd[0], (is.h + 2 * out.pad - out.kernel) / out.stride + 1,
                    (is.w + 2 * out.pad - out.kernel) / out.stride + 1};
    out.weight = std::move(wv);
  }

  // A (rows x K, a batch folded into the rows) times B ([K, N] or [batch, K, N]).
  void matmul_node(Node& out, const Shape& is, const std::vector<int64_t>& wd, const std::vector<int16_t>& wv) const {
    if (is.h != 1 || is.w != 1) r_.bad(n_, "input A must be 2-D or 3-D (rows x K)");
    if (wd.size() != 2 && wd.size() != 3) r_.bad(n_, "input B must be 2-D [K, N] or 3-D [batch, K, N]");
    const int64_t sets = wd.size() == 3 ? wd[0] : 1, kk = wd[wd.size() - 2], nn = wd[wd.size() - 1];
    if (kk != is.c) r_.bad(n_, fmt::format("B has {} rows, A {} columns", kk, is.c));
    if (sets != 1) {
      auto b = ctx_.batches.find(n_.input(0));
      if (b == ctx_.batches.end() || b->second != sets)
        r_.bad(n_, "a 3-D B needs a 3-D A of the same batch (no broadcasting)");
    }
    if (auto b = ctx_.batches.find(n_.input(0)); b != ctx_.batches.end()) ctx_.batches[n_.output(0)] = b->second;
    out.op = Op::Dense;
    out.weight_sets = sets;
    out.out = Shape{is.n, nn, 1, 1};
    out.weight.resize(wv.size());  // each set stored [N][K]
    for (int64_t s = 0; s < sets; ++s)
      for (int64_t o = 0; o < nn; ++o)
        for (int64_t i = 0; i < kk; ++i)
          out.weight[static_cast<size_t>((s * nn + o) * kk + i)] = wv[static_cast<size_t>((s * kk + i) * nn + o)];
  }

  // Requantization from the accumulator scale `acc_scale` to `y_scale`:
  // a plain shift when the ratio is a power of two (with zero points 0, the
  // VTA form), otherwise mult * 2^-shift with a 31-bit mult.
  void requantization(Node& out, double acc_scale, float y_scale) const {
    if (!(y_scale > 0) || !(acc_scale > 0)) r_.bad(n_, "scales must be positive");
    const onnx::TensorProto& yz = r_.initializer(n_, 7);
    out.uint8 = yz.data_type() == onnx::TensorProto::UINT8;
    out.zp = zero_point(7, out.uint8, "y_zero_point");
    int ye = 0;
    const bool y_pow2 = std::frexp(y_scale, &ye) == 0.5f;
    out.exp = y_pow2 ? ye - 1 : static_cast<int>(std::lround(std::log2(y_scale)));
    out.scale = y_pow2 ? 0 : y_scale;
    // float, as ONNX's reference computes the multiplier
    const double m = static_cast<double>(static_cast<float>(acc_scale) / y_scale);
    int e = 0;
    const double f = std::frexp(m, &e);  // m = f * 2^e, f in [0.5, 1)
    if (f == 0.5 && e <= 1) {            // a power of two no larger than 1: a shift
      out.mult = 1;
      out.shift = 1 - e;
    } else {
      int64_t mult = std::llround(std::ldexp(f, 31));
      int shift = 31 - e;
      if (mult == (int64_t{1} << 31)) mult >>= 1, --shift;
      if (shift < 0) r_.bad(n_, fmt::format("requantization multiplier {} is too large (at most 2^31)", m));
      if (shift > 62) mult >>= (shift - 62), shift = 62;
      out.mult = static_cast<int32_t>(mult);
      out.shift = shift;
    }
    if (out.mult == 1 && out.shift > 30) out.mult = 2, ++out.shift;  // beyond the 32-bit shift form: the 64-bit one
  }

  // sum (x - zx) w + b = sum x w + (b - zx sum w).
  void fold_input_zero_point(Node& out) const {
    if (out.x_zp == 0) return;
    const int64_t per_out = static_cast<int64_t>(out.weight.size()) / out.out.c;
    if (out.bias.empty()) out.bias.assign(static_cast<size_t>(out.out.c), 0);
    for (int64_t o = 0; o < out.out.c; ++o) {
      int64_t sum = 0;
      for (int64_t i = 0; i < per_out; ++i) sum += out.weight[static_cast<size_t>(o * per_out + i)];
      const int64_t b = out.bias[static_cast<size_t>(o)] - int64_t{out.x_zp} * sum;
      if (b < INT32_MIN || b > INT32_MAX) r_.bad(n_, "the bias with the input zero point folded in overflows int32");
      out.bias[static_cast<size_t>(o)] = static_cast<int32_t>(b);
    }
    out.x_zp = 0;
  }

  void bias(Node& out) const {
    const onnx::TensorProto& b = r_.initializer(n_, 8);
    if (b.data_type() != onnx::TensorProto::INT32) r_.bad(n_, fmt::format("bias '{}' must be int32", b.name()));
    const std::vector<int64_t> v = r_.int_values(b, n_);
    if (static_cast<int64_t>(v.size()) != out.out.c) r_.bad(n_, "bias length differs from the output channels");
    out.bias.assign(v.begin(), v.end());
  }

  const onnx::NodeProto& n_;
  const OnnxReader& r_;
  IntegerImport& ctx_;
};

}  // namespace

bool import_integer_op(const onnx::NodeProto& n, IntegerImport& ctx) {
  const std::string& op = n.op_type();
  if (op != "QLinearConv" && op != "ConvInteger" && op != "QLinearMatMul" && op != "MatMulInteger") return false;
  IntegerOp(n, ctx).run();
  return true;
}

}  // namespace vta::compiler
