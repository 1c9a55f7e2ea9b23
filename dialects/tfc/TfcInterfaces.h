//===- TfcInterfaces.h - tfc op interfaces ----------------------*- C++ -*-===//

#ifndef TFC_DIALECTS_TFC_TFCINTERFACES_H
#define TFC_DIALECTS_TFC_TFCINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::tfc {

/// What kind of kernel an op needs; see KernelRoleOpInterface.
enum class KernelRole {
  Pointwise,
  RowReduction,
  ColumnReduction,
  Gather,
  Gemm,
  /// An optimizer update of one tensor and its state (adamw, adam, sgd):
  /// lives in multi_tensor kernels, one launch over many tensors.
  MultiTensor,
  /// An update of block-wise quantized state (adamw8bit): each block of
  /// elements is decoded, updated, reduced to its absmax and re-encoded as
  /// one unit; lives in block_quantized kernels, one per op.
  BlockQuantized,
  /// A deterministic scatter-add of rows into a table (embedding_grad):
  /// lives in scatter kernels, one per op.
  Scatter,
  /// A stable sort of each row (sort): lives in sort kernels, one per op,
  /// with nothing fused into them.
  Sort,
  /// Decomposed by lowering before kernels are formed (e.g. attention).
  Composite,
};

/// Returns the printable name of a role ("pointwise", "row_reduction", ...).
llvm::StringRef stringifyKernelRole(KernelRole role);

/// The iteration space of a row reduction: `rows` independent rows of
/// `rowLength` contiguous elements each.
struct RowGeometry {
  int64_t rows = 0;
  int64_t rowLength = 0;
  bool operator==(const RowGeometry &other) const {
    return rows == other.rows && rowLength == other.rowLength;
  }
};

/// Row geometry of `type` when the dimensions from `firstReducedDim` (negative
/// counts from the back) to the last one are reduced.
RowGeometry rowGeometryOf(ShapedType type, int64_t firstReducedDim);

} // namespace mlir::tfc

#include "dialects/tfc/TfcInterfaces.h.inc"

#endif // TFC_DIALECTS_TFC_TFCINTERFACES_H
