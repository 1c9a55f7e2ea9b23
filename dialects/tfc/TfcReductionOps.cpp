//===- TfcReductionOps.cpp - tfc reduce_sum, reduce_mean, reduce_max, sort ===//
//
// Result-type inference (which also checks the dims list) and kernel roles
// of the reduction group. Folders live in TfcFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcReductionOps.cpp.inc"

void TfcDialect::registerReductionOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcReductionOps.cpp.inc"
      >();
}

namespace {
/// Checks `dims` against an operand of rank `rank` and returns them mapped
/// to [0, rank) and sorted. The dims rules are checked here rather than in a
/// verifier because inference runs first (InferTypeOpInterface verifies
/// before hasVerifier would) and cannot infer anything from bad dims.
FailureOr<SmallVector<int64_t>> checkReduceDims(std::optional<Location> loc,
                                                ArrayRef<int64_t> dims,
                                                int64_t rank) {
  if (dims.empty())
    return emitOptionalError(loc, "dims must not be empty");
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> normalized;
  for (int64_t dim : dims) {
    std::optional<int64_t> d = normalizeDim(dim, rank);
    if (!d)
      return emitOptionalError(loc, "dim ", dim, " is out of range [", -rank,
                               ", ", rank, ") for an operand of rank ", rank);
    // -1 and rank-1 name the same dimension, so duplicates are checked
    // after normalization.
    if (seen.test(*d))
      return emitOptionalError(loc, "dim ", dim, " reduces dimension ", *d,
                               " more than once");
    seen.set(*d);
    normalized.push_back(*d);
  }
  llvm::sort(normalized);
  return normalized;
}

/// Shared inference: the operand shape without (or with size-1 instead of)
/// the reduced dimensions, same element type.
LogicalResult inferReduceType(std::optional<Location> loc, Type operandType,
                              ArrayRef<int64_t> dims, bool keepdim,
                              SmallVectorImpl<Type> &inferred) {
  auto tensor = dyn_cast<RankedTensorType>(operandType);
  if (!tensor)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  FailureOr<SmallVector<int64_t>> normalized =
      checkReduceDims(loc, dims, tensor.getRank());
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
    if (!llvm::is_contained(*normalized, static_cast<int64_t>(d)))
      shape.push_back(size);
    else if (keepdim)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, tensor.getElementType()));
  return success();
}

/// Kernel role from the sorted reduced dims of a rank-`rank` operand: a
/// trailing suffix keeps each row contiguous (one warp or block per row);
/// leaving the last dim alone reduces strided columns (two-stage kernel);
/// mixing both needs two kernels, which lowering produces by splitting.
KernelRole reduceRole(ArrayRef<int64_t> sortedDims, int64_t rank) {
  bool isSuffix = llvm::all_of(llvm::enumerate(sortedDims), [&](auto entry) {
    return entry.value() ==
           rank - static_cast<int64_t>(sortedDims.size() - entry.index());
  });
  if (isSuffix)
    return KernelRole::RowReduction;
  if (sortedDims.back() != rank - 1)
    return KernelRole::ColumnReduction;
  return KernelRole::Composite;
}

/// rows = number of output elements, rowLength = elements reduced into each.
/// For a row reduction this is rowGeometryOf(type, firstReducedDim); for the
/// other roles it is the same count, useful for cost estimates.
RowGeometry reduceGeometry(ShapedType type, ArrayRef<int64_t> sortedDims) {
  RowGeometry geometry{1, 1};
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    (llvm::is_contained(sortedDims, d) ? geometry.rowLength : geometry.rows) *=
        type.getDimSize(d);
  return geometry;
}
} // namespace

#define TFC_DEFINE_REDUCE(OP)                                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduceType(loc, adaptor.getX().getType(), adaptor.getDims(),   \
                           adaptor.getKeepdim(), inferred);                    \
  }                                                                            \
  SmallVector<int64_t> OP::getNormalizedDims() {                               \
    int64_t rank = getX().getType().getRank();                                 \
    SmallVector<int64_t> dims = llvm::map_to_vector(                           \
        getDims(), [&](int64_t d) { return *normalizeDim(d, rank); });         \
    llvm::sort(dims);                                                          \
    return dims;                                                               \
  }                                                                            \
  KernelRole OP::getKernelRole() {                                             \
    return reduceRole(getNormalizedDims(), getX().getType().getRank());        \
  }                                                                            \
  RowGeometry OP::getRowGeometry() {                                           \
    return reduceGeometry(getX().getType(), getNormalizedDims());              \
  }
TFC_DEFINE_REDUCE(ReduceSumOp)
TFC_DEFINE_REDUCE(ReduceMeanOp)
TFC_DEFINE_REDUCE(ReduceMaxOp)
#undef TFC_DEFINE_REDUCE

//===----------------------------------------------------------------------===//
// SortOp
//===----------------------------------------------------------------------===//

LogicalResult SortOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  if (x.getRank() == 0)
    return emitOptionalError(loc, "sort needs an operand of rank >= 1 (it "
                                  "sorts the last dimension)");
  inferred.push_back(x);
  inferred.push_back(
      RankedTensorType::get(x.getShape(), IntegerType::get(context, 64)));
  return success();
}

KernelRole SortOp::getKernelRole() { return KernelRole::Sort; }
