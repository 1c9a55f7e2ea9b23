//===- HostGradOps.cpp - backward ops of host programs --------------------===//
//
// Validation and evaluation of the backward ops that survive to kernels:
// gelu_grad and silu_grad (pointwise, chained like any elementwise op),
// softmax_grad / log_softmax_grad, layer_norm_grad_input /
// rms_norm_grad_input and cross_entropy_grad (row ops on whole tensors),
// embedding_grad (a scatter kernel's op).
// Formulas follow PyTorch's CPU backward kernels; row sums accumulate in the
// accumulation type (float for f32/f16/bf16, double for f64) and each result
// is rounded to its dtype once. embedding_grad is a scatter-add in token
// order. layer_norm_grad and rms_norm_grad are composites: --tfc-decompose
// rewrites them before kernels exist, so they never appear here.
//
//===----------------------------------------------------------------------===//

#include "common/ScalarOps.h"
#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostMath.h"
#include "runtime/src/host/HostOpChecker.h"
#include "runtime/src/host/HostProgramVerify.h"
#include "runtime/src/host/HostRowMath.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tfc::rt::host {

namespace {

/// The rules of one backward op; `problem` holds the first violation.
struct GradChecker : OpChecker {
  using OpChecker::OpChecker;

  bool present(size_t i) const { return op.operands[i] >= 0; }

  /// Operands `a` and `b` are float tensors of one dtype and shape.
  bool sameFloat(size_t a, size_t b) {
    if (!isFloat(in(a).dtype))
      return fail("operand " + std::to_string(a) + " must be a float tensor, " +
                  "got " + typeStr(in(a)));
    if (in(a).dtype != in(b).dtype || in(a).shape != in(b).shape)
      return fail("operands " + std::to_string(a) + " and " +
                  std::to_string(b) + " must have one type, got " +
                  typeStr(in(a)) + " and " + typeStr(in(b)));
    return true;
  }
  /// A two-valued keyword attribute: `isB` tells which.
  bool takeChoice(const char *k, const char *a, const char *b, bool &isB) {
    int index = 0;
    if (!takeKeyword(k, {a, b}, index))
      return false;
    isB = index == 1;
    return true;
  }

