//===- HostBlas.cpp - OpenBLAS or a portable blocked GEMM ----------------===//
//
// The portable GEMM packs a KC x NC panel of op(B) contiguously (so the
// innermost loop streams it with unit stride and vectorizes), then for each
// row of C accumulates alpha * a(i, p) * panel(p, :) into the row: a rank-1
// update per p that keeps C's row block hot in cache. Rows are split across
// hardware threads, each with its own panel, when the product is large
// enough to pay for the threads. Not OpenBLAS's speed, but within a small
// factor of it and exact to the usual GEMM rounding.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostBlas.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#ifdef TFCRT_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace tfc::rt::host {

namespace {

constexpr int64_t kPanelK = 256; ///< Rows of the packed op(B) panel.
constexpr int64_t kPanelN = 512; ///< Columns of the packed op(B) panel.

/// Rows [rowBegin, rowEnd) of C += alpha * op(A) * op(B) (C already scaled
/// by beta).
template <typename T>
void accumulateRows(bool ta, bool tb, int64_t rowBegin, int64_t rowEnd,
                    int64_t n, int64_t k, T alpha, const T *a, int64_t lda,
                    const T *b, int64_t ldb, T *c, int64_t ldc) {
  std::vector<T> panel(size_t(std::min(kPanelK, k) * std::min(kPanelN, n)));
  for (int64_t j0 = 0; j0 < n; j0 += kPanelN) {
    int64_t nb = std::min(kPanelN, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kPanelK) {
      int64_t kb = std::min(kPanelK, k - p0);
      for (int64_t p = 0; p < kb; ++p) {
        T *dst = panel.data() + p * nb;
        if (tb)
          for (int64_t j = 0; j < nb; ++j)
            dst[j] = b[(j0 + j) * ldb + p0 + p];
        else
          std::copy(b + (p0 + p) * ldb + j0, b + (p0 + p) * ldb + j0 + nb, dst);
      }
      for (int64_t i = rowBegin; i < rowEnd; ++i) {
        T *row = c + i * ldc + j0;
        for (int64_t p = 0; p < kb; ++p) {
          T s = alpha * (ta ? a[(p0 + p) * lda + i] : a[i * lda + p0 + p]);
          const T *src = panel.data() + p * nb;
          for (int64_t j = 0; j < nb; ++j)
            row[j] += s * src[j];
        }
      }
    }
  }
}

template <typename T>
void portableGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
                  const T *a, int64_t lda, const T *b, int64_t ldb, T beta,
                  T *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (beta == T(0))
      std::fill(row, row + n, T(0));
    else if (beta != T(1))
      for (int64_t j = 0; j < n; ++j)
        row[j] *= beta;
  }
  if (k <= 0 || alpha == T(0))
    return;
  // One thread per 32 rows at most, and only for products worth a thread.
  int64_t work = m * n * k;
  int64_t threads = work < (int64_t(1) << 21)
                        ? 1
                        : std::min<int64_t>(
                              std::max(1u, std::thread::hardware_concurrency()),
                              (m + 31) / 32);
  if (threads <= 1) {
    accumulateRows(ta, tb, 0, m, n, k, alpha, a, lda, b, ldb, c, ldc);
    return;
  }
  std::vector<std::thread> pool;
  int64_t per = (m + threads - 1) / threads;
  for (int64_t t = 0; t < threads; ++t) {
    int64_t begin = t * per, end = std::min(m, begin + per);
    if (begin >= end)
      break;
    pool.emplace_back([=] {
      accumulateRows(ta, tb, begin, end, n, k, alpha, a, lda, b, ldb, c, ldc);
    });
  }
  for (std::thread &t : pool)
    t.join();
}

} // namespace

void portableSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                   float alpha, const float *a, int64_t lda, const float *b,
                   int64_t ldb, float beta, float *c, int64_t ldc) {
  portableGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void portableDgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double *a, int64_t lda, const double *b,
                   int64_t ldb, double beta, double *c, int64_t ldc) {
  portableGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#ifdef TFCRT_HAVE_OPENBLAS

// HostGemm validated every size against the BLAS int range.
void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
           const float *a, int64_t lda, const float *b, int64_t ldb,
           float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}

void dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
           const double *a, int64_t lda, const double *b, int64_t ldb,
           double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}

const char *blasName() { return "OpenBLAS GEMM"; }

#else

void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
           const float *a, int64_t lda, const float *b, int64_t ldb,
           float beta, float *c, int64_t ldc) {
  portableSgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
           const double *a, int64_t lda, const double *b, int64_t ldb,
           double beta, double *c, int64_t ldc) {
  portableDgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

const char *blasName() { return "portable GEMM, built without OpenBLAS"; }

#endif

} // namespace tfc::rt::host
