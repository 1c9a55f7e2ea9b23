//===- TfcLinalgOps.cpp - tfc matmul --------------------------------------===//
//
// The matmul verifier: ranks, dtypes, contraction sizes, batch broadcasting
// and the result type, each with its own message so that a wrong linear
// layer in a model file points at the exact mismatch.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcLinalgOps.cpp.inc"

void TfcDialect::registerLinalgOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcLinalgOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

KernelRole MatmulOp::getKernelRole() { return KernelRole::Gemm; }

namespace {
/// The matrix of one operand after its optional transpose.
struct MatrixDims {
  int64_t rows;
  int64_t cols;
};

MatrixDims matrixDims(ArrayRef<int64_t> shape, bool transposed) {
  int64_t r = shape[shape.size() - 2], c = shape.back();
  return transposed ? MatrixDims{c, r} : MatrixDims{r, c};
}
} // namespace

LogicalResult MatmulOp::verify() {
  auto aType = cast<RankedTensorType>(getA().getType());
  auto bType = cast<RankedTensorType>(getB().getType());
  auto resultType = cast<RankedTensorType>(getType());
  for (auto [name, type] : {std::pair{"a", aType}, std::pair{"b", bType}})
    if (type.getRank() < 2)
      return emitOpError("operand '")
             << name << "' must have rank >= 2 (a matrix or a batch of "
             << "matrices), got rank " << type.getRank();

  Type elementType = aType.getElementType();
  if (elementType != bType.getElementType())
    return emitOpError("operands must have the same element type, got ")
           << elementType << " and " << bType.getElementType();

  // K of op(a) is its column count, K of op(b) its row count.
  MatrixDims a = matrixDims(aType.getShape(), getTransposeA());
  MatrixDims b = matrixDims(bType.getShape(), getTransposeB());
  if (a.cols != b.rows)
    return emitOpError("contraction sizes differ: op(a) is ")
           << a.rows << "x" << a.cols << " but op(b) is " << b.rows << "x"
           << b.cols << " (op = transposed when transpose_a/b is set)";

  ArrayRef<int64_t> aBatch = aType.getShape().drop_back(2);
  ArrayRef<int64_t> bBatch = bType.getShape().drop_back(2);
  std::optional<SmallVector<int64_t>> batch = broadcastShapes(aBatch, bBatch);
  if (!batch)
    return emitOpError("batch dimensions are not broadcast-compatible (")
           << formatShape(aBatch) << " and " << formatShape(bBatch) << ")";

  SmallVector<int64_t> expected = std::move(*batch);
  expected.append({a.rows, b.cols});
  if (resultType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << formatShape(resultType.getShape()) << " does not match "
           << formatShape(expected) << " (batch dims, then M x N)";

  // 16-bit operands may keep the fp32 accumulator as the output.
  Type resultElement = resultType.getElementType();
  bool isHalf = elementType.isF16() || elementType.isBF16();
  if (resultElement != elementType && !(isHalf && resultElement.isF32())) {
    InFlightDiagnostic diag = emitOpError("result element type must be ");
    if (isHalf)
      diag << elementType << " or " << Float32Type::get(getContext());
    else
      diag << elementType;
    return diag << " for " << elementType << " operands, got " << resultElement;
  }
  return success();
}