  bool check();
  bool checkNormGrad(bool layerNorm);
  bool checkCrossEntropyGrad();
  bool checkEmbeddingGrad();
};

bool GradChecker::checkNormGrad(bool layerNorm) {
  size_t nStats = layerNorm ? 2 : 1, weightIdx = 2 + nStats;
  if (!sameFloat(0, 1) || !takeInt("normalized_rank", op.normalizedRank))
    return false;
  const auto &s = in(1).shape;
  int64_t rank = (int64_t)s.size();
  if (op.normalizedRank < 1 || op.normalizedRank > rank)
    return fail("normalized_rank out of range");
  std::vector<int64_t> stat(s);
  for (int64_t d = rank - op.normalizedRank; d < rank; ++d)
    stat[d] = 1;
  DType acc = accumulationDType(in(1).dtype);
  for (size_t i = 2; i < weightIdx; ++i)
    if (in(i).dtype != acc || in(i).shape != stat)
      return fail("statistics must be " + std::string(dtypeName(acc)) + " " +
                  formatShape(stat) + ", got " + typeStr(in(i)));
  std::vector<int64_t> normShape(s.end() - op.normalizedRank, s.end());
  if (present(weightIdx) &&
      (!isFloat(in(weightIdx).dtype) || in(weightIdx).shape != normShape))
    return fail("weight must be float of shape " + formatShape(normShape) +
                ", got " + typeStr(in(weightIdx)));
  return expectResult(0, in(1).dtype, s);
}

bool GradChecker::checkCrossEntropyGrad() {
  const ValueType &logits = in(1), &labels = in(2);
  if (!isFloat(logits.dtype) || logits.shape.size() != 2)
    return fail("logits must be a 2-d float tensor, got " + typeStr(logits));
  if ((labels.dtype != DType::I32 && labels.dtype != DType::I64) ||
      labels.shape.size() != 1 || labels.shape[0] != logits.shape[0])
    return fail("labels must be 1-d i32/i64 with one label per row, got " +
                typeStr(labels));
  if (in(0).dtype != accumulationDType(logits.dtype) || !in(0).shape.empty())
    return fail("dloss must be a " +
                std::string(dtypeName(accumulationDType(logits.dtype))) +
                " scalar, got " + typeStr(in(0)));
  bool sum = false;
  if (!takeInt("ignore_index", op.ignoreIndex) ||
      !takeFloat("label_smoothing", op.labelSmoothing) ||
      !takeChoice("reduction", "mean", "sum", sum))
    return false;
  op.reductionMean = !sum;
  if (!(op.labelSmoothing >= 0.0 && op.labelSmoothing <= 1.0))
    return fail("label_smoothing must lie in [0, 1]");
  return expectResult(0, logits.dtype, logits.shape);
}

bool GradChecker::checkEmbeddingGrad() {
  const ValueType &dy = in(0), &ids = in(1), &table = res(0);
  if (!isFloat(dy.dtype) || dy.shape.empty())
    return fail("dy must be a float tensor of rank >= 1, got " + typeStr(dy));
  if (!isIndex(ids.dtype))
    return fail("ids must be i32 or i64, got " + typeStr(ids));
  std::vector<int64_t> rows(ids.shape);
  rows.push_back(dy.shape.back());
  if (dy.shape != rows)
    return fail("dy must have shape ids.shape + [D] = " + formatShape(rows) +
                ", got " + typeStr(dy));
  // The table's row count is the result's; its width and dtype are dy's.
  if (table.shape.size() != 2)
    return fail("the result must be a 2-d table [V, D], got " +
                typeStr(table));
  return expectResult(0, dy.dtype, {table.shape[0], dy.shape.back()});
}

bool GradChecker::check() {
  switch (op.code) {
  case OpCode::GeluGrad:
  case OpCode::SiluGrad:
    if (!sameFloat(0, 1))
      return false;
    if (op.code == OpCode::GeluGrad &&
        !takeChoice("approximate", "none", "tanh", op.geluTanh))
      return false;
    return expectResult(0, in(0).dtype, in(0).shape);
  case OpCode::SoftmaxGrad:
  case OpCode::LogSoftmaxGrad: {
    if (!sameFloat(0, 1) || !takeInt("dim", op.dim))
      return false;
    if (!normDim(op.dim, (int64_t)in(0).shape.size()))
      return false;
    return expectResult(0, in(0).dtype, in(0).shape);
  }
  case OpCode::LayerNormGradInput:
    return checkNormGrad(true);
  case OpCode::RmsNormGradInput:
    return checkNormGrad(false);
  case OpCode::CrossEntropyGrad:
    return checkCrossEntropyGrad();
  case OpCode::EmbeddingGrad:
    return checkEmbeddingGrad();
  default:
    return fail("internal: not a backward op");
  }
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// A float operand of either compute kind as T (the weight may be f32 while
/// x is f64, or the reverse).
template <typename T>
const T *asKind(const HostProgram &prog, const HostOp &op, size_t i,
                const void *p, std::vector<T> &tmp) {
  if (!p)
    return nullptr;
  const ValueType &t = prog.values[op.operands[i]];
  bool isDouble = computeKind(t.dtype) == ComputeKind::Double;
  if (isDouble == std::is_same_v<T, double>)
    return static_cast<const T *>(p);
  tmp.resize(t.numel);
  for (int64_t k = 0; k < t.numel; ++k)
    tmp[k] = isDouble ? T(static_cast<const double *>(p)[k])
                      : T(static_cast<const float *>(p)[k]);
  return tmp.data();
}

/// softmax_grad: dx = y * (dy - sum(dy * y)); log_softmax_grad:
/// dx = dy - exp(y) * sum(dy). Rows along `dim` may be strided.
template <typename T>
void softmaxGrad(const HostProgram &prog, const HostOp &op, const T *dy,
                 const T *y, T *dx) {
  const ValueType &t = prog.values[op.operands[0]];
  int64_t len = t.shape[op.dim], inner = 1;
  for (size_t d = op.dim + 1; d < t.shape.size(); ++d)
    inner *= t.shape[d];
  int64_t outer = len * inner == 0 ? 0 : t.numel / (len * inner);
  bool log = op.code == OpCode::LogSoftmaxGrad;
  std::vector<T> tmp(len), g(len), p(len), out(len);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      for (int64_t j = 0; j < len; ++j) {
        g[j] = dy[base + j * inner];
        p[j] = y[base + j * inner];
        tmp[j] = log ? g[j] : g[j] * p[j];
      }
      T s = rowSum(tmp.data(), len);
      for (int64_t j = 0; j < len; ++j)
        dx[base + j * inner] = log ? g[j] - vexp(p[j]) * s : p[j] * (g[j] - s);
    }
  }
  roundToDType(t.dtype, dx, t.numel);
}

/// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * weight
/// (layer_norm; rms_norm has no mean(g) term and xhat = x * rstd).
template <typename T>
void normGrad(const HostProgram &prog, const HostOp &op,
              const std::vector<const void *> &in, T *dx) {
  bool ln = op.code == OpCode::LayerNormGradInput;
  const ValueType &xt = prog.values[op.operands[1]];
  int64_t len = 1;
  for (size_t d = xt.shape.size() - op.normalizedRank; d < xt.shape.size(); ++d)
    len *= xt.shape[d];
  int64_t rows = len == 0 ? 0 : xt.numel / len;
  const T *dy = static_cast<const T *>(in[0]);
  const T *x = static_cast<const T *>(in[1]);
  const T *mean = ln ? static_cast<const T *>(in[2]) : nullptr;
  const T *rstd = static_cast<const T *>(in[ln ? 3 : 2]);
  size_t wi = ln ? 4 : 3;
  std::vector<T> wt;
  const T *w = asKind<T>(prog, op, wi, in[wi], wt);
  std::vector<T> g(len), xhat(len), gx(len);
  for (int64_t r = 0; r < rows; ++r) {
    const T *dyr = dy + r * len, *xr = x + r * len;
    T mu = mean ? mean[r] : T(0), rs = rstd[r];
    for (int64_t i = 0; i < len; ++i) {
      g[i] = w ? dyr[i] * w[i] : dyr[i];
      xhat[i] = (xr[i] - mu) * rs;
      gx[i] = g[i] * xhat[i];
    }
    T a = ln ? rowSum(g.data(), len) / T(len) : T(0);
    T b = rowSum(gx.data(), len) / T(len);
    T *dxr = dx + r * len;
    for (int64_t i = 0; i < len; ++i)
      dxr[i] = rs * (g[i] - a - xhat[i] * b);
  }
  roundToDType(xt.dtype, dx, xt.numel);
}

/// dlogits = dloss * s * (softmax - (1 - e) * onehot - e / C) per row not
/// ignored, zeros for ignored rows; s = 1 / (rows not ignored) for mean.
template <typename T>
Status crossEntropyGrad(const HostProgram &prog, const HostOp &op,
                        const std::vector<const void *> &in, T *dx) {
  const ValueType &xt = prog.values[op.operands[1]];
  int64_t rows = xt.shape[0], classes = xt.shape[1];
  T dloss = *static_cast<const T *>(in[0]);
  const T *x = static_cast<const T *>(in[1]);
  const int64_t *labels = static_cast<const int64_t *>(in[2]);
  int64_t counted = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t label = labels[r];
    if (label == op.ignoreIndex)
      continue;
    if (Status s = checkClassLabel(op, label, r, classes); !s)
      return s;
    ++counted;
  }
  T scale = op.reductionMean ? dloss / T(counted) : dloss;
  T e = T(op.labelSmoothing), uniform = e / T(classes);
  std::vector<T> p(classes);
  for (int64_t r = 0; r < rows; ++r) {
    const T *xr = x + r * classes;
    T *dr = dx + r * classes;
    if (labels[r] == op.ignoreIndex) {
      std::fill(dr, dr + classes, T(0));
      continue;
    }
    T m = rowMax(xr, classes);
    T inv = T(1) / expShiftedRow(xr, m, p.data(), classes);
    for (int64_t c = 0; c < classes; ++c)
      dr[c] = scale * (p[c] * inv - uniform);
    dr[labels[r]] -= scale * (T(1) - e);
  }
  roundToDType(xt.dtype, dx, xt.numel);
  return Status::ok();
}

