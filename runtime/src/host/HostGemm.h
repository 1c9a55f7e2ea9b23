//===- HostGemm.h - strided-batched GEMM on the host ------------*- C++ -*-===//
//
// The host backend's GEMM: a GemmDesc (docs/execution.md, section 2) run with
// HostBlas.h's sgemm / dgemm (OpenBLAS or the portable GEMM). 16-bit operands
// are widened to f32 and the product accumulates in f32 (as tensor cores do); a
// 16-bit C is rounded to nearest even once, at the end.
//
// Epilogues (an optional bias add, then none, relu or tanh gelu, optionally
// storing the gelu input to aux; or the tanh gelu gradient of the product
// with the gelu input read from aux, optionally summed over the rows into
// the bias; Artifact.h) run after the product, row by row, through the host
// interpreter's own add, relu, gelu, gelu_grad and column-sum functions and
// 16-bit rounding (HostKernels.h): the result is bit-identical to the plain
// GEMM followed by the unfused tfc.add kernel and tfc.relu or
// tfc.gelu(approximate="tanh") kernel of c_type, or by the unfused
// tfc.gelu_grad(approximate="tanh") kernel and tfc.reduce_sum over the rows.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_HOST_HOSTGEMM_H
#define TFC_RUNTIME_HOST_HOSTGEMM_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Status.h"

#include <cstdint>

namespace tfc::rt::host {

/// Bytes of each operand that `gemm` touches, from the start of its pointer
/// (0 for bias and aux when the epilogue has none).
struct GemmExtents {
  int64_t a = 0, b = 0, c = 0, bias = 0, aux = 0;
};

/// Checks every field of `gemm` (sizes, leading dimensions, strides, dtype
/// combination, compute type, epilogue: batch 1 and beta 0 with any but
/// none) and computes the operands' extents.
Status validateGemm(const GemmDesc &gemm, GemmExtents &extents);

/// Runs a validated `gemm` on host memory. Nothing the GEMM writes (C, a
/// written aux or bias) may overlap another operand; read operands may
/// share memory. `bias` (n c_type elements) is read when the epilogue adds
/// one and written (the bias gradient) by dgelu_bgrad; `aux` (laid out like
/// C) is written by gelu_aux and gelu_aux_bias and read (the GELU input) by
/// dgelu and dgelu_bgrad (epilogueBias, epilogueAux); both are ignored when
/// the epilogue has none.
Status runGemm(const GemmDesc &gemm, const void *a, const void *b, void *c,
               void *bias, void *aux);

} // namespace tfc::rt::host

#endif // TFC_RUNTIME_HOST_HOSTGEMM_H
