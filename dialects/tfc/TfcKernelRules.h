//===- TfcKernelRules.h - which ops can form one kernel ---------*- C++ -*-===//
//
// The rules that decide whether a group of tfc ops can be emitted as ONE
// kernel of a given kind. The tfc.fusion verifier enforces them, and the
// fusion passes use them to test candidate groups before forming regions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCKERNELRULES_H
#define TFC_DIALECTS_TFC_TFCKERNELRULES_H

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfc/TfcInterfaces.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace mlir::tfc {

/// The kernel kind that an op of `role` forms on its own, as unfused
/// compilation wraps it: pointwise -> pointwise, row_reduction ->
/// row_reduction, and so on. std::nullopt for composite ops, which lowering
/// decomposes before kernels are formed.
std::optional<KernelKind> kernelKindForRole(KernelRole role);

/// Checks that `ops` (in program order, without a terminator) can form one
/// kernel of `kind`:
///   - there is at least one op;
///   - every op is a tfc op with a kernel role that is not composite;
///   - pointwise: all ops are pointwise;
///   - multi_tensor: optimizer updates (role multi_tensor, any number,
///     including none) and pointwise ops;
///   - row_reduction: at least one row reduction, all of them with the same
///     RowGeometry, the other ops pointwise;
///   - column_reduction: at least one column reduction, the others pointwise;
///   - gather / gemm / block_quantized: exactly one gather / gemm /
///     block-quantized update, the others pointwise.
/// On failure reports the first violated rule through `emitError` (when
/// given) with a note at the offending op, and fails.
LogicalResult
verifyKernelOps(ArrayRef<Operation *> ops, KernelKind kind,
                function_ref<InFlightDiagnostic()> emitError = {});

/// verifyKernelOps over the ops of `body`, ignoring its terminator if it has
/// one (the body of a tfc.fusion).
LogicalResult
verifyKernelBody(Block &body, KernelKind kind,
                 function_ref<InFlightDiagnostic()> emitError = {});

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCKERNELRULES_H
