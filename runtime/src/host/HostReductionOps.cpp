//===- HostReductionOps.cpp - reductions, norms, softmax, losses, gather
//---===//
//
// Row ops work one row at a time on contiguous memory, accumulating in the
// accumulation type (float for f32/f16/bf16, double for f64), with the row
// primitives of HostRowMath.h (sums in eight lanes). Statistics follow
// PyTorch: biased variance, eps inside the square root, max subtracted
// before exp, cross-entropy's mean over rows that are not ignored.
//
// Indices (embedding ids, labels) are runtime data: an out-of-range one is
// an error, as in PyTorch, never an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostMath.h"
#include "runtime/src/host/HostRowMath.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tfc::rt::host {

namespace {

/// Copies a float operand of another compute kind into `tmp` as T.
template <typename T>
const T *asKind(const void *p, DType dtype, int64_t n, std::vector<T> &tmp) {
  if (!p)
    return nullptr;
  ComputeKind k = computeKind(dtype);
  if ((k == ComputeKind::Float && std::is_same_v<T, float>) ||
      (k == ComputeKind::Double && std::is_same_v<T, double>))
    return static_cast<const T *>(p);
  tmp.resize(n);
  for (int64_t i = 0; i < n; ++i)
    tmp[i] = k == ComputeKind::Float ? T(static_cast<const float *>(p)[i])
                                     : T(static_cast<const double *>(p)[i]);
  return tmp.data();
}

template <typename T>
Status reduce(const HostProgram &prog, const HostOp &op, const T *x, T *y) {
  const ValueType &xt = prog.values[op.operands[0]];
  const ValueType &yt = prog.values[op.results[0]];
  int64_t rank = (int64_t)xt.shape.size();
  std::vector<bool> red(rank, false);
  int64_t count = 1;
  for (int64_t d : op.ints0) {
    red[d] = true;
    count *= xt.shape[d];
  }
  bool isMax = op.code == OpCode::ReduceMax;
  if (isMax && count == 0 && yt.numel > 0)
    return Status::error(opContext(op) + "reduce_max over an empty dimension");
  // Trailing dims reduced: one contiguous row per output element.
  bool trailing = true;
  for (int64_t d = 0; d < rank; ++d)
    if (red[d] != (d >= rank - (int64_t)op.ints0.size()))
      trailing = false;
  // Every dim but the last reduced (a column reduction: a bias gradient):
  // the named columnSumValues, which the GEMM dgelu_bgrad epilogue calls too.
  // It adds the rows in the order the general walk below would.
  bool columns = rank >= 2 && (int64_t)op.ints0.size() == rank - 1 &&
                 !red[rank - 1];
  if constexpr (std::is_floating_point_v<T>) {
    if (columns && !isMax) {
      int64_t cols = xt.shape[rank - 1];
      columnSumValues(x, cols == 0 ? 0 : xt.numel / cols, cols, cols, y);
      if (op.code == OpCode::ReduceMean)
        for (int64_t i = 0; i < yt.numel; ++i)
          y[i] = y[i] / T(count);
      roundToDType(yt.dtype, y, yt.numel);
      return Status::ok();
    }
  }
  if (trailing) {
    for (int64_t r = 0; r < yt.numel; ++r)
      y[r] =
          isMax ? rowMax(x + r * count, count) : rowSum(x + r * count, count);
  } else {
    // General case: walk x in row-major order and accumulate into the
    // output element each input element belongs to (stride 0 along reduced
    // dims). Every output sums its inputs in a fixed order: deterministic.
    std::vector<int64_t> st(rank, 0);
    int64_t acc = 1;
    for (int64_t d = rank - 1; d >= 0; --d)
      if (!red[d]) {
        st[d] = acc;
        acc *= xt.shape[d];
      }
    std::fill(y, y + yt.numel, isMax ? maxInit<T>() : T(0));
    forEachRun(xt.shape, st, 0, 0, xt.numel,
               [&](int64_t k, int64_t off, int64_t cnt, int64_t s) {
                 for (int64_t j = 0; j < cnt; ++j) {
                   T &o = y[off + j * s];
                   if (isMax)
                     o = maxStep(o, x[k + j]);
                   else if constexpr (std::is_integral_v<T>)
                     o = T(uint64_t(o) + uint64_t(x[k + j]));
                   else
                     o += x[k + j];
                 }
               });
  }
  if (op.code == OpCode::ReduceMean)
    for (int64_t i = 0; i < yt.numel; ++i)
      y[i] = y[i] / T(count);
  roundToDType(yt.dtype, y, yt.numel);
  return Status::ok();
}

/// softmax / log_softmax of one contiguous row, in place in `y`.
template <typename T> void softmaxRow(const T *x, T *y, int64_t n, bool log) {
  T m = rowMax(x, n);
  T s = expShiftedRow(x, m, y, n);
  if (log) {
    T lse = std::log(s);
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] - m - lse;
  } else {
    T inv = T(1) / s;
    for (int64_t i = 0; i < n; ++i)
      y[i] *= inv;
  }
}

