// A register-blocked int16 dot-product kernel (4 rows of A x 2 rows of B per
// pass over r): compiled with -O3 -march=native (vta_fast) the inner loop
// becomes packed multiply-adds (vpmaddwd / vpdpwssd).
#include "ops/int_gemm.h"

#include <algorithm>
#include <type_traits>

namespace vta::compiler {

namespace {

// Products per partial sum: 32768 * 255 * 255 < 2^31.
constexpr int64_t kChunk = 32768;

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// S: the partial sums' type (int32_t for operands within [-255, 255],
// int64_t for any int16: 2^30 a product, 2^15 products a chunk).
int64_t wrap_add(int64_t a, int64_t b) { return a + b; }  // exact: |sum| < 2^62 for any layer

// O: the output's type (int32_t wraps as the VTA does, int64_t is exact).
template <int M, int N, class S, class O>
void block(const int16_t* a, const int16_t* b, int64_t r_len, int64_t ld, O* out, int64_t so, int64_t sq) {
  S s[M][N] = {};
  for (int64_t r = 0; r < r_len; ++r)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) s[i][j] += S{a[i * ld + r]} * S{b[j * ld + r]};
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      out[i * so + j * sq] =
          wrap_add(out[i * so + j * sq], static_cast<O>(static_cast<std::make_unsigned_t<O>>(s[i][j])));
}

template <int M, class S, class O>
void rows(const int16_t* a, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, O* out, int64_t so, int64_t sq) {
  int64_t j = 0;
  for (; j + 2 <= n; j += 2) block<M, 2, S>(a, b + j * ld, r_len, ld, out + j * sq, so, sq);
  if (j < n) block<M, 1, S>(a, b + j * ld, r_len, ld, out + j * sq, so, sq);
}

template <class S, class O>
void gemm(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, O* out, int64_t so,
          int64_t sq) {
  for (int64_t r0 = 0; r0 < r_len; r0 += kChunk) {
    const int64_t len = std::min(kChunk, r_len - r0);
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) rows<4, S>(a + i * ld + r0, b + r0, n, len, ld, out + i * so, so, sq);
    for (; i < m; ++i) rows<1, S>(a + i * ld + r0, b + r0, n, len, ld, out + i * so, so, sq);
  }
}

}  // namespace

void gemm_abt_add(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int32_t* out,
                  int64_t so, int64_t sq, bool wide) {
  if (wide)
    gemm<int64_t>(a, m, b, n, r_len, ld, out, so, sq);
  else
    gemm<int32_t>(a, m, b, n, r_len, ld, out, so, sq);
}

void gemm_abt_add(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int64_t* out,
                  int64_t so, int64_t sq, bool /*wide: always*/) {
  gemm<int64_t>(a, m, b, n, r_len, ld, out, so, sq);
}

}  // namespace vta::compiler
