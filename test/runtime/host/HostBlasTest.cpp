//===- HostBlasTest.cpp - the portable blocked GEMM -----------------------===//
//
// The GEMM a build without OpenBLAS runs (HostBlas.h), checked in every
// build against a triple loop in double: transposes, padded leading
// dimensions, alpha/beta (beta 0 must ignore NaNs in C), sizes that straddle
// the packed panels (k > 256, n > 512) and products large enough to split
// rows across threads.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostBlas.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace tfc::rt::host;

namespace {

struct Shape {
  bool ta, tb;
  int64_t m, n, k, pad;
  double alpha, beta;
};

template <typename T> void check(const Shape &s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  int64_t rowsA = s.ta ? s.k : s.m, colsA = s.ta ? s.m : s.k;
  int64_t rowsB = s.tb ? s.n : s.k, colsB = s.tb ? s.k : s.n;
  int64_t lda = colsA + s.pad, ldb = colsB + s.pad, ldc = s.n + s.pad;
  std::vector<T> a(rowsA * lda), b(rowsB * ldb), c(s.m * ldc);
  for (T &v : a)
    v = T(dist(rng));
  for (T &v : b)
    v = T(dist(rng));
  for (T &v : c)
    v = s.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : T(dist(rng));
  std::vector<T> before = c;
  if constexpr (sizeof(T) == 4)
    portableSgemm(s.ta, s.tb, s.m, s.n, s.k, T(s.alpha), a.data(), lda,
                  b.data(), ldb, T(s.beta), c.data(), ldc);
  else
    portableDgemm(s.ta, s.tb, s.m, s.n, s.k, T(s.alpha), a.data(), lda,
                  b.data(), ldb, T(s.beta), c.data(), ldc);
  double tol = (sizeof(T) == 4 ? 2e-6 : 1e-14) * double(s.k + 1);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < s.k; ++p)
        want += double(s.ta ? a[p * lda + i] : a[i * lda + p]) *
                double(s.tb ? b[j * ldb + p] : b[p * ldb + j]);
      want = s.alpha * want +
             (s.beta == 0 ? 0.0 : s.beta * double(before[i * ldc + j]));
      ASSERT_NEAR(double(c[i * ldc + j]), want, tol)
          << "at (" << i << ", " << j << ")";
    }
    for (int64_t j = s.n; j < ldc; ++j) // padding is the caller's
      ASSERT_TRUE(std::isnan(double(c[i * ldc + j])) ||
                  c[i * ldc + j] == before[i * ldc + j]);
  }
}

const Shape kShapes[] = {
    {false, false, 3, 4, 5, 0, 1, 0},      {true, false, 7, 3, 2, 2, 0.5, 1},
    {false, true, 1, 1, 1, 0, -2, 0.25},   {true, true, 17, 9, 33, 3, 1, 0},
    {false, false, 5, 600, 300, 1, 1, 0},  {false, true, 70, 530, 260, 0, 1, 1},
    {true, false, 128, 96, 200, 0, 1, 0},  {false, false, 4, 5, 0, 0, 1, 0.5},
};

TEST(HostBlas, PortableSgemmMatchesReference) {
  unsigned seed = 1;
  for (const Shape &s : kShapes)
    check<float>(s, seed++);
}

TEST(HostBlas, PortableDgemmMatchesReference) {
  unsigned seed = 100;
  for (const Shape &s : kShapes)
    check<double>(s, seed++);
}

TEST(HostBlas, NamesItsImplementation) {
  std::string name = blasName();
  EXPECT_TRUE(name == "OpenBLAS GEMM" ||
              name == "portable GEMM, built without OpenBLAS")
      << name;
}

} // namespace
