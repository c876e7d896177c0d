#pragma once
// The integer reference's one matrix product: int16 operands, exact int32
// sums (the VTA's 32-bit wrap-around), for Conv2d (im2col) and Dense.
#include <cstdint>

namespace vta::compiler {

/// Rows of A and B are padded with zeros to a multiple of this many int16.
inline constexpr int64_t kGemmRowAlign = 32;

/// out[i*so + j*sq] += sum_r A[i*ld + r] * B[j*ld + r] (wrap-around int32),
/// i < m, j < n, r < r_len; r_len is a multiple of kGemmRowAlign. Exact for
/// operands within [-255, 255] (an int8 minus an int8 zero point): partial
/// sums over at most 32768 products cannot overflow int32, and they are
/// added to `out` modulo 2^32. `wide`: any int16 operands (16-bit weights or
/// activations), partial sums in int64, as exact and slower.
void gemm_abt_add(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int32_t* out,
                  int64_t so, int64_t sq, bool wide = false);
/// The same with exact int64 sums (any int16 operands): the calibration's
/// check that 16-bit layers do not wrap.
void gemm_abt_add(const int16_t* a, int64_t m, const int16_t* b, int64_t n, int64_t r_len, int64_t ld, int64_t* out,
                  int64_t so, int64_t sq, bool wide = true);

}  // namespace vta::compiler
