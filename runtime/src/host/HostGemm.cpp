//===- HostGemm.cpp - strided-batched GEMM on the host --------------------===//
//
// Row-major BLAS calls (HostBlas.h: OpenBLAS or the portable GEMM), one per
// batch entry. Batch strides of 0 broadcast an
// operand, which costs nothing here: the same pointer is passed again.
// 16-bit operands are widened once for the whole call, so every batch entry
// runs the fast f32 kernel.
//
// An epilogue walks C once, row by row while the row is in cache, and calls
// the interpreter's functions in the order an add kernel and a relu or gelu
// kernel would: round P to c_type, add the bias (if any), round, store aux,
// apply the activation (if any), store C. The backward epilogues load the
// aux row (the GELU input) as a gelu_grad kernel loads its operand, apply
// the interpreter's gelu_grad and round as it stores C; dgelu_bgrad then
// sums the rounded C exactly as the unfused reduce_sum kernel does
// (columnSumValues: same accumulator type, row order and final rounding).
// Restating any of those formulas here would let the fused and unfused
// programs drift apart by an ulp (or, for relu, in the sign of a zero or a
// NaN).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostGemm.h"

#include "runtime/src/host/HostBlas.h"
#include "runtime/src/host/HostKernels.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tfc::rt::host {

namespace {

bool isF32Family(DType d) {
  return d == DType::F32 || d == DType::F16 || d == DType::BF16;
}

/// Elements spanned by `batch` matrices of `rows` x `cols` with leading
/// dimension `ld` and batch stride `stride`; -1 on overflow.
int64_t span(int64_t batch, int64_t stride, int64_t rows, int64_t cols,
             int64_t ld) {
  if (rows == 0 || cols == 0)
    return 0;
  int64_t a, b, s;
  if (__builtin_mul_overflow(batch - 1, stride, &a) ||
      __builtin_mul_overflow(rows - 1, ld, &b) ||
      __builtin_add_overflow(a, b, &s) || __builtin_add_overflow(s, cols, &s))
    return -1;
  return s;
}

template <typename T>
void widen(DType dtype, const void *src, int64_t n, std::vector<T> &buf) {
  buf.resize(n);
  loadStorage(dtype, src, buf.data(), n);
}

/// Applies `g`'s epilogue to the m x n product in `p` (compute type T, rows
/// ldc apart; it may be C itself when c_type is T) and stores the rows of C
/// in c_type storage. `bias` holds the n compute-type values of a bias the
/// epilogue reads, or is null; `aux` (c_type storage laid out like C) is
/// written with pre or read as the GELU input x, as epilogueAux says, and
/// null without aux; `biasGrad` (n c_type elements) receives C's column sums
/// when the epilogue writes its bias, and is null otherwise.
template <typename T>
void applyEpilogue(const GemmDesc &g, T *p, const T *bias, void *aux, void *c,
                   void *biasGrad) {
  const int64_t n = g.n;
  const int64_t rowBytes = g.ldc * dtypeSize(g.cType);
  const GemmActivation activation = epilogueActivation(g.epilogue);
  const bool auxWritten = epilogueAux(g.epilogue) == EpilogueOperand::Written;
  std::vector<T> x(activation == GemmActivation::GeluTanhGrad &&
                           dtypeSize(g.cType) != sizeof(T)
                       ? n
                       : 0);
  // Each step reads `cur` and writes `spare`, then they swap: the element
  // loops vectorize only when their output does not alias an input (GCC's
  // runtime overlap check sends y == x to the scalar loop, which made the
  // GELU epilogue slower than a separate GELU kernel).
  std::vector<T> scratch(n);
  for (int64_t r = 0; r < g.m; ++r) {
    T *row = p + r * g.ldc;
    T *cur = row, *spare = scratch.data();
    uint8_t *auxRow =
        aux ? static_cast<uint8_t *>(aux) + r * rowBytes : nullptr;
    // P as the plain GEMM stores it (and an add, activation or gelu_grad
    // kernel would load it).
    roundToDType(g.cType, cur, n);
    // pre = P + bias: the add kernel's op and its rounding.
    if (bias) {
      addValues(cur, bias, spare, n);
      std::swap(cur, spare);
      roundToDType(g.cType, cur, n);
    }
    if (auxWritten)
      storeStorage(g.cType, cur, auxRow, n);
    // The activation of the stored pre (or the gradient with pre as dy);
    // storing rounds it as the relu, gelu or gelu_grad kernel does.
    switch (activation) {
    case GemmActivation::None:
      break;
    case GemmActivation::Relu:
      reluValues(cur, spare, n);
      std::swap(cur, spare);
      break;
    case GemmActivation::GeluTanh:
      geluTanhValues(cur, spare, n);
      std::swap(cur, spare);
      break;
    case GemmActivation::GeluTanhGrad: {
      // x as the gelu_grad kernel loads its second operand (read in place
      // when stored in the compute type).
      const T *xs = reinterpret_cast<const T *>(auxRow);
      if (dtypeSize(g.cType) != sizeof(T)) {
        loadStorage(g.cType, auxRow, x.data(), n);
        xs = x.data();
      }
      geluGradTanhValues(cur, xs, spare, n);
      std::swap(cur, spare);
      break;
    }
    }
    // The rounded C goes back to `row`: what a reduce_sum kernel would load.
    if (biasGrad)
      roundToDType(g.cType, cur, n);
    uint8_t *cRow = static_cast<uint8_t *>(c) + r * rowBytes;
    if (static_cast<void *>(cur) != static_cast<void *>(cRow))
      storeStorage(g.cType, cur, cRow, n);
    if (biasGrad && cur != row && static_cast<void *>(row) != cRow)
      std::copy(cur, cur + n, row);
  }
  if (!biasGrad)
    return;
  // The bias gradient: the unfused reduce_sum over the rows, bit for bit.
  std::vector<T> sums(n);
  columnSumValues(p, g.m, n, g.ldc, sums.data());
  roundToDType(g.cType, sums.data(), n);
  storeStorage(g.cType, sums.data(), biasGrad, n);
}

} // namespace

