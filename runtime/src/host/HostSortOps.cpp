//===- HostSortOps.cpp - tfc.sort in host programs ------------------------===//
//
// Validation and evaluation of sort, a sort kernel's one op: each row (the
// last dim) is sorted by a std::stable_sort of its positions under
// scalar::sortsBefore (common/ScalarOps.h), the order the CUDA sort kernel
// uses too. The values are copies of the operand's, so nothing is rounded.
//
//===----------------------------------------------------------------------===//

#include "common/ScalarOps.h"
#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostOpChecker.h"
#include "runtime/src/host/HostProgramVerify.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace tfc::rt::host {

namespace {

struct SortChecker : OpChecker {
  using OpChecker::OpChecker;

  bool check() {
    const ValueType &x = in(0);
    if (x.shape.empty())
      return fail("sort needs an operand of rank >= 1, got " + typeStr(x));
    if (x.dtype == DType::I1 || x.dtype == DType::U8)
      return fail("sort needs a numeric operand, got " + typeStr(x));
    int choice = 0;
    if (!takeKeyword("descending", {"false", "true"}, choice))
      return false;
    op.descending = choice == 1;
    return expectResult(0, x.dtype, x.shape) &&
           expectResult(1, DType::I64, x.shape);
  }
};

/// Sorts the rows of `x` (compute type T) into `values` and `indices`.
template <typename T>
void sortRows(const HostProgram &prog, const HostOp &op, const T *x,
              T *values, int64_t *indices) {
  const ValueType &xt = prog.values[op.operands[0]];
  int64_t n = xt.shape.back();
  if (n == 0)
    return;
  int64_t rows = xt.numel / n;
  bool descending = op.descending;
  std::vector<int64_t> order(n);
  for (int64_t r = 0; r < rows; ++r) {
    const T *row = x + r * n;
    std::iota(order.begin(), order.end(), int64_t(0));
    // sortsBefore already breaks ties by position; the stable sort keeps
    // the same order whichever way a library would break them.
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return scalar::sortsBefore<T>(row[a], a, row[b], b, descending);
    });
    for (int64_t j = 0; j < n; ++j) {
      values[r * n + j] = row[order[j]];
      indices[r * n + j] = order[j];
    }
  }
}

} // namespace

std::string verifySortOp(const HostProgram &prog, HostOp &op, AttrMap &attrs) {
  SortChecker c(prog, op, attrs);
  c.check();
  return c.problem;
}

Status runSortOp(const HostProgram &prog, const HostOp &op,
                 const std::vector<const void *> &operands,
                 const std::vector<void *> &results) {
  auto *indices = static_cast<int64_t *>(results[1]);
  switch (computeKind(prog.values[op.operands[0]].dtype)) {
  case ComputeKind::Float:
    sortRows(prog, op, static_cast<const float *>(operands[0]),
             static_cast<float *>(results[0]), indices);
    break;
  case ComputeKind::Double:
    sortRows(prog, op, static_cast<const double *>(operands[0]),
             static_cast<double *>(results[0]), indices);
    break;
  case ComputeKind::Int:
    sortRows(prog, op, static_cast<const int64_t *>(operands[0]),
             static_cast<int64_t *>(results[0]), indices);
    break;
  }
  return Status::ok();
}

} // namespace tfc::rt::host
