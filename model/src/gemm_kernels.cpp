// GEMM loop nests: fixed-shape SIMD ones over the packed int16 weight pairs
// (gemm_kernels.h), and a generic one for any shape.
#include "gemm_kernels.h"

#include <algorithm>
#include <cstring>

#include "vta/isa/fuzz_coverage.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace vta::model::gemm {

namespace {

// Packs one element: packed[k/2][o][2] = w[o][k], 0 past block_in. With the
// sizes fixed at compile time (the common shapes) the loops vectorise.
template <int BI, int BO>
void pack_fixed(const int16_t* w, int16_t* p) {
  for (int kp = 0; kp < BI / 2; ++kp)
    for (int o = 0; o < BO; ++o) {
      p[(kp * BO + o) * 2] = w[o * BI + 2 * kp];
      p[(kp * BO + o) * 2 + 1] = w[o * BI + 2 * kp + 1];
    }
}

void pack_any(const int16_t* w, int16_t* p, int64_t bi, int64_t bo) {
  for (int64_t o = 0; o < bo; ++o)
    for (int64_t k = 0; k < bi; ++k) p[((k / 2) * bo + o) * 2 + (k & 1)] = w[o * bi + k];
  if (bi % 2 != 0)
    for (int64_t o = 0; o < bo; ++o) p[((bi / 2) * bo + o) * 2 + 1] = 0;
}

}  // namespace

void pack(const int16_t* wgt, int16_t* packed, uint64_t count, int64_t bi, int64_t bo) {
  const int64_t per = packed_elems(bi, bo);
  void (*one)(const int16_t*, int16_t*) = nullptr;
  if (bi == 16 && bo == 16) one = pack_fixed<16, 16>;
  if (bi == 32 && bo == 32) one = pack_fixed<32, 32>;
  for (uint64_t e = 0; e < count; ++e) {
    const int16_t* w = wgt + e * static_cast<uint64_t>(bi * bo);
    int16_t* p = packed + e * static_cast<uint64_t>(per);
    if (one)
      one(w, p);
    else
      pack_any(w, p, bi, bo);
  }
}

namespace {

// The multiply-add of int16 pairs, one struct per register width the
// target has: V holds kLanes int32 lanes (a GCC vector: zero, broadcast and
// add are its operators), madd(s, x, w) = s + the pairwise products of x
// and the 2 kLanes int16 at w; U and H are the same lanes as uint32 (the
// wrap-around accumulate) and as int16 (the OUT write).
#if defined(__AVX512BW__)
struct Simd512 {
  typedef int32_t V __attribute__((vector_size(64)));
  typedef uint32_t U __attribute__((vector_size(64)));
  typedef int16_t H __attribute__((vector_size(32)));
  static constexpr int kLanes = 16;
  static V madd(V s, V x, const int16_t* w) {
#if defined(__AVX512VNNI__)
    return reinterpret_cast<V>(
        _mm512_dpwssd_epi32(reinterpret_cast<__m512i>(s), reinterpret_cast<__m512i>(x), _mm512_loadu_si512(w)));
#else
    return s + reinterpret_cast<V>(_mm512_madd_epi16(reinterpret_cast<__m512i>(x), _mm512_loadu_si512(w)));
#endif
  }
};
#endif
#if defined(__AVX2__)
struct Simd256 {
  typedef int32_t V __attribute__((vector_size(32)));
  typedef uint32_t U __attribute__((vector_size(32)));
  typedef int16_t H __attribute__((vector_size(16)));
  static constexpr int kLanes = 8;
  static V madd(V s, V x, const int16_t* w) {
    return s + reinterpret_cast<V>(_mm256_madd_epi16(reinterpret_cast<__m256i>(x),
                                                     _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))));
  }
};
#endif
#if defined(__SSE2__)
struct Simd128 {
  typedef int32_t V __attribute__((vector_size(16)));
  typedef uint32_t U __attribute__((vector_size(16)));
  typedef int16_t H __attribute__((vector_size(8)));
  static constexpr int kLanes = 4;
  static V madd(V s, V x, const int16_t* w) {
    return s + reinterpret_cast<V>(
                   _mm_madd_epi16(reinterpret_cast<__m128i>(x), _mm_loadu_si128(reinterpret_cast<const __m128i*>(w))));
  }
};
#endif

