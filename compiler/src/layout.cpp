// Blocked layouts: NCHW <-> [N/batch][C/block][H][W][batch][block], block the
// larger of gemm.block_in and gemm.block_out (act_block()), so that a
// position's channels are whole INP elements and whole OUT elements at once.
#include "vta/compiler/compile.h"
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
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ch = 0; ch < s.c; ++ch)
      for (int64_t h = 0; h < s.h; ++h)
        for (int64_t w = 0; w < s.w; ++w) {
          const int64_t elem = ((n / L.batch * L.cb + ch / L.block) * L.h + h) * L.w + w;
          const int64_t at = (elem * L.batch + n % L.batch) * L.block + ch % L.block;
          out[static_cast<size_t>(at)] = static_cast<uint8_t>(t.data[static_cast<size_t>(((n * s.c + ch) * s.h + h) * s.w + w)]);
        }
  return out;
}

Tensor unpack(const std::vector<uint8_t>& bytes, const Shape& s, const Config& c) {
  const Blocked L = blocked(s, c);
  if (bytes.size() < static_cast<size_t>(L.bytes())) fail("unpack: {} bytes for a {}-byte blocked tensor", bytes.size(), L.bytes());
  Tensor t{s, std::vector<int8_t>(static_cast<size_t>(s.size()))};
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ch = 0; ch < s.c; ++ch)
      for (int64_t h = 0; h < s.h; ++h)
        for (int64_t w = 0; w < s.w; ++w) {
          const int64_t elem = ((n / L.batch * L.cb + ch / L.block) * L.h + h) * L.w + w;
          const int64_t at = (elem * L.batch + n % L.batch) * L.block + ch % L.block;
          t.data[static_cast<size_t>(((n * s.c + ch) * s.h + h) * s.w + w)] = static_cast<int8_t>(bytes[static_cast<size_t>(at)]);
        }
  return t;
}

}  // namespace vta::compiler
