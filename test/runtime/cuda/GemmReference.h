//===- GemmReference.h - CPU reference GEMMs for the cuda tests -*- C++ -*-===//

#ifndef TFC_TEST_RUNTIME_CUDA_GEMMREFERENCE_H
#define TFC_TEST_RUNTIME_CUDA_GEMMREFERENCE_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/cuda/GemmMapping.h"

#include <cstdint>
#include <vector>

namespace tfc::rt::cuda::testing {

/// Elements a row-major operand spans: the last batch entry's last element
/// plus one.
inline int64_t spanA(const GemmDesc &g) {
  int64_t rows = g.transposeA ? g.k : g.m, cols = g.transposeA ? g.m : g.k;
  return (g.batch - 1) * g.strideA + (rows - 1) * g.lda + cols;
}
inline int64_t spanB(const GemmDesc &g) {
  int64_t rows = g.transposeB ? g.n : g.k, cols = g.transposeB ? g.k : g.n;
  return (g.batch - 1) * g.strideB + (rows - 1) * g.ldb + cols;
}
inline int64_t spanC(const GemmDesc &g) {
  return (g.batch - 1) * g.strideC + (g.m - 1) * g.ldc + g.n;
}

/// C[b] = alpha op(A[b]) op(B[b]) + beta C[b] by the row-major definition of
/// GemmDesc (Artifact.h), in double.
inline void rowMajorGemm(const GemmDesc &g, const std::vector<double> &a,
                         const std::vector<double> &b, std::vector<double> &c) {
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          double x = g.transposeA ? a[t * g.strideA + p * g.lda + i]
                                  : a[t * g.strideA + i * g.lda + p];
          double y = g.transposeB ? b[t * g.strideB + j * g.ldb + p]
                                  : b[t * g.strideB + p * g.ldb + j];
          sum += x * y;
        }
        double &out = c[t * g.strideC + i * g.ldc + j];
        out = g.alpha * sum + (g.beta == 0 ? 0 : g.beta * out);
      }
}

/// D = alpha op(A) op(B) + beta C by cuBLASLt's column-major definition:
/// element (r, s) of a matrix with leading dimension ld is at s * ld + r.
inline void columnMajorGemm(const ColumnMajorGemm &g,
                            const std::vector<double> &a,
                            const std::vector<double> &b,
                            std::vector<double> &c, double alpha, double beta) {
  for (int64_t t = 0; t < g.batch; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          // op(A)(i, p): A is m x k, or k x m when transposed.
          double x = g.transA ? a[t * g.a.batchStride + i * g.a.ld + p]
                              : a[t * g.a.batchStride + p * g.a.ld + i];
          double y = g.transB ? b[t * g.b.batchStride + p * g.b.ld + j]
                              : b[t * g.b.batchStride + j * g.b.ld + p];
          sum += x * y;
        }
        double &out = c[t * g.c.batchStride + j * g.c.ld + i];
        out = alpha * sum + (beta == 0 ? 0 : beta * out);
      }
}

/// C[i][j] += bias[j] for the row-major result of a batch-1 GemmDesc: the
/// bias epilogue's add, over C's columns.
inline void rowMajorBias(const GemmDesc &g, const std::vector<double> &bias,
                         std::vector<double> &c) {
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j)
      c[i * g.ldc + j] += bias[j];
}

/// D(r, s) += bias[r] by cuBLASLt's definition of CUBLASLT_EPILOGUE_BIAS
/// (the bias vector runs over D's rows), batch 1.
inline void columnMajorBias(const ColumnMajorGemm &g,
                            const std::vector<double> &bias,
                            std::vector<double> &c) {
  for (int64_t s = 0; s < g.n; ++s)
    for (int64_t r = 0; r < g.m; ++r)
      c[s * g.c.ld + r] += bias[r];
}

/// The dgelu epilogue on the row-major result of a batch-1 GemmDesc:
/// C[i][j] = grad(C[i][j], aux[i][j]) (aux laid out like C, ld ldc); with
/// `dbias`, also dgelu_bgrad's bias gradient dbias[j] = sum over i of
/// C[i][j], rows in order.
template <class Grad>
inline void rowMajorDGelu(const GemmDesc &g, const std::vector<double> &aux,
                          Grad grad, std::vector<double> &c,
                          std::vector<double> *dbias) {
  if (dbias)
    dbias->assign(size_t(g.n), 0.0);
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double &out = c[i * g.ldc + j];
      out = grad(out, aux[i * g.ldc + j]);
      if (dbias)
        (*dbias)[j] += out;
    }
}

/// The same by cuBLASLt's definition of CUBLASLT_EPILOGUE_DGELU(_BGRAD),
/// batch 1: D(r, s) = grad(D(r, s), aux(r, s)) with aux(r, s) at
/// s * auxLd + r, and the bias gradient over D's rows, dbias[r] = sum over s
/// of D(r, s), columns in order.
template <class Grad>
inline void columnMajorDGelu(const ColumnMajorGemm &g,
                             const std::vector<double> &aux, Grad grad,
                             std::vector<double> &c,
                             std::vector<double> *dbias) {
  if (dbias)
    dbias->assign(size_t(g.m), 0.0);
  for (int64_t s = 0; s < g.n; ++s)
    for (int64_t r = 0; r < g.m; ++r) {
      double &out = c[s * g.c.ld + r];
      out = grad(out, aux[s * g.auxLd + r]);
      if (dbias)
        (*dbias)[r] += out;
    }
}

} // namespace tfc::rt::cuda::testing

#endif // TFC_TEST_RUNTIME_CUDA_GEMMREFERENCE_H
