//===- HostKernels.h - the interpreter's op implementations -----*- C++ -*-===//
//
// The numerical kernels of the host interpreter. Every value is held in its
// compute type while a program runs (float for f32/f16/bf16, double for f64,
// int64_t for i1/i32/i64); 16-bit and i32 results are rounded back to their
// dtype after every op (roundToDType), so each op sees exactly the values a
// PyTorch op on tensors of that dtype would see.
//
// Pointwise ops run on contiguous chunks of their result (runPointwiseOp);
// all other ops on whole tensors (runWholeOp): reductions and row ops row by
// row, shape ops as strided copies.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTKERNELS_H
#define TFC_RUNTIME_HOST_HOSTKERNELS_H

#include "runtime/src/host/HostProgram.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tfc::rt::host {

/// Bytes of one element in its compute type.
inline int64_t computeSize(DType dtype) {
  return computeKind(dtype) == ComputeKind::Float ? 4 : 8;
}

/// Row-major strides (in elements) of `shape`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);

/// Strides of a tensor of shape `from` read as a tensor of the broadcast shape
/// `to` (numpy rule): 0 along broadcast dimensions.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &from,
                                      const std::vector<int64_t> &to);

/// Visits the row-major linear range [start, start + n) of the iteration space
/// `shape` in runs along its innermost dimension. For each run it calls
/// `fn(k, offset, count, stride)`: range elements k .. k+count-1 map to
/// offsets offset, offset + stride, ... of a tensor addressed by `strides`
/// from `base`. Dimensions are collapsed first, so runs are as long as the
/// layout allows.
template <typename Fn>
void forEachRun(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &strides, int64_t base,
                int64_t start, int64_t n, Fn &&fn) {
  if (n <= 0)
    return;
  // Collapse: drop size-1 dims, merge a dim into its inner neighbour when
  // their strides make them one contiguous dimension.
  int64_t sh[32], st[32];
  int r = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (r > 0 && st[r - 1] == strides[d] * shape[d]) {
      sh[r - 1] *= shape[d];
      st[r - 1] = strides[d];
      continue;
    }
    sh[r] = shape[d];
    st[r] = strides[d];
    ++r;
  }
  if (r == 0) {
    fn(int64_t(0), base, int64_t(1), int64_t(0));
    return;
  }
  int64_t idx[32];
  int64_t rem = start, off = base;
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = rem % sh[d];
    rem /= sh[d];
    off += idx[d] * st[d];
  }
  int64_t k = 0;
  while (true) {
    int64_t cnt = std::min(sh[r - 1] - idx[r - 1], n - k);
    fn(k, off, cnt, st[r - 1]);
    k += cnt;
    if (k >= n)
      return;
    // The run reached the end of the innermost dimension: carry outwards.
    off -= idx[r - 1] * st[r - 1];
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {
      ++idx[d];
      off += st[d];
      if (idx[d] < sh[d])
        break;
      off -= sh[d] * st[d];
      idx[d] = 0;
    }
  }
}

/// dst[i] = src[offset of element start + i of `shape` under `strides`],
/// for i < n. `elemBytes` is 4 or 8 (compute types).
void gatherStrided(const void *src, void *dst, int64_t elemBytes,
                   const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &strides, int64_t base,
                   int64_t start, int64_t n);

/// Converts `n` elements of storage dtype `dtype` at `src` to compute type.
void loadStorage(DType dtype, const void *src, void *dst, int64_t n);
/// Converts `n` compute-type elements at `src` to storage dtype `dtype`.
void storeStorage(DType dtype, const void *src, void *dst, int64_t n);
/// Rounds compute-type values to what `dtype` can hold: f16/bf16 round to
/// nearest even, i32 wraps, i1 becomes 0/1; no-op for f32/f64/i64.
void roundToDType(DType dtype, void *data, int64_t n);

/// tfc.add of n aligned compute-type values, unrounded: y[i] = a[i] + b[i]
/// (y may be a or b). The interpreter's add runs exactly this, and so does
/// the GEMM bias epilogue (HostGemm.cpp), which is therefore bit-identical
/// to an add kernel.
void addValues(const float *a, const float *b, float *y, int64_t n);
void addValues(const double *a, const double *b, double *y, int64_t n);
/// tfc.relu of n compute-type values: max(x, 0) with NaN propagating (the
/// NaN itself is kept) and -0.0 becoming +0.0, as torch.relu (y may be x).
/// The interpreter's relu runs exactly this, and so does the GEMM relu
/// epilogue.
void reluValues(const float *x, float *y, int64_t n);
void reluValues(const double *x, double *y, int64_t n);
/// tfc.gelu approximate="tanh" of n compute-type values, unrounded:
/// scalar::geluTanh<HostMath> (y may be x). The interpreter's gelu runs
/// exactly this, and so does the GEMM gelu epilogue.
void geluTanhValues(const float *x, float *y, int64_t n);
void geluTanhValues(const double *x, double *y, int64_t n);
/// tfc.gelu_grad approximate="tanh" of n compute-type values, unrounded:
/// dx[i] = scalar::geluTanhGrad<HostMath>(dy[i], x[i]) (dx may be dy or x).
/// The interpreter's gelu_grad runs exactly this, and so do the GEMM dgelu
/// epilogues (HostGemm.cpp).
void geluGradTanhValues(const float *dy, const float *x, float *dx, int64_t n);
void geluGradTanhValues(const double *dy, const double *x, double *dx,
                        int64_t n);
