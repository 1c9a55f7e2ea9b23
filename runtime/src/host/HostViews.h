//===- HostViews.h - view ops read in place, without copies -----*- C++ -*-===//
//
// Fused kernels fold views into their consumers' indexing (the q/k/v split,
// the head transposes, the padded concatenation of the q/k/v gradients): on
// a GPU they cost no pass of their own. The host interpreter does the same
// with StridedView: a chain of reshape, transpose, broadcast_to, slice and
// pad ops applied to one value is one strided (and possibly padded) way to
// read that value, composed at planning and read element by element where a
// consumer needs it, so none of the intermediate views is ever stored.
//
// Reading a view copies elements; padding reads the pad op's value, rounded
// to the dtype as the pad op rounds it. The results are those of running
// the view ops one by one, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTVIEWS_H
#define TFC_RUNTIME_HOST_HOSTVIEWS_H

#include "runtime/src/host/HostProgram.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tfc::rt::host {

/// Value `base` read as a tensor of `shape`: element i (row-major index
/// idx) is base[offset + sum(idx[d] * strides[d])] when every idx[d] lies in
/// [lo[d], hi[d]), and the pad value otherwise. lo/hi are empty for a view
/// without padding. The offset may point outside `base` (a view that starts
/// with padding); only elements inside every [lo, hi) are read.
struct StridedView {
  int64_t base = -1;
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
  std::vector<int64_t> lo, hi;
  /// The pad value in the base's compute type (float, double or int64_t
  /// bits), rounded to the dtype.
  uint64_t padBits = 0;

  bool padded() const { return !lo.empty(); }
};

/// `value` (of type `type`) read as itself.
StridedView identityView(int64_t value, const ValueType &type);

/// Whether `code` is an op applyViewOp can fold.
bool isFoldableView(OpCode code);

/// The view `op` (reshape, transpose, broadcast_to, slice or pad, producing
/// `result`) makes of an operand read as `view`; std::nullopt where the
/// result is not a strided view of the same base: a reshape that splits or
/// merges dimensions whose strides do not allow it (a transposed tensor
/// flattened), a reshape of padding, padding of padding.
std::optional<StridedView> applyViewOp(const HostOp &op,
                                       const ValueType &result,
                                       const StridedView &view);

/// `view` read as broadcast to `shape` (numpy rule).
StridedView broadcastView(const StridedView &view,
                          const std::vector<int64_t> &shape);

/// dst[i] = element start + i of `view` for i < n, reading the base's
/// compute-type data at `base` (elements of `elemBytes`: 4 or 8).
void gatherView(const StridedView &view, const void *base, int64_t elemBytes,
                void *dst, int64_t start, int64_t n);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTVIEWS_H
