// Blocked layouts: NCHW <-> [N/batch][C/block][H][W][batch][block], block the
// larger of gemm.block_in and gemm.block_out (act_block()), so that a
// position's channels are whole INP elements and whole OUT elements at once.
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/isa/error.h"

namespace vta::compiler {

Blocked blocked(const Shape& s, const Config& c) {
  const int64_t b = c.gemm.batch, k = act_block(c);
  return Blocked{(s.n + b - 1) / b, (s.c + k - 1) / k, s.h, s.w, b, k};
}

std::vector<uint8_t> pack(const Tensor& t, const Config& c) {
  const Blocked L = blocked(t.shape, c);
  std::vector<uint8_t> out(static_cast<size_t>(L.bytes()), 0);
  const Shape& s = t.shape;
  // Divisions hoisted out of the pixel loops: the stem's im2col is millions of elements.
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ch = 0; ch < s.c; ++ch) {
      const int64_t plane = (n / L.batch * L.cb + ch / L.block) * L.h * L.w;
      const int64_t lane = n % L.batch * L.block + ch % L.block, step = L.batch * L.block;
      const int8_t* src = t.data.data() + (n * s.c + ch) * s.h * s.w;
      uint8_t* dst = out.data() + plane * step + lane;
      for (int64_t p = 0; p < s.h * s.w; ++p) dst[p * step] = static_cast<uint8_t>(src[p]);
    }
  return out;
}

Tensor unpack(const std::vector<uint8_t>& bytes, const Shape& s, const Config& c) {
  const Blocked L = blocked(s, c);
  if (bytes.size() < static_cast<size_t>(L.bytes()))
    fail("unpack: {} bytes for a {}-byte blocked tensor", bytes.size(), L.bytes());
  Tensor t{s, std::vector<int8_t>(static_cast<size_t>(s.size()))};
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ch = 0; ch < s.c; ++ch) {
      const int64_t plane = (n / L.batch * L.cb + ch / L.block) * L.h * L.w;
      const int64_t lane = n % L.batch * L.block + ch % L.block, step = L.batch * L.block;
      const uint8_t* src = bytes.data() + plane * step + lane;
      int8_t* dst = t.data.data() + (n * s.c + ch) * s.h * s.w;
      for (int64_t p = 0; p < s.h * s.w; ++p) dst[p] = static_cast<int8_t>(src[p * step]);
    }
  return t;
}

}  // namespace vta::compiler
