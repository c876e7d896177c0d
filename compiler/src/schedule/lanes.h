#pragma once
// Lanes: four doubles that the tile timeline (tile_search.cpp) computes with
// at once, one design per lane (the GEMM pipeline depths of a sweep's
// designs that share every other knob the search reads), in the compiler's
// vector extension (GCC and Clang: one AVX register, or two SSE2 ones). Each
// lane is computed with the operations, in the order, the scalar timeline
// uses, so a lane equals the scalar result bit for bit (tile_search.cpp is
// built without fused multiply-adds); vmax(), vmin() and pick() are the
// scalar std::max, std::min and ?: lane by lane, and overloaded for double so
// that one template serves both.
#include <algorithm>
#include <cstdint>

namespace vta::compiler {

struct Lanes {
  static constexpr int kCount = 4;
  using Vec = double __attribute__((vector_size(32)));
  using Bits = int64_t __attribute__((vector_size(32)));
  Vec v;

  Lanes() : v{} {}
  Lanes(double x) : v{x, x, x, x} {}  // NOLINT(google-explicit-constructor): a scalar is every lane's
  Lanes(double a, double b, double c, double d) : v{a, b, c, d} {}
  double operator[](int i) const { return v[i]; }
  void set(int i, double x) { v[i] = x; }

  friend Lanes operator+(const Lanes& a, const Lanes& b) { return from(a.v + b.v); }
  friend Lanes operator-(const Lanes& a, const Lanes& b) { return from(a.v - b.v); }
  friend Lanes operator*(const Lanes& a, const Lanes& b) { return from(a.v * b.v); }
  friend Lanes operator/(const Lanes& a, const Lanes& b) { return from(a.v / b.v); }
  friend Lanes operator+(const Lanes& a, double b) { return a + Lanes(b); }
  friend Lanes operator-(const Lanes& a, double b) { return a - Lanes(b); }
  friend Lanes operator*(const Lanes& a, double b) { return a * Lanes(b); }
  friend Lanes operator/(const Lanes& a, double b) { return a / Lanes(b); }
  friend Lanes operator+(double a, const Lanes& b) { return Lanes(a) + b; }
  friend Lanes operator-(double a, const Lanes& b) { return Lanes(a) - b; }
  friend Lanes operator*(double a, const Lanes& b) { return Lanes(a) * b; }
  Lanes& operator+=(const Lanes& b) { return *this = *this + b; }
  Lanes& operator-=(const Lanes& b) { return *this = *this - b; }

  // A comparison's lanes: all ones where it holds.
  struct Mask {
    Bits m;
    friend Mask operator&&(const Mask& a, const Mask& b) { return {a.m & b.m}; }
  };
  friend Mask operator<(const Lanes& a, const Lanes& b) { return {a.v < b.v}; }
  friend Mask operator>=(const Lanes& a, const Lanes& b) { return {a.v >= b.v}; }

 private:
  static Lanes from(Vec x) {
    Lanes r;
    r.v = x;
    return r;
  }
  friend Lanes pick(const Mask& m, const Lanes& a, const Lanes& b) {
    return from(reinterpret_cast<Vec>((reinterpret_cast<Bits>(a.v) & m.m) | (reinterpret_cast<Bits>(b.v) & ~m.m)));
  }
};

inline double vmax(double a, double b) { return std::max(a, b); }
inline double vmin(double a, double b) { return std::min(a, b); }
inline double pick(bool m, double a, double b) { return m ? a : b; }
// std::max(a, b) is (a < b) ? b : a, std::min(a, b) is (b < a) ? b : a.
inline Lanes vmax(const Lanes& a, const Lanes& b) { return pick(a < b, b, a); }
inline Lanes vmin(const Lanes& a, const Lanes& b) { return pick(b < a, b, a); }
inline Lanes vmax(const Lanes& a, double b) { return vmax(a, Lanes(b)); }
inline Lanes vmax(double a, const Lanes& b) { return vmax(Lanes(a), b); }
inline Lanes vmin(const Lanes& a, double b) { return vmin(a, Lanes(b)); }

}  // namespace vta::compiler