/// dtable[v] = sum of dy[i] over the positions i with ids[i] == v, added
/// in increasing i from zero in the accumulation type and rounded to the
/// table's dtype once: the order of the CUDA scatter kernel's warp, so both
/// backends give the same bits. Ids outside [0, V) add nothing.
template <typename T>
void embeddingGrad(const HostProgram &prog, const HostOp &op, const T *dy,
                   const int64_t *ids, T *table) {
  const ValueType &tt = prog.values[op.results[0]];
  int64_t vocab = tt.shape[0], width = tt.shape[1];
  int64_t n = prog.values[op.operands[1]].numel;
  std::fill(table, table + tt.numel, T(0));
  for (int64_t i = 0; i < n; ++i) {
    int64_t id = ids[i];
    if (id < 0 || id >= vocab)
      continue;
    T *row = table + id * width;
    const T *src = dy + i * width;
    for (int64_t d = 0; d < width; ++d)
      row[d] += src[d];
  }
  roundToDType(tt.dtype, table, tt.numel);
}

template <typename T>
Status runTyped(const HostProgram &prog, const HostOp &op,
                const std::vector<const void *> &in, T *out) {
  switch (op.code) {
  case OpCode::SoftmaxGrad:
  case OpCode::LogSoftmaxGrad:
    softmaxGrad(prog, op, static_cast<const T *>(in[0]),
                static_cast<const T *>(in[1]), out);
    return Status::ok();
  case OpCode::LayerNormGradInput:
  case OpCode::RmsNormGradInput:
    normGrad(prog, op, in, out);
    return Status::ok();
  case OpCode::CrossEntropyGrad:
    return crossEntropyGrad(prog, op, in, out);
  case OpCode::EmbeddingGrad:
    embeddingGrad(prog, op, static_cast<const T *>(in[0]),
                  static_cast<const int64_t *>(in[1]), out);
    return Status::ok();
  default:
    return Status::error(opContext(op) + "not a whole-tensor backward op");
  }
}

/// gelu'(x) and silu'(x) times dy: the formulas of common/ScalarOps.h
/// (PyTorch's GeluBackward / silu_backward), which CUDA codegen emits too.
template <typename T>
void activationGradT(const HostOp &op, const T *dy, const T *x, T *dx,
                     int64_t n) {
  if (op.code == OpCode::SiluGrad) {
    for (int64_t i = 0; i < n; ++i)
      dx[i] = scalar::siluGrad<HostMath>(dy[i], x[i]);
  } else if (op.geluTanh) {
    geluGradTanhValues(dy, x, dx, n);
  } else {
    for (int64_t i = 0; i < n; ++i)
      dx[i] = scalar::geluErfGrad<HostMath>(dy[i], x[i]);
  }
}

} // namespace

std::string verifyGradOp(const HostProgram &prog, HostOp &op, AttrMap &attrs) {
  GradChecker c(prog, op, attrs);
  c.check();
  return c.problem;
}

// gelu_grad(tanh) has a named entry point: the GEMM dgelu epilogues must
// compute exactly what this op computes (HostKernels.h).
void geluGradTanhValues(const float *dy, const float *x, float *dx,
                        int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dx[i] = scalar::geluTanhGrad<HostMath>(dy[i], x[i]);
}

void geluGradTanhValues(const double *dy, const double *x, double *dx,
                        int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dx[i] = scalar::geluTanhGrad<HostMath>(dy[i], x[i]);
}

void activationGrad(const HostOp &op, const float *dy, const float *x,
                    float *dx, int64_t n) {
  activationGradT(op, dy, x, dx, n);
}

void activationGrad(const HostOp &op, const double *dy, const double *x,
                    double *dx, int64_t n) {
  activationGradT(op, dy, x, dx, n);
}

Status runGradOp(const HostProgram &prog, const HostOp &op,
                 const std::vector<const void *> &operands,
                 const std::vector<void *> &results) {
  // dx has the dtype of operand 1 (x, y or the logits), the table of
  // embedding_grad that of dy (operand 0; operand 1 is the ids).
  size_t typed = op.code == OpCode::EmbeddingGrad ? 0 : 1;
  switch (computeKind(prog.values[op.operands[typed]].dtype)) {
  case ComputeKind::Float:
    return runTyped(prog, op, operands, static_cast<float *>(results[0]));
  case ComputeKind::Double:
    return runTyped(prog, op, operands, static_cast<double *>(results[0]));
  case ComputeKind::Int:
    break;
  }
  return Status::error(opContext(op) + "backward ops need float operands");
}

} // namespace tfc::rt::host
