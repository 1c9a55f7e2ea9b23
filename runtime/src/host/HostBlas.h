//===- HostBlas.h - the BLAS-3 kernels of the host GEMM ---------*- C++ -*-===//
//
// Row-major C = alpha * op(A) * op(B) + beta * C for f32 and f64, as CBLAS
// defines it (beta == 0 ignores C's old values, NaNs included). With
// OpenBLAS (TFCRT_HAVE_OPENBLAS) these forward to cblas_sgemm/cblas_dgemm;
// without it they run the portable blocked GEMM below, which is always
// compiled so the unit tests check it against a reference in every build.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTBLAS_H
#define TFC_RUNTIME_HOST_HOSTBLAS_H

#include <cstdint>

namespace tfc::rt::host {

/// op(X) is X, or its transpose when the flag is set; op(A) is m x k, op(B)
/// is k x n, C is m x n; leading dimensions in elements.
void sgemm(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc);
void dgemm(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k,
           double alpha, const double *a, int64_t lda, const double *b,
           int64_t ldb, double beta, double *c, int64_t ldc);

/// The portable implementation (packed panels of op(B), rows of C split
/// across hardware threads); what sgemm/dgemm run without OpenBLAS.
void portableSgemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                   int64_t k, float alpha, const float *a, int64_t lda,
                   const float *b, int64_t ldb, float beta, float *c,
                   int64_t ldc);
void portableDgemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                   int64_t k, double alpha, const double *a, int64_t lda,
                   const double *b, int64_t ldb, double beta, double *c,
                   int64_t ldc);

/// "OpenBLAS GEMM" or "portable GEMM, built without OpenBLAS": what
/// sgemm/dgemm run on (part of the host device's description, the one-line
/// notice of a build without OpenBLAS).
const char *blasName();

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTBLAS_H
