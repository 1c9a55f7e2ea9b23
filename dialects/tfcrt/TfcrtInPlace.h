//===- TfcrtInPlace.h - when a kernel may write over its input --*- C++ -*-===//
//
// The one rule that decides whether a kernel output may be written into the
// buffer of one of its inputs (a parameter or optimizer moment updated in
// place). The tfcrt.kernel verifier checks every declared `in_place` pair
// with it, and --tfc-convert-to-exec asks it before binding an updated value
// to the external it replaces, so the lowering cannot produce what the
// verifier rejects.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFCRT_TFCRTINPLACE_H
#define TFC_DIALECTS_TFCRT_TFCRTINPLACE_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::tfcrt {

/// Checks that output `output` of the kernel body `body` (block arguments =
/// inputs; the terminator's operands = outputs, a tfc.fusion or tfcrt.kernel
/// body) of kind `kind` may be written into the buffer of input `input`,
/// i.e. that no element of the input is read after any thread may have
/// written the output element stored over it:
///
///   - the input and the output have the same type (one buffer holds both);
///   - pointwise and multi_tensor kernels: every read of the input is at
///     the index of the output element being computed. Followed through
///     the body, each op using the input (or a value computed from it) is
///     an index-preserving elementwise op for that operand (unary, binary,
///     compare, select, convert, dropout, the gelu/silu gradients, and the
///     tensor operands of adamw/adam/sgd) whose results have the operand's
///     shape, so there is no broadcast, view, reduction or gather on the
///     way. The emitters of these kinds compute all outputs at index i in
///     one thread after loading the inputs at i, so each element is read
///     before it is overwritten and by the thread that overwrites it;
///   - block_quantized kernels: the input is a state operand of the
///     kernel's tfc.adamw8bit op (param, a moment's codes or absmax), used
///     by nothing else, and the output is the matching result. The emitter
///     reads a quantization block's state before the block's first barrier
///     and writes it after the last one (BlockQuantizedKernel.cpp);
///   - other kinds never: row and column reductions re-read their inputs
///     across threads and passes, gathers read data-dependent rows, and
///     GEMMs run on cuBLASLt.
///
/// On failure reports why through `emitError` (when given).
LogicalResult
checkInPlaceOutput(Block &body, tfc::KernelKind kind, unsigned input,
                   unsigned output,
                   function_ref<InFlightDiagnostic()> emitError = {});

/// Whether kernels of `kind` may write an output over an input at all (the
/// kinds checkInPlaceOutput can accept): pointwise, multi_tensor and
/// block_quantized. --tfc-fuse asks it so that a merge never turns an
/// update that could be written in place into one that needs a copy.
bool kindUpdatesInPlace(tfc::KernelKind kind);

} // namespace mlir::tfcrt

#endif // TFC_DIALECTS_TFCRT_TFCRTINPLACE_H
