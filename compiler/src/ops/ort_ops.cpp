// ONNX Runtime's quantized Add and average pools, exactly. See ort_ops.h.
#include "vta/compiler/ops/ort_ops.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>

namespace vta::compiler {

int8_t add_ort(int32_t a, int32_t b, const AddOrt& p) {
  const int32_t off = p.uint8 ? 128 : 0, lo = p.uint8 ? 0 : -128, zc = p.zc + off;
  if (p.relu && zc != lo) {  // DequantizeLinear -> Add -> Relu -> QuantizeLinear, in float
    const float sum = static_cast<float>(a - p.za) * p.sa + static_cast<float>(b - p.zb) * p.sb;
    const float v = std::max(sum, 0.0f) / p.sc;
    const int64_t r = static_cast<int64_t>(std::nearbyint(std::clamp(v, -1e6f, 1e6f))) + zc;
    return static_cast<int8_t>(std::clamp<int64_t>(r, zc, lo + 255) - off);
  }
  // QLinearAdd: the ratios to the output scale, the zero points folded into
  // one constant (its compiler contracts ra za + rb zb into one fused
  // multiply-add), then two fused multiply-adds on the raw values (b first).
  const float ra = p.sa / p.sc, rb = p.sb / p.sc;
  const float fixed =
      static_cast<float>(zc) - std::fma(ra, static_cast<float>(p.za + off), rb * static_cast<float>(p.zb + off));
  const float v = std::fma(static_cast<float>(a + off), ra, std::fma(static_cast<float>(b + off), rb, fixed));
  const int64_t r = static_cast<int64_t>(std::nearbyint(std::clamp(v, -1e6f, 1e6f)));
  return static_cast<int8_t>(std::clamp<int64_t>(r, p.relu ? zc : lo, lo + 255) - off);
}

int8_t mul_ort(int32_t a, int32_t b, const MulOrt& p) {
  const int32_t off = p.uint8 ? 128 : 0, lo = p.uint8 ? 0 : -128;
  const float ratio = p.sa * p.sb / p.sc;
  const float v = static_cast<float>((a - p.za) * (b - p.zb)) * ratio + static_cast<float>(p.zc + off);
  // cvtps2dq: half to even; out of the int32 range it gives INT32_MIN
  const int64_t r = std::abs(v) < 2147483648.0f ? static_cast<int64_t>(std::nearbyint(v)) : INT32_MIN;
  return static_cast<int8_t>(std::clamp<int64_t>(r, lo, lo + 255) - off);
}

float logistic_ort(float x) {
  // MLAS's logistic (MlasLogisticKernelFma3 on x86-64): Eigen's rational
  // approximation on [-18, 18], each step a fused multiply-add
  x = std::clamp(x, -18.0f, 18.0f);
  const float x2 = x * x;
  float p = std::fma(x2, 4.37031012579801e-11f, 1.15627324459942e-07f);
  p = std::fma(p, x2, 6.08574864600143e-05f);
  p = std::fma(p, x2, 8.51377133304701e-03f);
  p = std::fma(p, x2, 2.48287947061529e-01f);
  p = p * x;
  float q = std::fma(x2, 6.10247389755681e-13f, 5.76102136993427e-09f);
  q = std::fma(q, x2, 6.29106785017040e-06f);
  q = std::fma(q, x2, 1.70198817374094e-03f);
  q = std::fma(q, x2, 1.16817656904453e-01f);
  q = std::fma(q, x2, 9.93151921023180e-01f);
  return std::clamp(p / q + 0.5f, 0.0f, 1.0f);
}

float hard_sigmoid_ort(float x, float alpha, float beta) {
  const float y = alpha * x;  // two roundings: ONNX Runtime's Eigen expression has no fused multiply-add
  return std::clamp(y + beta, 0.0f, 1.0f);
}

std::array<int8_t, 256> unary_table_ort(const UnaryOrt& p) {
  const int32_t off = p.uint8 ? 128 : 0;
  const float lo = p.uint8 ? 0.0f : -128.0f, hi = p.uint8 ? 255.0f : 127.0f;
  std::array<int8_t, 256> t{};
  for (int32_t v = -128; v < 128; ++v) {
    const float x = static_cast<float>(v - p.zx) * p.sx;  // DequantizeLinear
    float y = 0;
    switch (p.fn) {
      case UnaryOrt::Fn::Sigmoid:
        y = logistic_ort(x);
        break;
      case UnaryOrt::Fn::HardSigmoid:
        y = hard_sigmoid_ort(x, p.alpha, p.beta);
        break;
      case UnaryOrt::Fn::HardSwish:
        y = x * hard_sigmoid_ort(x, 1.0f / 6.0f, 0.5f);
        break;
    }
    // QuantizeLinear (MLAS): the float quotient rounded half to even, + zero point, saturated
    const float q = std::clamp(std::nearbyint(y / p.sy) + static_cast<float>(p.zy + off), lo, hi);
    t[static_cast<size_t>(v + 128)] = static_cast<int8_t>(static_cast<int32_t>(q) - off);
  }
  return t;
}

void softmax_ort(const int16_t* x, int16_t* y, int64_t d, const SoftmaxOrt& p) {
  const float top = std::numeric_limits<float>::max() / static_cast<float>(d);
  const double b = std::max(0.0, std::log(static_cast<double>(top)) - 5.0) / static_cast<double>(p.sx);
  std::array<float, 256> t{};
  for (int i = 0; i < 256; ++i)
    t[static_cast<size_t>(i)] = static_cast<float>(std::exp((i - 255 + b) * static_cast<double>(p.sx)));
  const int32_t xmax = *std::max_element(x, x + d);
  auto at = [&](int64_t k) { return t[static_cast<size_t>(255 - (xmax - x[k]))]; };
  float sum = 0;
  for (int64_t k = 0; k < d; ++k) sum += at(k);
  const float ys = std::floor(1.0f / p.sy);
  const int32_t off = p.uint8 ? 128 : 0;
  for (int64_t k = 0; k < d; ++k) {
    const int64_t q = static_cast<int64_t>(std::nearbyint(at(k) * ys / sum)) + p.zy + off;
    const int32_t v = q > 255 ? (p.uint8 ? 255 : -1) : (p.uint8 ? static_cast<int32_t>(q) : static_cast<int8_t>(q));
    y[k] = static_cast<int16_t>(v - off);
  }
}

float pool_term_ort(int32_t dx, float sx) { return sx * static_cast<float>(dx); }

int8_t avg_pool_ort(float sum, int64_t count, float sy, int32_t zy, bool uint8, bool relu) {
  const float mean = sum / static_cast<float>(count);
  // y / y_scale + y_zero_point in float, with the zero point of the ONNX type
  const int32_t off = uint8 ? 128 : 0, z = zy + off;
  // uint8: QLinearAveragePool; int8: AveragePool in float, then QuantizeLinear (ort_ops.h)
  const float q = uint8 ? mean / sy + static_cast<float>(z) : mean / sy;
  const int64_t r = static_cast<int64_t>(std::nearbyint(std::clamp(q, -1e6f, 1e6f))) + (uint8 ? 0 : z);
  const int32_t lo = relu ? std::max(zy, -128) : -128;
  return static_cast<int8_t>(std::clamp<int64_t>(r - off, lo, 127));
}

float global_avg_pool_scale_ort(float sx, float sy, int64_t area) { return sx / (sy * static_cast<float>(area)); }

}  // namespace vta::compiler