/// tfc.reduce_sum over every dim but the last (a column reduction) of a
/// `rows` x `cols` compute-type matrix whose rows lie `ld` elements apart,
/// unrounded: y[j] = ((0 + x[0][j]) + x[1][j]) + ... + x[rows-1][j], one
/// accumulator per column, rows added in order (y must not overlap x). The
/// interpreter's reduce_sum and reduce_mean over dims [0..rank-2] run
/// exactly this (HostReductionOps.cpp), and so does the GEMM dgelu_bgrad
/// epilogue's bias gradient.
void columnSumValues(const float *x, int64_t rows, int64_t cols, int64_t ld,
                     float *y);
void columnSumValues(const double *x, int64_t rows, int64_t cols, int64_t ld,
                     double *y);

/// Runs a pointwise op (elementwise, compare, select, convert, dropout,
/// random) on elements [start, start + n) of its result. `operands[i]`
/// points at n compute-type values aligned with the result chunk, except
/// the seed and offset of dropout and random (readsScalarOperand), which
/// point at their single value. The result is rounded to its dtype.
Status runPointwiseOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands, void *result,
                      int64_t start, int64_t n);

/// True when runPointwiseOp implements `code`.
bool isPointwiseOp(OpCode code);

/// True when operand `k` of a pointwise op `code` is read as its single
/// value, not elementwise: the 0-d i64 seed and offset of dropout (operands
/// 1, 2) and random (0, 1).
inline bool readsScalarOperand(OpCode code, size_t k) {
  return (code == OpCode::Dropout && k > 0) || code == OpCode::Random;
}

/// Runs any other op on whole tensors: `operands[i]` points at the whole
/// compute-type value (null for an absent optional operand), `results[i]` at
/// whole compute-type result buffers. Results are rounded to their dtypes.
Status runWholeOp(const HostProgram &prog, const HostOp &op,
                  const std::vector<const void *> &operands,
                  const std::vector<void *> &results);

/// Shape ops (reshape, transpose, broadcast_to, slice, concat, pad) and
/// reductions / nn ops; runWholeOp dispatches to them.
Status runShapeOp(const HostProgram &prog, const HostOp &op,
                  const std::vector<const void *> &operands, void *result);
Status runReductionOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands,
                      const std::vector<void *> &results);

/// Optimizer updates (adamw, adam, sgd; HostOptimizerOps.cpp): whole
/// compute-type operands (null for sgd's absent momentum buffer) and results
/// (the new parameter, then the new state), rounded to their dtypes.
Status runOptimizerOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands,
                      const std::vector<void *> &results);

/// Backward row ops (softmax_grad, log_softmax_grad, layer_norm_grad_input,
/// rms_norm_grad_input, cross_entropy_grad; HostGradOps.cpp) on whole
/// compute-type operands (null for an absent weight); the result is rounded.
Status runGradOp(const HostProgram &prog, const HostOp &op,
                 const std::vector<const void *> &operands,
                 const std::vector<void *> &results);

/// sort (HostSortOps.cpp): each row (last dim) of the whole compute-type
/// operand stably sorted under scalar::sortsBefore, into the values (its
/// dtype) and the i64 indices.
Status runSortOp(const HostProgram &prog, const HostOp &op,
                 const std::vector<const void *> &operands,
                 const std::vector<void *> &results);

/// gelu_grad / silu_grad on n aligned compute-type elements (unrounded).
void activationGrad(const HostOp &op, const float *dy, const float *x,
                    float *dx, int64_t n);
void activationGrad(const HostOp &op, const double *dy, const double *x,
                    double *dx, int64_t n);

/// Fills a whole compute buffer with a constant's or iota's values.
void materializeStatic(const HostProgram &prog, const HostOp &op, void *result);

/// "host program line N: op 'name': " prefix for runtime errors.
std::string opContext(const HostOp &op);

/// A row's class label (cross-entropy and its gradient): an error naming
/// the op, the row and the range when `label` is outside [0, classes).
Status checkClassLabel(const HostOp &op, int64_t label, int64_t row,
                       int64_t classes);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTKERNELS_H
