//===- TfcShapeUtils.h - shape and dtype rules shared by tfc ops -*- C++ -*-===//
//
// The broadcasting rule, dimension normalization and accumulation types used
// by verifiers, result-type inference and (later) lowering and codegen.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCSHAPEUTILS_H
#define TFC_DIALECTS_TFC_TFCSHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir::tfc {

/// Numpy broadcasting of two shapes: aligned at the back, each pair of sizes
/// equal or one of them 1. Returns std::nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs);

/// True when `from` broadcasts to exactly `to` (rank(from) <= rank(to)).
bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

/// Infers the broadcast tensor type of `operands` with `elementType`, or emits
/// "operands are not broadcast-compatible" at `loc` and fails.
LogicalResult inferBroadcastType(std::optional<Location> loc,
                                 TypeRange operands, Type elementType,
                                 SmallVectorImpl<Type> &inferred);

/// Maps `dim` in [-rank, rank) to [0, rank); std::nullopt when out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

/// The type reductions accumulate in: f32 for f16/bf16/f32, f64 for f64,
/// the type itself otherwise. Statistics of norms and losses use it.
Type accumulationType(Type elementType);

/// Formats a shape as "4x8" (or "scalar" for rank 0) for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCSHAPEUTILS_H
