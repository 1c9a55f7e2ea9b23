//===- TfcInterfaces.cpp - tfc op interfaces ------------------------------===//

#include "dialects/tfc/TfcInterfaces.h"

using namespace mlir;
using namespace mlir::tfc;

#include "dialects/tfc/TfcInterfaces.cpp.inc"

StringRef mlir::tfc::stringifyKernelRole(KernelRole role) {
  switch (role) {
  case KernelRole::Pointwise:
    return "pointwise";
  case KernelRole::RowReduction:
    return "row_reduction";
  case KernelRole::ColumnReduction:
    return "column_reduction";
  case KernelRole::Gather:
    return "gather";
  case KernelRole::Gemm:
    return "gemm";
  case KernelRole::MultiTensor:
    return "multi_tensor";
  case KernelRole::BlockQuantized:
    return "block_quantized";
  case KernelRole::Scatter:
    return "scatter";
  case KernelRole::Sort:
    return "sort";
  case KernelRole::Composite:
    return "composite";
  }
  llvm_unreachable("unknown kernel role");
}

RowGeometry mlir::tfc::rowGeometryOf(ShapedType type, int64_t firstReducedDim) {
  int64_t rank = type.getRank();
  if (firstReducedDim < 0)
    firstReducedDim += rank;
  RowGeometry geometry{1, 1};
  for (int64_t d = 0; d < rank; ++d)
    (d < firstReducedDim ? geometry.rows : geometry.rowLength) *=
        type.getDimSize(d);
  return geometry;
}
