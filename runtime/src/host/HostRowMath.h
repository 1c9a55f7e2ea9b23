//===- HostRowMath.h - sums, maxima and exps of contiguous rows -*- C++ -*-===//
//
// The row primitives of the host's row ops (reductions, softmax, norms,
// cross-entropy and their gradients), written once and so that GCC
// vectorizes them:
//   - rowSum: eight partial sums combined pairwise, a fixed order that is
//     faster than one serial chain and closer in accuracy to PyTorch's
//     vectorized cascade sums; integers wrap as PyTorch's do;
//   - rowMax: NaN-propagating maximum (eight lanes, NaN tracked aside);
//   - expShiftedRow: e^(x - m) into a buffer, then its rowSum. A loop that
//     adds e^(x - m) into one scalar is a serial chain GCC cannot vectorize,
//     so the exps would run one at a time.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTROWMATH_H
#define TFC_RUNTIME_HOST_HOSTROWMATH_H

#include "runtime/src/host/HostMath.h"

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tfc::rt::host {

template <typename T> T rowSum(const T *x, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t s = 0; // wraps like PyTorch's integer sums
    for (int64_t i = 0; i < n; ++i)
      s += uint64_t(x[i]);
    return T(s);
  } else {
    T a[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j)
        a[j] += x[i + j];
    T s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    for (; i < n; ++i)
      s += x[i];
    return s;
  }
}

/// The identity of max: -inf, or the smallest integer.
template <typename T> T maxInit() {
  if constexpr (std::is_integral_v<T>)
    return std::numeric_limits<T>::min();
  else
    return -std::numeric_limits<T>::infinity();
}

/// One step of a NaN-propagating maximum (torch.max's rule).
template <typename T> T maxStep(T m, T v) {
  if constexpr (!std::is_integral_v<T>)
    if (std::isnan(m) || std::isnan(v))
      return std::numeric_limits<T>::quiet_NaN();
  return v > m ? v : m;
}

/// max over x[0, n), NaN if any element is NaN; -inf (or the smallest
/// integer) for n == 0.
template <typename T> T rowMax(const T *x, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    T m = maxInit<T>();
    for (int64_t i = 0; i < n; ++i)
      m = x[i] > m ? x[i] : m;
    return m;
  } else {
    T a[8];
    bool nan[8] = {};
    for (int j = 0; j < 8; ++j)
      a[j] = maxInit<T>();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) {
        T v = x[i + j];
        nan[j] |= v != v;
        a[j] = v > a[j] ? v : a[j];
      }
    T m = maxInit<T>();
    bool anyNan = false;
    for (int j = 0; j < 8; ++j) {
      anyNan |= nan[j];
      m = a[j] > m ? a[j] : m;
    }
    for (; i < n; ++i) {
      anyNan |= x[i] != x[i];
      m = x[i] > m ? x[i] : m;
    }
    return anyNan ? std::numeric_limits<T>::quiet_NaN() : m;
  }
}

/// out[i] = e^(x[i] - m) for i < n; returns their rowSum.
template <typename T>
T expShiftedRow(const T *x, T m, T *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = vexp(x[i] - m);
  return rowSum(out, n);
}

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTROWMATH_H
