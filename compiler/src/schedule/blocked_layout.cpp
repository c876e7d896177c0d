// Blocked layouts: NCHW <-> [N/batch][C/block][H][W][batch][block], block the
// larger of gemm.block_in and gemm.block_out (act_block()), so that a
// position's channels are whole INP elements and whole OUT elements at once.
#include "vta/compiler/schedule/blocked_layout.h"
#include "vta/isa/elem_pack.h"
#include "vta/isa/error.h"

namespace vta::compiler {

Blocked blocked(const Shape& s, const Config& c) {
  const int64_t b = c.gemm.batch, k = act_block(c);
  return Blocked{(s.n + b - 1) / b, (s.c + k - 1) / k, s.h, s.w, b, k, static_cast<int>(c.dtype.inp_bits)};
}

namespace {

// Calls f(NCHW index of the first value of a channel plane, blocked index of
// its first value, the blocked step between its pixels) for every plane.
template <class F>
void planes(const Shape& s, const Blocked& L, F f) {
  // Divisions hoisted out of the pixel loops: the stem's im2col is millions of elements.
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ch = 0; ch < s.c; ++ch) {
      const int64_t plane = (n / L.batch * L.cb + ch / L.block) * L.h * L.w;
      const int64_t lane = n % L.batch * L.block + ch % L.block, step = L.batch * L.block;
      f((n * s.c + ch) * s.h * s.w, plane * step + lane, step);
    }
}

}  // namespace

std::vector<uint8_t> pack(const Tensor& t, const Config& c) {
  const Blocked L = blocked(t.shape, c);
  const Shape& s = t.shape;
  const int64_t area = s.h * s.w;
  if (L.bits == 8) {  // a byte a value
    std::vector<uint8_t> out(static_cast<size_t>(L.bytes()), 0);
    planes(s, L, [&](int64_t from, int64_t to, int64_t step) {
      for (int64_t p = 0; p < area; ++p)
        out[static_cast<size_t>(to + p * step)] = static_cast<uint8_t>(t.data[static_cast<size_t>(from + p)]);
    });
    return out;
  }
  std::vector<int16_t> v(static_cast<size_t>(L.elems() * L.batch * L.block), 0);
  planes(s, L, [&](int64_t from, int64_t to, int64_t step) {
    for (int64_t p = 0; p < area; ++p) v[static_cast<size_t>(to + p * step)] = t.data[static_cast<size_t>(from + p)];
  });
  std::vector<uint8_t> out(static_cast<size_t>(L.bytes()), 0);
  isa::pack_elems(v.data(), L.bits, out.data(), v.size());
  return out;
}

Tensor unpack(const std::vector<uint8_t>& bytes, const Shape& s, const Config& c) {
  const Blocked L = blocked(s, c);
  if (bytes.size() < static_cast<size_t>(L.bytes()))
    fail("unpack: {} bytes for a {}-byte blocked tensor", bytes.size(), L.bytes());
  const int64_t area = s.h * s.w;
  Tensor t{s, std::vector<int16_t>(static_cast<size_t>(s.size()))};
  if (L.bits == 8) {
    planes(s, L, [&](int64_t to, int64_t from, int64_t step) {
      for (int64_t p = 0; p < area; ++p)
        t.data[static_cast<size_t>(to + p)] = static_cast<int8_t>(bytes[static_cast<size_t>(from + p * step)]);
    });
    return t;
  }
  std::vector<int16_t> v(static_cast<size_t>(L.elems() * L.batch * L.block));
  isa::unpack_elems(bytes.data(), L.bits, v.data(), v.size());
  planes(s, L, [&](int64_t to, int64_t from, int64_t step) {
    for (int64_t p = 0; p < area; ++p) t.data[static_cast<size_t>(to + p)] = v[static_cast<size_t>(from + p * step)];
  });
  return t;
}

}  // namespace vta::compiler
