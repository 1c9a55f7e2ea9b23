//===- TfcConstantFolding.h - folding tfc ops on constants ------*- C++ -*-===//
//
// Evaluates elementwise ops on constant operands at compile time. Only
// splats and small dense constants fold (kMaxFoldedElements), so folding
// never bloats the IR with large literal tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCCONSTANTFOLDING_H
#define TFC_DIALECTS_TFC_TFCCONSTANTFOLDING_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <variant>
#include <optional>

namespace mlir::tfc {

/// Largest non-splat constant (in elements) that folding may produce.
constexpr int64_t kMaxFoldedElements = 1024;

/// One scalar of a constant, float or integer.
using FoldScalar = std::variant<llvm::APFloat, llvm::APInt>;

/// Per-element function: returns std::nullopt to refuse folding (e.g.
/// integer division by zero).
using UnaryScalarFn =
    llvm::function_ref<std::optional<FoldScalar>(const FoldScalar &)>;
using BinaryScalarFn = llvm::function_ref<std::optional<FoldScalar>(
    const FoldScalar &, const FoldScalar &)>;

/// Applies `fn` to each element of a constant operand; `resultType` is the
/// op's result type. Null when the operand is not a foldable constant.
Attribute foldUnary(Attribute operand, ShapedType resultType, UnaryScalarFn fn);

/// Applies `fn` to broadcast pairs of elements of two constant operands.
Attribute foldBinary(Attribute lhs, Attribute rhs, ShapedType resultType,
                     BinaryScalarFn fn);

/// Evaluates `fn` in double precision and rounds the result to the
/// semantics of `like` (round to nearest even).
llvm::APFloat applyInDouble(const llvm::APFloat &like, double (*fn)(double));

/// Converts `value` to `semantics` with round to nearest even.
llvm::APFloat convertFloat(llvm::APFloat value,
                           const llvm::fltSemantics &semantics);

/// True when `attr` is a splat constant whose every element equals `value`.
bool isSplatOf(Attribute attr, double value);

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCCONSTANTFOLDING_H
