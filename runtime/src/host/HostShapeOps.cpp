//===- HostShapeOps.cpp - reshape, transpose, broadcast, slice, concat, pad
//===//
//
// All of them are strided copies: the result (or, for concat and pad, each
// operand) is walked in row-major order and the other side is addressed with
// strides, so one helper (forEachRun) handles every layout and long
// contiguous runs become memcpy.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostKernels.h"

#include <cstdint>
#include <cstring>

namespace tfc::rt::host {

namespace {

/// dst[offset(i)] = src[i] for every element i of `shape` (row-major), with
/// offsets from `strides` and `base`.
template <typename T>
void scatterT(const T *src, T *dst, const std::vector<int64_t> &shape,
              const std::vector<int64_t> &strides, int64_t base, int64_t n) {
  forEachRun(shape, strides, base, 0, n,
             [&](int64_t k, int64_t off, int64_t cnt, int64_t st) {
               if (st == 1) {
                 std::memcpy(dst + off, src + k, cnt * sizeof(T));
               } else {
                 for (int64_t j = 0; j < cnt; ++j)
                   dst[off + j * st] = src[k + j];
               }
             });
}

void scatter(const void *src, void *dst, int64_t elemBytes,
             const std::vector<int64_t> &shape,
             const std::vector<int64_t> &strides, int64_t base, int64_t n) {
  if (elemBytes == 4)
    scatterT(static_cast<const float *>(src), static_cast<float *>(dst), shape,
             strides, base, n);
  else
    scatterT(static_cast<const int64_t *>(src), static_cast<int64_t *>(dst),
             shape, strides, base, n);
}

void fillValue(DType dtype, void *dst, int64_t n, double value) {
  switch (computeKind(dtype)) {
  case ComputeKind::Float:
    std::fill_n(static_cast<float *>(dst), n, float(value));
    break;
  case ComputeKind::Double:
    std::fill_n(static_cast<double *>(dst), n, value);
    break;
  case ComputeKind::Int:
    std::fill_n(static_cast<int64_t *>(dst), n, int64_t(value));
    break;
  }
  roundToDType(dtype, dst, n);
}

} // namespace

Status runShapeOp(const HostProgram &prog, const HostOp &op,
                  const std::vector<const void *> &operands, void *result) {
  const ValueType &rt = prog.values[op.results[0]];
  const ValueType &xt = prog.values[op.operands[0]];
  int64_t eb = computeSize(rt.dtype);
  switch (op.code) {
  case OpCode::Reshape:
    std::memcpy(result, operands[0], rt.numel * eb);
    return Status::ok();
  case OpCode::Transpose: {
    // Result dim i walks operand dim perm[i].
    std::vector<int64_t> src = contiguousStrides(xt.shape), st(rt.shape.size());
    for (size_t i = 0; i < st.size(); ++i)
      st[i] = src[op.ints0[i]];
    gatherStrided(operands[0], result, eb, rt.shape, st, 0, 0, rt.numel);
    return Status::ok();
  }
  case OpCode::BroadcastTo:
    gatherStrided(operands[0], result, eb, rt.shape,
                  broadcastStrides(xt.shape, rt.shape), 0, 0, rt.numel);
    return Status::ok();
  case OpCode::Slice: {
    std::vector<int64_t> src = contiguousStrides(xt.shape), st(src.size());
    int64_t base = 0;
    for (size_t d = 0; d < src.size(); ++d) {
      base += op.ints0[d] * src[d];
      st[d] = op.ints2[d] * src[d];
    }
    gatherStrided(operands[0], result, eb, rt.shape, st, base, 0, rt.numel);
    return Status::ok();
  }
  case OpCode::Concat: {
    std::vector<int64_t> dst = contiguousStrides(rt.shape);
    int64_t at = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ValueType &t = prog.values[op.operands[i]];
      scatter(operands[i], result, eb, t.shape, dst, at * dst[op.dim], t.numel);
      at += t.shape[op.dim];
    }
    return Status::ok();
  }
  case OpCode::Pad: {
    fillValue(rt.dtype, result, rt.numel, op.fvalue);
    std::vector<int64_t> dst = contiguousStrides(rt.shape);
    int64_t base = 0;
    for (size_t d = 0; d < dst.size(); ++d)
      base += op.ints0[d] * dst[d];
    scatter(operands[0], result, eb, xt.shape, dst, base, xt.numel);
    return Status::ok();
  }
  default:
    return Status::error(opContext(op) + "not a shape op");
  }
}

Status runWholeOp(const HostProgram &prog, const HostOp &op,
                  const std::vector<const void *> &operands,
                  const std::vector<void *> &results) {
  switch (op.code) {
  case OpCode::Reshape:
  case OpCode::Transpose:
  case OpCode::BroadcastTo:
  case OpCode::Slice:
  case OpCode::Concat:
  case OpCode::Pad:
    return runShapeOp(prog, op, operands, results[0]);
  case OpCode::ReduceSum:
  case OpCode::ReduceMean:
  case OpCode::ReduceMax:
  case OpCode::Embedding:
  case OpCode::LayerNorm:
  case OpCode::RmsNorm:
  case OpCode::Softmax:
  case OpCode::LogSoftmax:
  case OpCode::CrossEntropy:
    return runReductionOp(prog, op, operands, results);
  case OpCode::SoftmaxGrad:
  case OpCode::LogSoftmaxGrad:
  case OpCode::LayerNormGradInput:
  case OpCode::RmsNormGradInput:
  case OpCode::CrossEntropyGrad:
  case OpCode::EmbeddingGrad:
    return runGradOp(prog, op, operands, results);
  case OpCode::Sort:
    return runSortOp(prog, op, operands, results);
  case OpCode::AdamW:
  case OpCode::Adam:
  case OpCode::Sgd:
  case OpCode::AdamW8bit:
    return runOptimizerOp(prog, op, operands, results);
  case OpCode::Constant:
  case OpCode::Iota:
    materializeStatic(prog, op, results[0]);
    return Status::ok();
  default:
    // Pointwise ops broadcast their operands; the interpreter runs them
    // through runPointwiseOp on aligned chunks, never here.
    return Status::error(opContext(op) + "not a whole-tensor op");
  }
}

} // namespace tfc::rt::host
