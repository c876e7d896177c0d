// A register-blocked int16 dot-product kernel (4 rows of A x 2 rows of B per
// pass over r): compiled with -O3 -march=native (vta_fast) the inner loop
// becomes packed multiply-adds (vpmaddwd / vpdpwssd).
#include "ops/int_gemm.h"

#include <algorithm>

namespace vta::compiler {

namespace {

// Products per partial sum: 32768 * 255 * 255 < 2^31.
constexpr int64_t kChunk = 32768;

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

template <int M, int N>
void block(const int16_t* a, const int16_t* b, int64_t r_len, int64_t ld, int32_t* out, int64_t so, int64_t sq) {
  int32_t s[M][N] = {};
  for (int64_t r = 0; r < r_len; ++r)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) s[i][j] += int32_t{a[i * ld + r]} * int32_t{b[j * ld + r]};
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) out[i * so + j * sq] = wrap_add(out[i * so + j * sq], s[i][j]);
}

template <int M>
void rows(const int16_t* a, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int32_t* out, int64_t so,
          int64_t sq) {
  int64_t j = 0;
  for (; j + 2 <= n; j += 2) block<M, 2>(a, b + j * ld, r_len, ld, out + j * sq, so, sq);
  if (j < n) block<M, 1>(a, b + j * ld, r_len, ld, out + j * sq, so, sq);
}

}  // namespace

void gemm_abt_add(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int32_t* out,
                  int64_t so, int64_t sq) {
  for (int64_t r0 = 0; r0 < r_len; r0 += kChunk) {
    const int64_t len = std::min(kChunk, r_len - r0);
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) rows<4>(a + i * ld + r0, b + r0, n, len, ld, out + i * so, so, sq);
    for (; i < m; ++i) rows<1>(a + i * ld + r0, b + r0, n, len, ld, out + i * so, so, sq);
  }
}

}  // namespace vta::compiler
