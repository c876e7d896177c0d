// ONNX Runtime's quantized Add and average pools, exactly. See ort_ops.h.
#include "vta/compiler/ops/ort_ops.h"

#include <algorithm>
#include <cmath>

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
  // one constant, then two fused multiply-adds on the raw values (b first).
  const float ra = p.sa / p.sc, rb = p.sb / p.sc;
  const float fixed =
      static_cast<float>(zc) - (ra * static_cast<float>(p.za + off) + rb * static_cast<float>(p.zb + off));
  const float v = std::fma(static_cast<float>(a + off), ra, std::fma(static_cast<float>(b + off), rb, fixed));
  const int64_t r = static_cast<int64_t>(std::nearbyint(std::clamp(v, -1e6f, 1e6f)));
  return static_cast<int8_t>(std::clamp<int64_t>(r, p.relu ? zc : lo, lo + 255) - off);
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