Status validateGemm(const GemmDesc &g, GemmExtents &ext) {
  auto bad = [](const std::string &m) { return Status::error("gemm: " + m); };
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch < 1)
    return bad("m, n, k must be >= 0 and batch >= 1 (m=" + std::to_string(g.m) +
               " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
               " batch=" + std::to_string(g.batch) + ")");
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldc})
    if (v > INT_MAX)
      return bad("a size or leading dimension exceeds the BLAS int range");
  int64_t rowsA = g.transposeA ? g.k : g.m, colsA = g.transposeA ? g.m : g.k;
  int64_t rowsB = g.transposeB ? g.n : g.k, colsB = g.transposeB ? g.k : g.n;
  if (g.lda < std::max<int64_t>(1, colsA))
    return bad("lda " + std::to_string(g.lda) + " < " + std::to_string(colsA));
  if (g.ldb < std::max<int64_t>(1, colsB))
    return bad("ldb " + std::to_string(g.ldb) + " < " + std::to_string(colsB));
  if (g.ldc < std::max<int64_t>(1, g.n))
    return bad("ldc " + std::to_string(g.ldc) + " < " + std::to_string(g.n));
  if (g.strideA < 0 || g.strideB < 0 || g.strideC < 0)
    return bad("negative batch stride");
  if (g.batch > 1 && g.strideC == 0 && g.m > 0 && g.n > 0)
    return bad("stride_c 0 with batch > 1 writes one C several times");
  bool f64 =
      g.aType == DType::F64 && g.bType == DType::F64 && g.cType == DType::F64;
  bool f32 =
      isF32Family(g.aType) && isF32Family(g.bType) && isF32Family(g.cType);
  if (!f64 && !f32)
    return bad(std::string("unsupported dtypes a=") + dtypeName(g.aType) +
               " b=" + dtypeName(g.bType) + " c=" + dtypeName(g.cType));
  // tf32 (TF32 tensor cores on a GPU) is computed in full f32 here: the
  // host has no TF32 arithmetic, and f32 is what TF32 approximates.
  if (g.computeType != "f32" && g.computeType != "f64" &&
      g.computeType != "tf32")
    return bad("unsupported compute_type '" + g.computeType + "'");
  if (g.computeType == "tf32" && !(g.aType == DType::F32 &&
                                   g.bType == DType::F32))
    return bad("compute_type tf32 needs f32 operands");
  if (g.computeType == "f64" && !f64)
    return bad("compute_type f64 needs f64 operands");
  if (g.epilogue != GemmEpilogue::None) {
    std::string e = std::string("epilogue '") + gemmEpilogueName(g.epilogue);
    if (g.batch != 1)
      return bad(e + "' needs batch 1 (batch=" + std::to_string(g.batch) + ")");
    if (g.beta != 0.0)
      return bad(e + "' needs beta 0 (an epilogue never accumulates into C)");
  }
  int64_t ea = span(g.batch, g.strideA, rowsA, colsA, g.lda);
  int64_t eb = span(g.batch, g.strideB, rowsB, colsB, g.ldb);
  int64_t ec = span(g.batch, g.strideC, g.m, g.n, g.ldc);
  if (ea < 0 || eb < 0 || ec < 0 || ea > (INT64_MAX / 8) ||
      eb > (INT64_MAX / 8) || ec > (INT64_MAX / 8))
    return bad("operand extent overflows");
  ext.a = ea * dtypeSize(g.aType);
  ext.b = eb * dtypeSize(g.bType);
  ext.c = ec * dtypeSize(g.cType);
  // aux is laid out like C (batch 1), the bias (or its gradient) is one row
  // of n.
  ext.bias = epilogueHasBias(g.epilogue) ? g.n * dtypeSize(g.cType) : 0;
  ext.aux = epilogueHasAux(g.epilogue) ? ext.c : 0;
  return Status::ok();
}