template <typename T>
void softmax(const HostProgram &prog, const HostOp &op, const T *x, T *y) {
  const ValueType &xt = prog.values[op.operands[0]];
  int64_t len = xt.shape[op.dim], inner = 1;
  for (size_t d = op.dim + 1; d < xt.shape.size(); ++d)
    inner *= xt.shape[d];
  int64_t outer = len * inner == 0 ? 0 : xt.numel / (len * inner);
  bool log = op.code == OpCode::LogSoftmax;
  std::vector<T> in(inner == 1 ? 0 : len), out(inner == 1 ? 0 : len);
  for (int64_t o = 0; o < outer; ++o) {
    const T *xo = x + o * len * inner;
    T *yo = y + o * len * inner;
    if (inner == 1) {
      softmaxRow(xo, yo, len, log);
      continue;
    }
    // A non-last dim: gather each strided row, compute, scatter back.
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < len; ++j)
        in[j] = xo[j * inner + i];
      softmaxRow(in.data(), out.data(), len, log);
      for (int64_t j = 0; j < len; ++j)
        yo[j * inner + i] = out[j];
    }
  }
  roundToDType(xt.dtype, y, xt.numel);
}

template <typename T>
void norm(const HostProgram &prog, const HostOp &op,
          const std::vector<const void *> &in, const std::vector<void *> &res) {
  const ValueType &xt = prog.values[op.operands[0]];
  bool ln = op.code == OpCode::LayerNorm;
  int64_t len = 1;
  for (size_t d = xt.shape.size() - op.normalizedRank; d < xt.shape.size(); ++d)
    len *= xt.shape[d];
  int64_t rows = len == 0 ? 0 : xt.numel / len;
  std::vector<T> wt, bt;
  auto dtypeOf = [&](size_t i) {
    return op.operands[i] < 0 ? DType::F32 : prog.values[op.operands[i]].dtype;
  };
  const T *x = static_cast<const T *>(in[0]);
  const T *w = asKind<T>(in[1], dtypeOf(1), len, wt);
  const T *b = ln ? asKind<T>(in[2], dtypeOf(2), len, bt) : nullptr;
  T *y = static_cast<T *>(res[0]);
  T *mean = ln ? static_cast<T *>(res[1]) : nullptr;
  T *rstd = static_cast<T *>(res[ln ? 2 : 1]);
  T eps = T(op.eps);
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * len;
    T *yr = y + r * len;
    T mu = T(0), var;
    if (ln) {
      mu = rowSum(xr, len) / T(len);
      // Two passes (mean, then squared deviations): exact enough for any
      // offset, unlike E[x^2] - E[x]^2.
      for (int64_t i = 0; i < len; ++i)
        yr[i] = (xr[i] - mu) * (xr[i] - mu);
    } else {
      for (int64_t i = 0; i < len; ++i)
        yr[i] = xr[i] * xr[i];
    }
    var = rowSum(yr, len) / T(len);
    T rs = T(1) / std::sqrt(var + eps);
    for (int64_t i = 0; i < len; ++i) {
      T v = (xr[i] - mu) * rs;
      if (w)
        v = v * w[i];
      if (b)
        v = v + b[i];
      yr[i] = v;
    }
    if (mean)
      mean[r] = mu;
    rstd[r] = rs;
  }
  roundToDType(xt.dtype, y, xt.numel);
}

