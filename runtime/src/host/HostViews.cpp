//===- HostViews.cpp - view ops read in place, without copies -------------===//

#include "runtime/src/host/HostViews.h"

#include "runtime/src/host/HostKernels.h"

#include <algorithm>
#include <cstring>

namespace tfc::rt::host {

namespace {

/// ceil(a / b) for b > 0 and any sign of a (no overflow for any b: a slice
/// step may be up to INT64_MAX).
int64_t ceilDiv(int64_t a, int64_t b) {
  return a > 0 ? (a - 1) / b + 1 : -((-a) / b);
}

/// The strides that read `view` (unpadded) as `shape`, or std::nullopt when
/// no strides do: each run of source dimensions that is contiguous among
/// itself must be re-split into whole target dimensions (PyTorch's rule for
/// Tensor.view).
std::optional<std::vector<int64_t>>
reshapeStrides(const std::vector<int64_t> &from,
               const std::vector<int64_t> &fromStrides,
               const std::vector<int64_t> &to) {
  std::vector<int64_t> out(to.size(), 0);
  int64_t numel = 1;
  for (int64_t s : from)
    numel *= s;
  if (numel <= 1)
    return out; // every index is 0 (or there is no element)
  // Size-1 source dims carry no layout.
  std::vector<int64_t> shape, strides;
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) {
      shape.push_back(from[d]);
      strides.push_back(fromStrides[d]);
    }
  int64_t viewD = int64_t(to.size()) - 1;
  int64_t chunkStride = strides.back(), tensorNumel = 1, viewNumel = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    tensorNumel *= shape[d];
    // A chunk ends where the next outer dim is not contiguous with it.
    if (d == 0 || strides[d - 1] != tensorNumel * chunkStride) {
      while (viewD >= 0 && (viewNumel < tensorNumel || to[viewD] == 1)) {
        out[viewD] = viewNumel * chunkStride;
        viewNumel *= to[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel)
        return std::nullopt;
      if (d > 0) {
        chunkStride = strides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  // Leading size-1 target dims.
  while (viewD >= 0) {
    if (to[viewD] != 1)
      return std::nullopt;
    out[viewD--] = 0;
  }
  return out;
}

/// The pad value as the pad op stores it: in the compute type, rounded to
/// the dtype.
uint64_t padBits(DType dtype, double value) {
  uint64_t bits = 0;
  switch (computeKind(dtype)) {
  case ComputeKind::Float: {
    float f = float(value);
    roundToDType(dtype, &f, 1);
    std::memcpy(&bits, &f, 4);
    break;
  }
  case ComputeKind::Double:
    std::memcpy(&bits, &value, 8);
    break;
  case ComputeKind::Int: {
    int64_t i = int64_t(value);
    roundToDType(dtype, &i, 1);
    std::memcpy(&bits, &i, 8);
    break;
  }
  }
  return bits;
}

template <typename T>
void gatherPadded(const StridedView &v, const T *base, T *dst, int64_t start,
                  int64_t n) {
  T pad;
  std::memcpy(&pad, &v.padBits, sizeof(T));
  const int r = int(v.shape.size());
  const int64_t inner = v.shape[r - 1], st = v.strides[r - 1];
  const int64_t lo = v.lo[r - 1], hi = v.hi[r - 1];
  std::vector<int64_t> idx(r, 0);
  int64_t rem = start;
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = rem % v.shape[d];
    rem /= v.shape[d];
  }
  int64_t k = 0;
  while (k < n) {
    int64_t j0 = idx[r - 1];
    int64_t cnt = std::min(inner - j0, n - k);
    bool outerValid = true;
    int64_t off = v.offset;
    for (int d = 0; d < r - 1; ++d) {
      outerValid &= idx[d] >= v.lo[d] && idx[d] < v.hi[d];
      off += idx[d] * v.strides[d];
    }
    T *out = dst + k;
    if (!outerValid) {
      std::fill(out, out + cnt, pad);
    } else {
      // [j0, j0 + cnt) of the innermost dim: padding below lo, data in
      // [lo, hi), padding from hi.
      int64_t a = std::clamp(lo, j0, j0 + cnt), b = std::clamp(hi, a, j0 + cnt);
      std::fill(out, out + (a - j0), pad);
      if (b > a) {
        // The offset of a padded view may lie outside the base; the
        // elements in [a, b) do not.
        const T *src = base + (off + a * st);
        if (st == 1) {
          std::memcpy(out + (a - j0), src, (b - a) * sizeof(T));
        } else {
          for (int64_t j = 0; j < b - a; ++j)
            out[a - j0 + j] = src[j * st];
        }
      }
      std::fill(out + (b - j0), out + cnt, pad);
    }
    k += cnt;
    // Next run: the innermost dim starts over, the outer ones carry.
    idx[r - 1] = 0;
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[d] < v.shape[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace

StridedView identityView(int64_t value, const ValueType &type) {
  StridedView v;
  v.base = value;
  v.shape = type.shape;
  v.strides = contiguousStrides(type.shape);
  return v;
}

bool isFoldableView(OpCode code) {
  return code == OpCode::Reshape || code == OpCode::Transpose ||
         code == OpCode::BroadcastTo || code == OpCode::Slice ||
         code == OpCode::Pad;
}

std::optional<StridedView> applyViewOp(const HostOp &op,
                                       const ValueType &result,
                                       const StridedView &view) {
  StridedView out = view;
  out.shape = result.shape;
  const size_t rank = view.shape.size();
  switch (op.code) {
  case OpCode::Reshape: {
    if (result.shape == view.shape)
      return out;
    if (view.padded())
      return std::nullopt;
    auto strides = reshapeStrides(view.shape, view.strides, result.shape);
    if (!strides)
      return std::nullopt;
    out.strides = *strides;
    return out;
  }
  case OpCode::Transpose:
    for (size_t i = 0; i < rank; ++i) {
      int64_t p = op.ints0[i];
      out.strides[i] = view.strides[p];
      if (view.padded()) {
        out.lo[i] = view.lo[p];
        out.hi[i] = view.hi[p];
      }
    }
    return out;
  case OpCode::BroadcastTo:
    return broadcastView(view, result.shape);
  case OpCode::Slice:
    for (size_t d = 0; d < rank; ++d) {
      int64_t start = op.ints0[d], step = op.ints2[d];
      out.offset += start * view.strides[d];
      out.strides[d] = view.strides[d] * step;
      if (view.padded()) {
        // Index j reads source index start + j * step.
        int64_t size = result.shape[d];
        int64_t lo = std::clamp<int64_t>(ceilDiv(view.lo[d] - start, step), 0,
                                         size);
        int64_t hi = std::clamp<int64_t>(ceilDiv(view.hi[d] - start, step), lo,
                                         size);
        out.lo[d] = lo;
        out.hi[d] = hi;
      }
    }
    return out;
  case OpCode::Pad:
    if (view.padded())
      return std::nullopt;
    out.lo.resize(rank);
    out.hi.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      out.offset -= op.ints0[d] * view.strides[d];
      out.lo[d] = op.ints0[d];
      out.hi[d] = op.ints0[d] + view.shape[d];
    }
    out.padBits = padBits(result.dtype, op.fvalue);
    if (rank == 0) // nothing to pad: a scalar stays itself
      out.lo.clear(), out.hi.clear();
    return out;
  default:
    return std::nullopt;
  }
}

StridedView broadcastView(const StridedView &view,
                          const std::vector<int64_t> &shape) {
  if (view.shape == shape)
    return view;
  StridedView out = view;
  const size_t lead = shape.size() - view.shape.size();
  out.shape = shape;
  out.strides.assign(shape.size(), 0);
  if (view.padded()) {
    out.lo.assign(shape.size(), 0);
    out.hi = shape;
  }
  for (size_t i = 0; i < view.shape.size(); ++i) {
    size_t d = lead + i;
    bool stretched = view.shape[i] == 1 && shape[d] != 1;
    out.strides[d] = stretched ? 0 : view.strides[i];
    if (view.padded()) {
      if (stretched) {
        // The one element, data or padding, everywhere along d.
        bool valid = view.lo[i] <= 0 && 0 < view.hi[i];
        out.lo[d] = 0;
        out.hi[d] = valid ? shape[d] : 0;
      } else {
        out.lo[d] = view.lo[i];
        out.hi[d] = view.hi[i];
      }
    }
  }
  return out;
}

void gatherView(const StridedView &view, const void *base, int64_t elemBytes,
                void *dst, int64_t start, int64_t n) {
  if (n <= 0)
    return;
  if (!view.padded()) {
    gatherStrided(base, dst, elemBytes, view.shape, view.strides, view.offset,
                  start, n);
    return;
  }
  if (elemBytes == 4)
    gatherPadded(view, static_cast<const float *>(base),
                 static_cast<float *>(dst), start, n);
  else
    gatherPadded(view, static_cast<const int64_t *>(base),
                 static_cast<int64_t *>(dst), start, n);
}

} // namespace tfc::rt::host
