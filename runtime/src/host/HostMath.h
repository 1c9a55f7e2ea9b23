//===- HostMath.h - vectorizable float exp, tanh, erf -----------*- C++ -*-===//
//
// glibc's expf/tanhf/erff are scalar calls (tanhf and erff cost ~20 ns per
// element), which made gelu and softmax dominate host run time. These are
// branch-free inline versions that GCC vectorizes, with the accuracy of the
// vectorized kernels PyTorch's CPU backend uses (Cephes-style polynomials,
// about 1-2 ulp; erf is Abramowitz & Stegun 7.1.26, max absolute error
// about 4e-7 in float, the formula of ATen's Vectorized<float>::erf, with a
// Taylor series near 0). NaN propagates,
// infinities and underflow to zero behave as in libm.
//
// Doubles keep libm: f64 exists for gradient checks, where accuracy, not
// speed, is the point.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTMATH_H
#define TFC_RUNTIME_HOST_HOSTMATH_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tfc::rt::host {

inline float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// `c ? a : b` as bit operations: GCC will not if-convert a float select
/// between two computed values (it could trap), so a ternary would keep the
/// loop scalar.
inline float selectBits(bool c, float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return bitsToFloat((ua & m) | (ub & ~m));
}

/// e^x: x = n ln2 + r with |r| <= ln2 / 2 (Cody-Waite split of ln2), a
/// degree-7 polynomial for e^r, and 2^n applied in two exact steps so that
/// results in the subnormal range are rounded once. Below -104, e^x is under
/// half the smallest subnormal and the result is 0 by selection: computing
/// it would underflow, and an underflowing multiply costs a microcode assist
/// of ~100 cycles per vector (a causal mask's -inf made softmax 10x slower).
inline float expFast(float x) {
  bool underflow = x < -104.0f;
  // Clamp (NaN passes through both comparisons unchanged).
  float xc = selectBits(underflow, 0.0f, selectBits(x > 89.0f, 89.0f, x));
  // Round to nearest with the 1.5 * 2^23 trick (no SSE4.1 round needed).
  float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // n in [-150, 129]; a NaN n (from a NaN x) is replaced so the conversion
  // is defined; p is NaN then anyway.
  int32_t ni = static_cast<int32_t>(selectBits(n == n, n, 0.0f));
  int32_t n1 = ni >> 1, n2 = ni - n1;
  float s1 = bitsToFloat(static_cast<uint32_t>(n1 + 127) << 23);
  float s2 = bitsToFloat(static_cast<uint32_t>(n2 + 127) << 23);
  return selectBits(underflow, 0.0f, p * s1 * s2);
}

/// tanh: an odd polynomial for |x| < 0.625 (where 1 - 2/(e^2x + 1) would
/// cancel), else 1 - 2 / (e^{2|x|} + 1) with x's sign.
inline float tanhFast(float x) {
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = x + x * z * p;
  float a = std::fabs(x);
  float big = 1.0f - 2.0f / (expFast(2.0f * a) + 1.0f);
  big = std::copysign(big, x);
  return selectBits(a < 0.625f, small, big);
}

/// erf: Abramowitz & Stegun 7.1.26 (the formula of ATen's vectorized erf)
/// for |x| >= 0.5; below that its 1 - (...) cancels, so the Taylor series
/// (error < 1e-9 relative there) is used instead.
inline float erfFast(float x) {
  float a = std::fabs(x);
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  float big = std::copysign(1.0f - p * t * expFast(-a * a), x);
  // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320 + ...).
  float z = x * x;
  float q = 1.0f / 9360.0f;
  q = q * z - 1.0f / 1320.0f;
  q = q * z + 1.0f / 216.0f;
  q = q * z - 1.0f / 42.0f;
  q = q * z + 1.0f / 10.0f;
  q = q * z - 1.0f / 3.0f;
  q = q * z + 1.0f;
  float small = 1.12837916709551257f * x * q;
  return selectBits(a < 0.5f, small, big);
}

// Overloads the kernels call: fast for float, libm for double.
inline float vexp(float x) { return expFast(x); }
inline double vexp(double x) { return std::exp(x); }
inline float vtanh(float x) { return tanhFast(x); }
inline double vtanh(double x) { return std::tanh(x); }
inline float verf(float x) { return erfFast(x); }
inline double verf(double x) { return std::erf(x); }

/// The math policy of the element formulas in common/ScalarOps.h on the
/// host: the fast float versions above, libm for double.
struct HostMath {
  template <typename T> static T exp(T x) { return vexp(x); }
  template <typename T> static T tanh(T x) { return vtanh(x); }
  template <typename T> static T erf(T x) { return verf(x); }
  template <typename T> static T log(T x) { return std::log(x); }
  template <typename T> static T sqrt(T x) { return std::sqrt(x); }
  template <typename T> static T cos(T x) { return std::cos(x); }
};

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTMATH_H