template <typename T>
Status crossEntropy(const HostProgram &prog, const HostOp &op, const T *x,
                    const int64_t *labels, T *out) {
  const ValueType &xt = prog.values[op.operands[0]];
  int64_t rows = xt.shape[0], classes = xt.shape[1];
  T e = T(op.labelSmoothing);
  T total = T(0);
  int64_t counted = 0;
  std::vector<T> exps(classes);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t label = labels[r];
    if (label == op.ignoreIndex)
      continue;
    if (Status s = checkClassLabel(op, label, r, classes); !s)
      return s;
    const T *xr = x + r * classes;
    T m = rowMax(xr, classes);
    T s = expShiftedRow(xr, m, exps.data(), classes);
    T lse = m + std::log(s);
    T loss = -(xr[label] - lse);
    if (op.labelSmoothing != 0.0) {
      // sum_c lp[c] = sum_c x[c] - C * lse.
      T sumLp = rowSum(xr, classes) - T(classes) * lse;
      loss = (T(1) - e) * loss - (e / T(classes)) * sumLp;
    }
    total += loss;
    ++counted;
  }
  // Mean over the rows not ignored; 0/0 = NaN when all are, as in PyTorch.
  *out = op.reductionMean ? total / T(counted) : total;
  return Status::ok();
}

template <typename T>
Status embedding(const HostProgram &prog, const HostOp &op, const T *table,
                 const int64_t *ids, T *out) {
  const ValueType &tt = prog.values[op.operands[0]];
  const ValueType &it = prog.values[op.operands[1]];
  int64_t vocab = tt.shape[0], width = tt.shape[1];
  for (int64_t i = 0; i < it.numel; ++i) {
    int64_t id = ids[i];
    if (id < 0 || id >= vocab)
      return Status::error(opContext(op) + "id " + std::to_string(id) +
                           " at position " + std::to_string(i) +
                           " is outside [0, " + std::to_string(vocab) + ")");
    std::memcpy(out + i * width, table + id * width, width * sizeof(T));
  }
  return Status::ok();
}

template <typename T>
Status runTyped(const HostProgram &prog, const HostOp &op,
                const std::vector<const void *> &in,
                const std::vector<void *> &res) {
  auto x = static_cast<const T *>(in[0]);
  auto y = static_cast<T *>(res[0]);
  switch (op.code) {
  case OpCode::ReduceSum:
  case OpCode::ReduceMean:
  case OpCode::ReduceMax:
    return reduce(prog, op, x, y);
  case OpCode::Softmax:
  case OpCode::LogSoftmax:
    if constexpr (!std::is_integral_v<T>)
      softmax(prog, op, x, y);
    return Status::ok();
  case OpCode::LayerNorm:
  case OpCode::RmsNorm:
    if constexpr (!std::is_integral_v<T>)
      norm<T>(prog, op, in, res);
    return Status::ok();
  case OpCode::CrossEntropy:
    if constexpr (!std::is_integral_v<T>)
      return crossEntropy(prog, op, x, static_cast<const int64_t *>(in[1]), y);
    return Status::ok();
  case OpCode::Embedding:
    return embedding(prog, op, x, static_cast<const int64_t *>(in[1]), y);
  default:
    return Status::error(opContext(op) + "not a reduction op");
  }
}

template <typename T>
void columnSum(const T *x, int64_t rows, int64_t cols, int64_t ld, T *y) {
  std::fill(y, y + cols, T(0));
  for (int64_t r = 0; r < rows; ++r) {
    const T *row = x + r * ld;
    for (int64_t j = 0; j < cols; ++j)
      y[j] += row[j];
  }
}

} // namespace

void columnSumValues(const float *x, int64_t rows, int64_t cols, int64_t ld,
                     float *y) {
  columnSum(x, rows, cols, ld, y);
}

void columnSumValues(const double *x, int64_t rows, int64_t cols, int64_t ld,
                     double *y) {
  columnSum(x, rows, cols, ld, y);
}

Status runReductionOp(const HostProgram &prog, const HostOp &op,
                      const std::vector<const void *> &operands,
                      const std::vector<void *> &results) {
  switch (computeKind(prog.values[op.operands[0]].dtype)) {
  case ComputeKind::Float:
    return runTyped<float>(prog, op, operands, results);
  case ComputeKind::Double:
    return runTyped<double>(prog, op, operands, results);
  case ComputeKind::Int:
    return runTyped<int64_t>(prog, op, operands, results);
  }
  return Status::ok();
}

} // namespace tfc::rt::host
