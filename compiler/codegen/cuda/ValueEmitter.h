//===- ValueEmitter.h - tfc values as CUDA expressions ----------*- C++ -*-===//
//
// Computes any value of a kernel body at a given index, demand-driven: the
// value of an op at coordinates `c` is its formula applied to its operands at
// the coordinates the op maps `c` to (broadcasting drops or zeroes dims,
// transpose permutes them, reshape re-linearizes, slice scales and shifts,
// ...). That is "each output element computes its input indices": a
// multi-op body and a single op take the same path, and no intermediate
// tensor is ever materialized. Results are memoized per (value, index).
//
// Row and column reductions are not pointwise; the kernel strategies that own
// them answer for their results through `anchorHook`.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_VALUEEMITTER_H
#define TFC_COMPILER_CODEGEN_CUDA_VALUEEMITTER_H

#include "compiler/codegen/cuda/KernelWriter.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include <functional>

namespace mlir::tfc::cuda {

/// The static shape of a ranked tensor value.
ArrayRef<int64_t> shapeOf(Value value);
/// The element type of a ranked tensor value.
Type elementTypeOf(Value value);

/// Evaluates body values at symbolic coordinates into a KernelWriter.
class ValueEmitter {
public:
  /// Answers a block-argument read at `linear` (e.g. from a vector register)
  /// or returns std::nullopt for a plain load.
  using LoadHook =
      std::function<std::optional<CExpr>(BlockArgument, const IndexExpr &)>;
  /// Computes a result of a non-pointwise (anchor) op at `coords`.
  using AnchorHook =
      std::function<FailureOr<CExpr>(OpResult, ArrayRef<IndexExpr>)>;

  /// `indexType` is the C type of indices ("int" or "long long").
  ValueEmitter(KernelWriter &writer, Block &body, std::string indexType);

  /// The value at `coords` (one per dimension of its shape) as an
  /// expression of its compute type.
  FailureOr<CExpr> emit(Value value, ArrayRef<IndexExpr> coords);

  /// The memo key of `value` at `coords`: its rendered linear index.
  std::string keyOf(Value value, ArrayRef<IndexExpr> coords) const;

  /// Coordinates in `shape` of the row-major index `linear`; binds `linear`
  /// to a fresh variable first when it is not a plain mixed-radix number.
  SmallVector<IndexExpr> coordsOf(const IndexExpr &linear,
                                  ArrayRef<int64_t> shape);

  /// Coordinates of an operand of shape `operandShape` that broadcasts
  /// numpy-style to `resultShape`, at result coordinates `coords`.
  static SmallVector<IndexExpr> broadcastCoords(ArrayRef<IndexExpr> coords,
                                                ArrayRef<int64_t> resultShape,
                                                ArrayRef<int64_t> operandShape);

  /// The kernel parameter holding block argument `arg` ("in<N>").
  static std::string paramName(BlockArgument arg);

  const std::string &indexType() const { return indexTy; }
  KernelWriter &writer() { return w; }

  LoadHook loadHook;
  AnchorHook anchorHook;

private:
  FailureOr<CExpr> emitOp(OpResult result, ArrayRef<IndexExpr> coords);
  FailureOr<CExpr> emitConstant(Operation *op, Type type,
                                ArrayRef<IndexExpr> coords);
  /// An opaque coordinate `clamp(coord - offset, 0, size - 1)`.
  IndexExpr clampedCoord(const IndexExpr &coord, int64_t offset, int64_t size);

  KernelWriter &w;
  Block &body;
  std::string indexTy;
};

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_VALUEEMITTER_H