// The whole loop nest for a fixed shape, so that the per-uop work (BI/2
// broadcast multiply-adds of int16 pairs across BO channels, the
// wrap-around accumulate and the OUT write) is inlined and kept in registers.
// The accumulator's and OUT's widths are shifts (sign extension from bit
// 31 - shift): constants for upstream's 32 and 8 bits (kUpstream), so that
// the common case pays nothing for the knob, else run-time values.
template <typename S, int BI, int BO, bool kUpstream>
VTA_NO_FUZZ_COVERAGE void fixed(const Loop& g) {
  static_assert(BI % 2 == 0 && BO % S::kLanes == 0, "fixed kernels take whole pairs and whole registers");
  constexpr int kPairs = BI / 2, kChunks = BO / S::kLanes;
  constexpr int kSplit = kChunks >= 4 ? 1 : std::min(kPairs, 4 / kChunks);
  const int64_t batch = g.batch;
  for (uint32_t i = 0; i < g.io; ++i) {
    for (uint32_t j = 0; j < g.ii; ++j) {
      for (uint32_t u = g.bgn; u < g.end; ++u) {
        const Uop& op = g.uop[u];
        const uint64_t dst = op.dst + i * g.dfo + j * g.dfi;
        const int16_t* in = g.inp + (op.src + i * g.sfo + j * g.sfi) * static_cast<uint64_t>(batch * BI);
        const int16_t* w = g.wpack + (op.wgt + i * g.wfo + j * g.wfi) * static_cast<uint64_t>(BI * BO);
        int32_t* acc = g.acc + dst * static_cast<uint64_t>(batch * BO);
        int16_t* out = g.out + dst * static_cast<uint64_t>(batch * BO);
        for (int64_t b = 0; b < batch; ++b) {
          int32_t pairs[kPairs];
          std::memcpy(pairs, in + b * BI, sizeof pairs);
          // kSplit partial sums per chunk: independent multiply-add chains
          // (a chain of BI/2 dependent ones waits on each one's latency).
          typename S::V part[kChunks][kSplit];
          for (int c = 0; c < kChunks; ++c)
            for (int h = 0; h < kSplit; ++h) part[c][h] = typename S::V{};
          for (int p = 0; p < kPairs; ++p) {
            const typename S::V x = typename S::V{} + pairs[p];
            for (int c = 0; c < kChunks; ++c)
              part[c][p % kSplit] = S::madd(part[c][p % kSplit], x, w + (p * BO + c * S::kLanes) * 2);
          }
          typename S::V sum[kChunks];
          for (int c = 0; c < kChunks; ++c) {
            sum[c] = part[c][0];
            for (int h = 1; h < kSplit; ++h) sum[c] += part[c][h];
          }
          for (int c = 0; c < kChunks; ++c) {  // the accumulator wraps around; OUT takes its low bits
            typename S::U a, d;
            std::memcpy(&a, acc + b * BO + c * S::kLanes, sizeof a);
            std::memcpy(&d, &sum[c], sizeof d);
            a += d;
            const int as = kUpstream ? 0 : g.acc_shift, os = kUpstream ? 24 : g.out_shift;
            const auto wrapped = reinterpret_cast<typename S::V>(a << as) >> as;
            std::memcpy(acc + b * BO + c * S::kLanes, &wrapped, sizeof wrapped);
            const auto low = reinterpret_cast<typename S::V>(a << os) >> os;
            const typename S::H h = __builtin_convertvector(low, typename S::H);
            std::memcpy(out + b * BO + c * S::kLanes, &h, sizeof h);
          }
        }
      }
    }
  }
}

// Any shape: the same computation with run-time sizes.
VTA_NO_FUZZ_COVERAGE void generic(const Loop& g) {
  const int64_t per = packed_elems(g.bi, g.bo);
  for (uint32_t i = 0; i < g.io; ++i)
    for (uint32_t j = 0; j < g.ii; ++j)
      for (uint32_t u = g.bgn; u < g.end; ++u) {
        const Uop& op = g.uop[u];
        const uint64_t dst = op.dst + i * g.dfo + j * g.dfi;
        const int16_t* in = g.inp + (op.src + i * g.sfo + j * g.sfi) * static_cast<uint64_t>(g.batch * g.bi);
        const int16_t* w = g.wpack + (op.wgt + i * g.wfo + j * g.wfi) * static_cast<uint64_t>(per);
        for (int64_t b = 0; b < g.batch; ++b)
          for (int64_t o = 0; o < g.bo; ++o) {
            uint32_t sum = 0;
            for (int64_t k = 0; k < g.bi; ++k)
              sum += static_cast<uint32_t>(int32_t{in[b * g.bi + k]} * w[((k / 2) * g.bo + o) * 2 + (k & 1)]);
            const uint64_t at = dst * static_cast<uint64_t>(g.batch * g.bo) + static_cast<uint64_t>(b * g.bo + o);
            const uint32_t a = static_cast<uint32_t>(g.acc[at]) + sum;
            g.acc[at] = static_cast<int32_t>(a << g.acc_shift) >> g.acc_shift;
            g.out[at] = static_cast<int16_t>(static_cast<int32_t>(a << g.out_shift) >> g.out_shift);
          }
      }
}

// The widest register set whose lanes divide BO.
template <int BI, int BO, bool kUpstream>
Fn widest() {
#if defined(__AVX512BW__)
  if constexpr (BO % Simd512::kLanes == 0) return fixed<Simd512, BI, BO, kUpstream>;
#endif
#if defined(__AVX2__)
  if constexpr (BO % Simd256::kLanes == 0) return fixed<Simd256, BI, BO, kUpstream>;
#endif
#if defined(__SSE2__)
  if constexpr (BO % Simd128::kLanes == 0) return fixed<Simd128, BI, BO, kUpstream>;
#endif
  return generic;
}

template <bool kUpstream>
Fn pick_shape(int64_t block_in, int64_t block_out) {
  if (block_in == 16 && block_out == 16) return widest<16, 16, kUpstream>();
  if (block_in == 32 && block_out == 32) return widest<32, 32, kUpstream>();
  if (block_in == 8 && block_out == 8) return widest<8, 8, kUpstream>();
  if (block_in == 16 && block_out == 32) return widest<16, 32, kUpstream>();
  if (block_in == 32 && block_out == 16) return widest<32, 16, kUpstream>();
  if (block_in == 64 && block_out == 64) return widest<64, 64, kUpstream>();
  return generic;
}

}  // namespace

Fn pick(int64_t block_in, int64_t block_out, int acc_shift, int out_shift) {
  return acc_shift == 0 && out_shift == 24 ? pick_shape<true>(block_in, block_out)
                                           : pick_shape<false>(block_in, block_out);
}

}  // namespace vta::model::gemm
