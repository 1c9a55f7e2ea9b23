//===- HostGemm.h - strided-batched GEMM on the host ------------*- C++ -*-===//
//
// The host backend's GEMM: a GemmDesc (docs/execution.md, section 2) run with
// HostBlas.h's sgemm / dgemm (OpenBLAS or the portable GEMM). 16-bit operands are widened to f32 and the
// product accumulates in f32 (as tensor cores do); a 16-bit C is rounded to
// nearest even once, at the end.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTGEMM_H
#define TFC_RUNTIME_HOST_HOSTGEMM_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Status.h"

#include <cstdint>

namespace tfc::rt::host {

/// Bytes of each operand that `gemm` touches, from the start of its pointer.
struct GemmExtents {
  int64_t a = 0, b = 0, c = 0;
};

/// Checks every field of `gemm` (sizes, leading dimensions, strides, dtype
/// combination, compute type, epilogue) and computes the operands' extents.
Status validateGemm(const GemmDesc &gemm, GemmExtents &extents);

/// Runs a validated `gemm` on host memory. C must not overlap A or B.
Status runGemm(const GemmDesc &gemm, const void *a, const void *b, void *c);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTGEMM_H
