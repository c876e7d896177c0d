// The constants of a conv/dense layer in their DRAM layouts (constants.h).
#include "codegen/constants.h"

#include <algorithm>
#include <cstring>

#include "vta/isa/elem_pack.h"

namespace vta::compiler::codegen {

namespace {

// WGT values in element order -> DRAM bytes at dtype.wgt_bits (elem_pack.h).
std::vector<uint8_t> packed(const std::vector<int16_t>& v, const Config& c) {
  const int bits = static_cast<int>(c.dtype.wgt_bits);
  std::vector<uint8_t> out(isa::packed_bytes(bits, v.size()), 0);
  isa::pack_elems(v.data(), bits, out.data(), v.size());
  return out;
}

}  // namespace

// WGT elements [cob ro][cib ri][k][k] (block_out x block_in each); depthwise
// (square arrays only): [cob][k][k], each block diagonal.
std::vector<uint8_t> pack_weights(const Node& n, const Shape& in, const ConvGeom& g, const Config& c) {
  const int64_t bo = c.gemm.block_out, bi = c.gemm.block_in, kk = g.k * g.k;
  if (g.dw) {  // output channel o reads input channel o
    std::vector<int16_t> out(static_cast<size_t>(g.cob * kk * bo * bi), 0);
    for (int64_t o = 0; o < n.out.c; ++o)
      for (int64_t q = 0; q < kk; ++q)
        out[static_cast<size_t>(((o / bo * kk + q) * bo + o % bo) * bi + o % bi)] =
            n.weight[static_cast<size_t>(o * kk + q)];
    return packed(out, c);
  }
  const int64_t cin = n.op == Op::Dense ? in.c * in.h * in.w : in.c;
  const int64_t in_blocks = g.cib * g.ri;
  std::vector<int16_t> out(static_cast<size_t>(g.cob * g.ro * in_blocks * kk * bo * bi), 0);
  // Element ((o / bo * in_blocks + i / bi) * k + kh) * k + kw, row o % bo, column i % bi,
  // written in order (VGG-16 has 1.4 * 10^8 weights).
  for (int64_t ob = 0; ob * bo < n.out.c; ++ob)
    for (int64_t ib = 0; ib * bi < cin; ++ib)
      for (int64_t q = 0; q < kk; ++q) {
        int16_t* dst = out.data() + ((ob * in_blocks + ib) * kk + q) * bo * bi;
        const int64_t rows = std::min(bo, n.out.c - ob * bo), cols = std::min(bi, cin - ib * bi);
        for (int64_t r = 0; r < rows; ++r) {
          const int16_t* src = n.weight.data() + ((ob * bo + r) * cin + ib * bi) * kk + q;
          for (int64_t col = 0; col < cols; ++col) dst[r * bi + col] = src[col * kk];
        }
      }
  return packed(out, c);
}

// One value per output channel as ACC elements of dtype.acc_bits (the bias,
// the shift row); placement() keeps a node whose values do not fit narrow
// accumulators on the host.
std::vector<uint8_t> pack_channels(const Node& n, const ConvGeom& g, const Config& c,
                                   const std::function<int32_t(int64_t)>& value) {
  const int64_t bo = c.gemm.block_out, batch = c.gemm.batch;
  std::vector<int32_t> v(static_cast<size_t>(g.cob * g.ro * batch * bo), 0);
  for (int64_t o = 0; o < n.out.c; ++o)
    for (int64_t b = 0; b < batch; ++b) v[static_cast<size_t>((o / bo * batch + b) * bo + o % bo)] = value(o);
  const int bits = static_cast<int>(c.dtype.acc_bits);
  std::vector<uint8_t> out(isa::packed_bytes(bits, v.size()), 0);
  isa::pack_elems(v.data(), bits, out.data(), v.size());
  return out;
}

}  // namespace vta::compiler::codegen
