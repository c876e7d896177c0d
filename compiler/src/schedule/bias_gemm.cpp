// Bias lanes for the GEMM core. See bias_gemm.h.
#include "vta/compiler/schedule/bias_gemm.h"

#include <algorithm>

#include "vta/compiler/ir/node_facts.h"
#include "vta/compiler/ops/requant.h"
#include "vta/isa/elem_pack.h"

namespace vta::compiler {

namespace {

// Bias b over INP lanes (1, -128, -128, ...): b = r + 128 q with 0 <= r <
// 128, lane 0's weight r and the other lanes' weights, each in [-128, 127],
// summing to -q. Returns -q; `lanes` the fewest lanes that hold it (at least 2).
int64_t lane_rest(int32_t b, int64_t* r = nullptr, int64_t* lanes = nullptr) {
  const int64_t low = ((int64_t{b} % 128) + 128) % 128, rest = -((int64_t{b} - low) / 128);
  if (r) *r = low;
  if (lanes) *lanes = std::max<int64_t>(2, 1 + (rest >= 0 ? (rest + 126) / 127 : (-rest + 127) / 128));
  return rest;
}

// The lane weights of bias b over `lanes` INP lanes into `w`: false when
// b has no such form there.
bool lanes_of(int32_t b, int64_t lanes, int8_t* w) {
  int64_t r = 0, need = 0;
  int64_t rest = lane_rest(b, &r, &need);
  if (lanes < need) return false;
  w[0] = static_cast<int8_t>(r);
  for (int64_t j = 1; j < lanes; ++j) {
    const int64_t v = std::clamp<int64_t>(rest, -128, 127);
    w[j] = static_cast<int8_t>(v);
    rest -= v;
  }
  return true;
}

}  // namespace

namespace {

// The bias plus its fold, wrapping as the ALU's ADD does.
int32_t plus_fold(const Node& n, int64_t channel, int32_t fold) {
  const int32_t b = n.bias.empty() ? 0 : n.bias[static_cast<size_t>(channel)];
  return static_cast<int32_t>(static_cast<uint32_t>(b) + static_cast<uint32_t>(fold));
}

}  // namespace

int32_t packed_bias(const Node& n, int64_t channel) { return plus_fold(n, channel, bias_fold(n, channel)); }

namespace {

// f(channel, packed_bias(n, channel)) for every output channel, until f returns false.
template <class F>
bool each_packed_bias(const Node& n, F f) {
  // bias_fold() is the same for every channel unless the requantization is per channel (Node::frqs).
  const int32_t fold = n.frqs.empty() ? bias_fold(n) : 0;
  for (int64_t o = 0; o < n.out.c; ++o)
    if (!f(o, plus_fold(n, o, n.frqs.empty() ? fold : bias_fold(n, o)))) return false;
  return true;
}

}  // namespace

std::vector<int32_t> packed_biases(const Node& n) {
  std::vector<int32_t> out(static_cast<size_t>(std::max<int64_t>(n.out.c, 0)));
  each_packed_bias(n, [&](int64_t o, int32_t b) { return out[static_cast<size_t>(o)] = b, true; });
  return out;
}

int64_t bias_lanes(const Node& n) {
  int64_t need = 0;  // no channel: any lanes
  each_packed_bias(n, [&](int64_t, int32_t b) {
    int64_t lanes = 0;
    lane_rest(b, nullptr, &lanes);
    need = std::max(need, lanes);
    return true;
  });
  return need;
}

bool bias_by_gemm(const Node& n, const Config& c) {
  if (n.op != Op::Conv2d && n.op != Op::Dense) return false;
  if (c.dtype.inp_bits != 8 || c.dtype.wgt_bits != 8) return false;  // the lanes are int8 (1, -128, ...)
  return c.gemm.block_in >= kept_fact(n, NodeFact::BiasLanes, bias_lanes);
}

std::vector<uint8_t> pack_bias_weights(const Node& n, int64_t blocks, const Config& c) {
  const int64_t bo = c.gemm.block_out, bi = c.gemm.block_in;
  std::vector<uint8_t> out(static_cast<size_t>(blocks * bo * bi), 0);
  const std::vector<int32_t> biases = packed_biases(n);
  for (int64_t o = 0; o < n.out.c && o < blocks * bo; ++o)
    lanes_of(biases[static_cast<size_t>(o)], bi, reinterpret_cast<int8_t*>(out.data() + o * bi));
  return out;
}

std::vector<uint8_t> bias_input(const Config& c) {
  const int64_t bi = c.gemm.block_in;
  std::vector<uint8_t> out(static_cast<size_t>(c.gemm.batch * bi), static_cast<uint8_t>(-128));
  for (int64_t b = 0; b < c.gemm.batch; ++b) out[static_cast<size_t>(b * bi)] = 1;
  return out;
}

int conv_shift(const Node& add, int conv) { return add.inputs[0] == conv ? add.shift_a : add.shift_b; }
int operand_shift(const Node& add, int conv) { return add.inputs[0] == conv ? add.shift_b : add.shift_a; }

int fused_operand_shift(const Node& add) {
  // fused_into() fuses the later of the two operands.
  return add.inputs[0] > add.inputs[1] ? add.shift_b : add.shift_a;
}

bool residual_by_gemm(const Node& add, const Config& c) {
  const int s = fused_operand_shift(add);
  return add.op == Op::Add && c.gemm.block_in == c.gemm.block_out && s >= 0 && s <= c.dtype.wgt_bits - 2;
}

std::vector<uint8_t> scaled_identity(int shift, const Config& c) {
  const int64_t b = c.gemm.block_in;
  std::vector<int16_t> v(static_cast<size_t>(b * b), 0);
  for (int64_t i = 0; i < b; ++i) v[static_cast<size_t>(i * b + i)] = static_cast<int16_t>(1 << shift);
  const int bits = static_cast<int>(c.dtype.wgt_bits);
  std::vector<uint8_t> out(isa::packed_bytes(bits, v.size()), 0);
  isa::pack_elems(v.data(), bits, out.data(), v.size());
  return out;
}

}  // namespace vta::compiler
