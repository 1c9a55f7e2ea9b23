//===- TfcVjps.h - vector-Jacobian products of tfc ops ----------*- C++ -*-===//
//
// DifferentiableOpInterface is implemented by external models attached to
// the differentiable ops when the dialect is loaded. The models live in
// TfcVjps.cpp (elementwise, shape, reduction, matmul, dropout),
// TfcNNVjps.cpp (the NN ops, through the named backward ops) and
// TfcGradVjps.cpp (the named backward ops themselves: second order);
// VjpBuilder is the small op-building vocabulary they share.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCVJPS_H
#define TFC_DIALECTS_TFC_TFCVJPS_H

#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::tfc {

/// Attaches DifferentiableOpInterface to every differentiable tfc op (called
/// from TfcDialect::initialize, after all ops are registered).
void attachDifferentiableInterfaces(MLIRContext *context);

namespace detail {
/// Attaches the models of TfcVjps.cpp.
void attachCoreVjps(MLIRContext *context);
/// Attaches the models of TfcNNVjps.cpp.
void attachNNVjps(MLIRContext *context);
/// Attaches the models of TfcGradVjps.cpp.
void attachGradVjps(MLIRContext *context);
} // namespace detail

/// Builds the ops of a VJP at the builder's insertion point with one
/// location. Binary helpers broadcast numpy-style and infer their result
/// type, so VJP code reads like the math.
class VjpBuilder {
public:
  VjpBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  /// A rank-0 constant of a float `elementType`.
  Value scalar(Type elementType, double value);
  /// A splat zero of `type`.
  Value zeros(RankedTensorType type);

  Value add(Value lhs, Value rhs);
  Value sub(Value lhs, Value rhs);
  Value mul(Value lhs, Value rhs);
  Value div(Value lhs, Value rhs);
  Value neg(Value x);
  Value compare(CompareDirection direction, Value lhs, Value rhs);
  Value select(Value condition, Value onTrue, Value onFalse);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value convert(Value x, Type elementType);
  /// `x` converted to accumulationType of its element type (f32 for 16-bit).
  Value widen(Value x);
  /// A unary elementwise op of `x` (exp, tanh, sigmoid...).
  template <typename OpT> Value unary(Value x) {
    return b.create<OpT>(loc, x.getType(), x);
  }
  /// `x` summed over `dims` (in [0, rank)), each kept with size 1.
  Value sumKeepDims(Value x, ArrayRef<int64_t> dims);
  /// Adds `cotangent` over the dimensions that numpy broadcasting expanded
  /// `type` to, and reshapes the sum to `type` (the VJP of a broadcast).
  Value sumToShape(Value cotangent, RankedTensorType type);
  /// matmul with the result type computed (element type `resultElement`,
  /// the operands' when null).
  Value matmul(Value a, Value bv, bool transposeA, bool transposeB,
               Type resultElement = {});

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

private:
  OpBuilder &b;
  Location loc;
};

/// The external model of a differentiable op whose VJP `Rule` builds:
/// Rule{}(op, builder, resultCotangents) returns the operand cotangents.
/// Each Vjps file defines its Rule, which calls that file's vjp()
/// overloads, and attaches its ops with attachVjpModels.
template <typename OpT, typename Rule>
struct VjpModel
    : DifferentiableOpInterface::ExternalModel<VjpModel<OpT, Rule>, OpT> {
  FailureOr<SmallVector<Value>>
  buildVjp(Operation *op, OpBuilder &builder,
           ArrayRef<Value> resultCotangents) const {
    VjpBuilder v(builder, op->getLoc());
    return Rule{}(cast<OpT>(op), v, resultCotangents);
  }
};

/// Attaches VjpModel<OpT, Rule> to each of OpTs.
template <typename Rule, typename... OpTs>
void attachVjpModels(MLIRContext *context) {
  (OpTs::template attachInterface<VjpModel<OpTs, Rule>>(*context), ...);
}

/// Returns `value`'s ranked tensor type.
inline RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCVJPS_H