Status runGemm(const GemmDesc &g, const void *a, const void *b, void *c,
               void *bias, void *aux) {
  GemmExtents ext;
  TFC_RETURN_IF_ERROR(validateGemm(g, ext));
  if (g.m == 0 || g.n == 0) {
    // No rows: the bias gradient is the sum of none, +0.0 (all bits zero in
    // every float storage type), as a reduce_sum over an empty dim gives.
    if (g.n > 0 && bias && epilogueBias(g.epilogue) == EpilogueOperand::Written)
      std::memset(bias, 0, size_t(g.n) * dtypeSize(g.cType));
    return Status::ok();
  }
  bool ta = g.transposeA, tb = g.transposeB;
  int64_t m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb, ldc = g.ldc;
  bool epilogue = g.epilogue != GemmEpilogue::None;
  if ((epilogueHasBias(g.epilogue) && !bias) ||
      (epilogueHasAux(g.epilogue) && !aux))
    return Status::error(std::string("gemm: epilogue '") +
                         gemmEpilogueName(g.epilogue) +
                         "' without its bias or aux operand");
  if (!epilogueHasBias(g.epilogue))
    bias = nullptr;
  if (!epilogueHasAux(g.epilogue))
    aux = nullptr;
  // A written bias is the bias gradient, an output; a read one an input.
  void *biasGrad = nullptr;
  if (epilogueBias(g.epilogue) == EpilogueOperand::Written) {
    biasGrad = bias;
    bias = nullptr;
  }

  if (g.aType == DType::F64) {
    auto *A = static_cast<const double *>(a);
    auto *B = static_cast<const double *>(b);
    auto *C = static_cast<double *>(c);
    for (int64_t i = 0; i < g.batch; ++i)
      dgemm(ta, tb, m, n, k, g.alpha, A + i * g.strideA,
                  lda, B + i * g.strideB, ldb, g.beta, C + i * g.strideC, ldc);
    if (epilogue)
      applyEpilogue(g, C, static_cast<const double *>(bias), aux, c, biasGrad);
    return Status::ok();
  }

  // f32 family: widen 16-bit operands (and a 16-bit C that beta reads).
  std::vector<float> wa, wb, wc, wbias;
  const float *A = static_cast<const float *>(a);
  const float *B = static_cast<const float *>(b);
  float *C = static_cast<float *>(c);
  if (g.aType != DType::F32) {
    widen(g.aType, a, ext.a / 2, wa);
    A = wa.data();
  }
  if (g.bType != DType::F32) {
    widen(g.bType, b, ext.b / 2, wb);
    B = wb.data();
  }
  if (g.cType != DType::F32) {
    if (g.beta != 0.0)
      widen(g.cType, c, ext.c / 2, wc);
    else
      wc.assign(ext.c / 2, 0.0f);
    C = wc.data();
  }
  for (int64_t i = 0; i < g.batch; ++i)
    sgemm(ta, tb, m, n, k, float(g.alpha),
                A + i * g.strideA, lda, B + i * g.strideB, ldb, float(g.beta),
                C + i * g.strideC, ldc);
  if (epilogue) {
    // The bias as an add kernel loads it: widened once, not per row.
    const float *biasValues = static_cast<const float *>(bias);
    if (bias && g.cType != DType::F32) {
      widen(g.cType, bias, n, wbias);
      biasValues = wbias.data();
    }
    applyEpilogue(g, C, biasValues, aux, c, biasGrad);
    return Status::ok();
  }
  if (g.cType != DType::F32) {
    // Store back only the m x n entries of each C: padding between rows
    // (ldc > n) belongs to the caller and stays untouched.
    auto *out = static_cast<uint8_t *>(c);
    for (int64_t i = 0; i < g.batch; ++i)
      for (int64_t r = 0; r < g.m; ++r) {
        int64_t off = i * g.strideC + r * g.ldc;
        storeStorage(g.cType, C + off, out + off * 2, g.n);
      }
  }
  return Status::ok();
}

} // namespace tfc::rt::host
