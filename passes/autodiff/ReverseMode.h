//===- ReverseMode.h - reverse-mode differentiation entry point -*- C++ -*-===//
//
// The C++ entry point behind --tfc-autodiff, shared with passes that build
// on gradients (--tfc-step-gradients).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_AUTODIFF_REVERSEMODE_H
#define TFC_PASSES_AUTODIFF_REVERSEMODE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace tfc {

/// Rewrites `func` (a single-block function returning one 0-d float loss as
/// its first return operand) in place into its gradient function: the body
/// keeps the forward, appends the backward (one VJP per op on a path from a
/// parameter to the loss) and returns (loss, d loss / d arg) for each
/// argument index in `params`, in that order, then the function's other
/// return operands as they were (new values of model state, such as batch
/// norm's running statistics), which are not differentiated. No gradient
/// flows through a tfc.stop_gradient, and through a tfc.straight_through
/// only to its source; afterwards each is replaced by its operand (value).
/// Ops left dead are erased and result attributes are dropped. The backward
/// starts from a 0-d constant 1.0 (the seed), which gets the unit attribute
/// `seedMark` when one is given. A parameter no gradient reaches (unused,
/// or read only through tfc.stop_gradient or integer ops) gets zeros, and
/// its argument index is appended to `withoutGradient` when given (torch
/// leaves its .grad None). On failure a diagnostic was emitted and `func`
/// is left partially rewritten (callers work on a clone).
mlir::LogicalResult
appendGradients(mlir::func::FuncOp func, llvm::ArrayRef<unsigned> params,
                llvm::StringRef seedMark = {},
                llvm::SmallVectorImpl<unsigned> *withoutGradient = nullptr);

/// What a loss function returns, for errors: "one scalar loss (...), then
/// only updates of model state ({tfc.update})".
extern const char kLossResultsRule[];

/// Whether `loss` returns one 0-d floating-point loss followed only by
/// updates of model state (results marked tfc.update, which the dialect
/// checks name a tfc.state argument of their type).
bool returnsLossAndUpdates(mlir::func::FuncOp loss);

/// The tfc.update attributes of `loss`'s results after the loss, in order:
/// appendGradients drops result attributes, so a caller reads them first
/// and gives them back with setStateUpdates.
llvm::SmallVector<mlir::Attribute> stateUpdates(mlir::func::FuncOp loss);

/// Marks the results of `grad` from `first` on with `updates`.
void setStateUpdates(mlir::func::FuncOp grad, unsigned first,
                     llvm::ArrayRef<mlir::Attribute> updates);

} // namespace tfc

#endif // TFC_PASSES_AUTODIFF_REVERSEMODE_H
