// ONNX Runtime's quantized Add and average pools, exactly. See ort_ops.h.
#include "vta/compiler/ort_ops.h"

#include <algorithm>
#include <cmath>

namespace vta::compiler {

namespace {

// rne(v) clamped to the int8 range (and at zp with relu), in the int8 domain.
int8_t clamp8(float v, int32_t zp, bool relu) {
  const int32_t lo = relu ? std::max(zp, -128) : -128;
  const float r = std::nearbyint(std::clamp(v, -1e6f, 1e6f));
  return static_cast<int8_t>(std::clamp<int64_t>(static_cast<int64_t>(r), lo, 127));
}

}  // namespace

int8_t add_ort(int32_t da, int32_t db, float sa, float sb, float sc, int32_t zc, bool relu) {
  const float va = static_cast<float>(da) * sa, vb = static_cast<float>(db) * sb;
  const float sum = va + vb;
  const float q = sum / sc;
  const int32_t lo = relu ? std::max(zc, -128) : -128;
  const int64_t r = static_cast<int64_t>(std::nearbyint(std::clamp(q, -1e6f, 1e6f)));
  return static_cast<int8_t>(std::clamp<int64_t>(r + zc, lo, 127));
}

float pool_term_ort(int32_t dx, float sx) { return sx * static_cast<float>(dx); }

int8_t avg_pool_ort(float sum, int64_t count, float sy, int32_t zy, bool relu) {
  const float mean = sum / static_cast<float>(count);
  // y / y_scale + y_zero_point in float, the zero point of the uint8 type
  const float q = mean / sy + static_cast<float>(zy + 128);
  return clamp8(q - 128.0f, zy, relu);
}

float global_avg_pool_scale_ort(float sx, float sy, int64_t area) {
  return sx / (sy * static_cast<float>(area));
}

}  // namespace vta::compiler
