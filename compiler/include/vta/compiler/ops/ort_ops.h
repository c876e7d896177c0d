#pragma once
// ONNX Runtime's (1.17, x86-64 CPU) Add, AveragePool and GlobalAveragePool
// on quantized tensors whose scales are not powers of two, exactly. Its QDQ
// transformer fuses DequantizeLinear -> op -> QuantizeLinear into the
// com.microsoft QLinearAdd / QLinearAveragePool / QLinearGlobalAveragePool,
// which compute (read from onnxruntime/core/mlas/lib and
// contrib_ops/cpu/quantization; checked against ONNX Runtime on every input
// pair by tests/test_onnx_ort_ops.cpp):
//   QLinearAdd (MLAS x86-64 kernel; raw values and zero points of the ONNX
//   type): ra = fl(sa / sc), rb = fl(sb / sc),
//   f = fl(zc - fma(ra, za, fl(rb zb))), y = sat(rne(fma(a, ra, fma(b, rb, f))))
//   (the AVX2 kernel's compiler contracts ra za + rb zb into one fused
//   multiply-add; the sum of two products differed on 1 of 32 768 elements
//   of ResNet-50's layer2.0 Add, tests/test_onnx_ort_ops.cpp)
//   The unfused graph (no fusion: a Relu between Add and QuantizeLinear
//   whose zero point is not the type's minimum) is the float reference
//   y = sat(rne(fl(max(fl(fl(da sa) + fl(db sb)), 0) / sc)) + zc); the two
//   differ on ties (tests/test_onnx_ort_ops.cpp counts them).
//   QLinearAveragePool: v = fl(sum fl(dx sx)) over the window in row order,
//   fl(v / count), y = clamp(rne(fl(fl(v / sy) + zy))) (zy of the ONNX type)
//   QLinearGlobalAveragePool: the integer sum of dx over H x W requantized
//   as QLinearConv is (requantize_ort()) with the multiplier
//   fl(sx / fl(sy * float(H W))).
//   QLinearMul (MLAS SSE2 kernel; DQ -> Mul -> Q, also with b broadcast over
//   H x W as squeeze-excitation writes it): r = fl(fl(sa sb) / sc),
//   y = sat(rne(fl(fl(float(da db) r) + zc))) (zc of the ONNX type)
//   DQ -> Sigmoid / HardSigmoid / HardSwish -> Q (QLinearSigmoid's lookup
//   table, or the float op then QuantizeLinear: the same function of the
//   256 codes): x = fl(dx sx), then Sigmoid: MLAS's logistic (Eigen's
//   rational approximation, fused multiply-adds, logistic_ort());
//   HardSigmoid: clamp(fl(fl(alpha x) + beta), 0, 1); HardSwish:
//   fl(x HardSigmoid(x)) with alpha fl(1/6), beta 1/2; then
//   y = sat(rne(fl(v / sy)) + zy). Checked against ONNX Runtime on every
//   code (tests/test_onnx_ort_ops.cpp).
// dx = x - zero point (an integer), fl() a float32 rounding, rne() to the
// nearest even integer. ONNX's own reference computes these in exact
// arithmetic; ONNX Runtime's float roundings differ from it near ties, so
// the graph computes ONNX Runtime's. All values here are int8 (a uint8
// tensor held as value - 128, its zero points likewise).
#include <array>
#include <cstdint>

namespace vta::compiler {

/// QLinearAdd's operands: the zero points of a, b and the output (int8
/// domain), the scales, whether the tensors are uint8, and a Relu before
/// the output's QuantizeLinear.
struct AddOrt {
  int32_t za = 0, zb = 0, zc = 0;
  float sa = 0, sb = 0, sc = 0;
  bool uint8 = true, relu = false;
};

/// ONNX Runtime's quantized Add of the int8-domain values a and b.
int8_t add_ort(int32_t a, int32_t b, const AddOrt& p);

/// QLinearMul's operands (int8 domain, as AddOrt).
struct MulOrt {
  int32_t za = 0, zb = 0, zc = 0;
  float sa = 0, sb = 0, sc = 0;
  bool uint8 = true;
};

/// ONNX Runtime's quantized Mul of the int8-domain values a and b.
int8_t mul_ort(int32_t a, int32_t b, const MulOrt& p);

/// MLAS's logistic function (ONNX Runtime's float Sigmoid).
float logistic_ort(float x);

/// ONNX Runtime's float HardSigmoid.
float hard_sigmoid_ort(float x, float alpha, float beta);

/// DequantizeLinear -> fn -> QuantizeLinear of one tensor: its input's and
/// output's scales and zero points (int8 domain) and fn's attributes.
struct UnaryOrt {
  enum class Fn { Sigmoid, HardSigmoid, HardSwish };
  Fn fn = Fn::Sigmoid;
  float alpha = 0.2f, beta = 0.5f;  // HardSigmoid's
  int32_t zx = 0, zy = 0;
  float sx = 0, sy = 0;
  bool uint8 = true;
};

/// The output code (int8 domain) of each input code v at index v + 128.
std::array<int8_t, 256> unary_table_ort(const UnaryOrt& p);

/// QLinearSoftmax (DQ -> Softmax -> Q over the last axis): the input's scale,
/// the output's scale and zero point (int8 domain), the type.
struct SoftmaxOrt {
  float sx = 0, sy = 0;
  int32_t zy = 0;
  bool uint8 = true;
};

/// ONNX Runtime's QLinearSoftmax of the `d` int8-domain codes at x, into y
/// (contrib_ops/cpu/quantization/qlinear_softmax.cc): a float table
/// t[i] = float(exp((i - 255 + b) sx)) in double, b = max(0, ln(fl(FLT_MAX / d))
/// - 5) / sx; each code x at i = 255 - (max x - x); v = fl(sum t) in order;
/// y = min(nearbyint(fl(fl(t Y) / v)) + zy, 255) with Y = floor(fl(1 / sy))
/// (int8: the sum wraps to int8, as its cast does). The input's zero point
/// cancels.
void softmax_ort(const int16_t* x, int16_t* y, int64_t d, const SoftmaxOrt& p);

/// One dequantized input of QLinearAveragePool: fl(dx * sx).
float pool_term_ort(int32_t dx, float sx);

/// QLinearAveragePool's quantization of the float window sum `sum` of
/// `count` dequantized inputs (pool_term_ort() each, added in row order);
/// `uint8`: the output tensor is uint8 (its zero point is added as such).
/// int8 (uint8 false): ONNX Runtime 1.17 fuses DQ -> AveragePool -> Q only
/// for uint8 (its unary QDQ selector leaves int8 out), so an int8 pool is the
/// float graph: the float mean, then QuantizeLinear's nearbyint(mean / sy) +
/// zy (the zero point added after rounding; tests/test_onnx_qdq.cpp,
/// residual_s8_pc, is where the fused form differed).
int8_t avg_pool_ort(float sum, int64_t count, float sy, int32_t zy, bool uint8, bool relu);

/// QLinearGlobalAveragePool's requantization multiplier for an image of
/// `area` positions.
float global_avg_pool_scale_ort(float sx, float sy, int64_t area);

}  // namespace vta::compiler
