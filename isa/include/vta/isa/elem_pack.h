#pragma once
// Tensor elements of a given width (dtype.*_bits: 4, 8, 16 or 32) as DRAM
// and the ISA's element images hold them: value i of a row occupies bits
// [i w, (i + 1) w) of the little-endian byte string, two's complement (as
// upstream VTA packs its ap_int arrays). A 4-bit row of n values is n / 2
// bytes, value 0 in the low nibble. Unpacking sign-extends; packing keeps
// each value's low w bits. Every model (golden, SystemC), the compiler's
// images and the tests convert through these, so the layout is written once.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace vta::isa {

/// `v` reduced modulo 2^bits and sign-extended (bits 1..32): the value a
/// bits-wide two's complement register holds after being written with v.
constexpr int32_t wrap_bits(int32_t v, int bits) {
  if (bits >= 32) return v;
  const int s = 32 - bits;
  return static_cast<int32_t>(static_cast<uint32_t>(v) << s) >> s;
}

/// Bytes that n values of `bits` bits occupy (a whole number for the
/// element sizes the config allows).
constexpr size_t packed_bytes(int bits, size_t n) { return (n * static_cast<size_t>(bits) + 7) / 8; }

/// n values of `bits` bits from `src` into `dst`, sign-extended. T is a
/// signed integer at least `bits` wide.
template <typename T>
void unpack_elems(const uint8_t* src, int bits, T* dst, size_t n) {
  static_assert(std::is_integral_v<T> && std::is_signed_v<T>);
  switch (bits) {
    case 4:
      for (size_t i = 0; i < n; ++i) {
        const unsigned nib = (src[i / 2] >> (4 * (i & 1))) & 0xFu;
        dst[i] = static_cast<T>(static_cast<int>(nib ^ 8u) - 8);
      }
      return;
    case 8:
      for (size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(static_cast<int8_t>(src[i]));
      return;
    case 16:
      for (size_t i = 0; i < n; ++i) {
        int16_t v;
        std::memcpy(&v, src + 2 * i, 2);
        dst[i] = static_cast<T>(v);
      }
      return;
    case 32:
      if constexpr (sizeof(T) == 4) {
        std::memcpy(dst, src, 4 * n);
      } else {
        for (size_t i = 0; i < n; ++i) {
          int32_t v;
          std::memcpy(&v, src + 4 * i, 4);
          dst[i] = static_cast<T>(v);
        }
      }
      return;
    default:
      for (size_t i = 0; i < n; ++i) {  // any width 1..32, bit by bit
        uint32_t v = 0;
        for (int b = 0; b < bits; ++b) {
          const size_t at = i * static_cast<size_t>(bits) + static_cast<size_t>(b);
          v |= static_cast<uint32_t>((src[at / 8] >> (at % 8)) & 1u) << b;
        }
        dst[i] = static_cast<T>(wrap_bits(static_cast<int32_t>(v), bits));
      }
  }
}

/// n values from `src` into `dst` at `bits` bits each (their low bits).
/// Writes packed_bytes(bits, n) bytes; a 4-bit row of odd length keeps the
/// high nibble of its last byte as it was.
template <typename T>
void pack_elems(const T* src, int bits, uint8_t* dst, size_t n) {
  static_assert(std::is_integral_v<T>);
  switch (bits) {
    case 4:
      for (size_t i = 0; i < n; ++i) {
        const unsigned sh = 4 * (i & 1);
        dst[i / 2] =
            static_cast<uint8_t>((dst[i / 2] & ~(0xFu << sh)) | ((static_cast<unsigned>(src[i]) & 0xFu) << sh));
      }
      return;
    case 8:
      for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(src[i]);
      return;
    case 16:
      for (size_t i = 0; i < n; ++i) {
        const auto v = static_cast<uint16_t>(src[i]);
        std::memcpy(dst + 2 * i, &v, 2);
      }
      return;
    case 32:
      if constexpr (sizeof(T) == 4) {
        std::memcpy(dst, src, 4 * n);
      } else {
        for (size_t i = 0; i < n; ++i) {
          const auto v = static_cast<uint32_t>(static_cast<int32_t>(src[i]));
          std::memcpy(dst + 4 * i, &v, 4);
        }
      }
      return;
    default:
      for (size_t i = 0; i < n; ++i) {
        const auto v = static_cast<uint32_t>(static_cast<int32_t>(src[i]));
        for (int b = 0; b < bits; ++b) {
          const size_t at = i * static_cast<size_t>(bits) + static_cast<size_t>(b);
          const auto bit = static_cast<uint8_t>(1u << (at % 8));
          dst[at / 8] = static_cast<uint8_t>(((v >> b) & 1u) != 0 ? dst[at / 8] | bit : dst[at / 8] & ~bit);
        }
      }
  }
}

}  // namespace vta::isa
