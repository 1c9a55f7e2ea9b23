//===- TfcKernelRules.cpp - which ops can form one kernel -----------------===//
//
// Each kernel kind has one "anchor" role (the op that decides the kernel's
// iteration space: the reduction, the gather, the GEMM) and accepts pointwise
// ops around it, which codegen fuses as prologue/epilogue code of the
// anchor's loop. Pointwise kernels have no anchor; multi-tensor kernels
// may hold optimizer updates (their anchors) or only pointwise ops.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcKernelRules.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::tfc;

std::optional<KernelKind> mlir::tfc::kernelKindForRole(KernelRole role) {
  switch (role) {
  case KernelRole::Pointwise:
    return KernelKind::pointwise;
  case KernelRole::RowReduction:
    return KernelKind::row_reduction;
  case KernelRole::ColumnReduction:
    return KernelKind::column_reduction;
  case KernelRole::Gather:
    return KernelKind::gather;
  case KernelRole::Gemm:
    return KernelKind::gemm;
  case KernelRole::MultiTensor:
    return KernelKind::multi_tensor;
  case KernelRole::BlockQuantized:
    return KernelKind::block_quantized;
  case KernelRole::Composite:
    return std::nullopt;
  }
  llvm_unreachable("unknown kernel role");
}

/// The role of the op that anchors a kernel of `kind`, if the kind has one.
/// Multi-tensor kernels are anchored by optimizer updates (role MultiTensor)
/// but may also hold only pointwise ops (an unscale, a plain update written
/// with elementwise ops): see anchorIsOptional.
static std::optional<KernelRole> anchorRole(KernelKind kind) {
  switch (kind) {
  case KernelKind::pointwise:
    return std::nullopt;
  case KernelKind::multi_tensor:
    return KernelRole::MultiTensor;
  case KernelKind::row_reduction:
    return KernelRole::RowReduction;
  case KernelKind::column_reduction:
    return KernelRole::ColumnReduction;
  case KernelKind::gather:
    return KernelRole::Gather;
  case KernelKind::gemm:
    return KernelRole::Gemm;
  case KernelKind::block_quantized:
    return KernelRole::BlockQuantized;
  }
  llvm_unreachable("unknown kernel kind");
}

/// Whether a kernel of `kind` needs exactly one anchor op (a single gather or
/// GEMM defines the whole launch) rather than one or more (reductions over
/// the same rows or columns share one loop nest). A block_quantized kernel's
/// grid is the quantization blocks of its one op.
static bool needsExactlyOneAnchor(KernelKind kind) {
  return kind == KernelKind::gather || kind == KernelKind::gemm ||
         kind == KernelKind::block_quantized;
}

/// Whether a kernel of `kind` may have no anchor at all: a multi-tensor
/// launch iterates over its tensors, whatever ops compute them.
static bool anchorIsOptional(KernelKind kind) {
  return kind == KernelKind::multi_tensor;
}

namespace {
/// Builds a diagnostic only when a caller asked for one, so that fusion
/// passes can use the rules as a cheap predicate.
struct Reporter {
  function_ref<InFlightDiagnostic()> emitError;

  /// Fails with `message`, plus a note at each op of `culprits`.
  LogicalResult fail(const Twine &message,
                     ArrayRef<Operation *> culprits = {}) const {
    if (!emitError)
      return failure();
    InFlightDiagnostic diag = emitError();
    diag << message;
    for (Operation *op : culprits)
      diag.attachNote(op->getLoc()) << "'" << op->getName() << "' here";
    return diag;
  }
};
} // namespace

static std::string describe(const RowGeometry &geometry) {
  return std::to_string(geometry.rows) + " rows of " +
         std::to_string(geometry.rowLength);
}

LogicalResult
mlir::tfc::verifyKernelOps(ArrayRef<Operation *> ops, KernelKind kind,
                           function_ref<InFlightDiagnostic()> emitError) {
  Reporter report{emitError};
  StringRef kindName = stringifyKernelKind(kind);
  if (ops.empty())
    return report.fail("body must contain at least one op besides the "
                       "terminator");

  std::optional<KernelRole> anchor = anchorRole(kind);
  SmallVector<Operation *> anchors;
  for (Operation *op : ops) {
    StringRef name = op->getName().getStringRef();
    if (!isa_and_nonnull<TfcDialect>(op->getDialect()))
      return report.fail("'" + name +
                             "' is not a tfc op; a kernel body holds only "
                             "tfc ops",
                         op);
    auto roleOp = dyn_cast<KernelRoleOpInterface>(op);
    if (!roleOp)
      return report.fail("'" + name +
                             "' has no kernel role and cannot be part of a "
                             "kernel (fusions do not nest)",
                         op);
    KernelRole role = roleOp.getKernelRole();
    if (role == KernelRole::Pointwise)
      continue;
    if (role == KernelRole::Composite)
      return report.fail("'" + name +
                             "' is a composite op; lowering decomposes it "
                             "before kernels are formed",
                         op);
    if (role != anchor)
      return report.fail("a " + kindName + " kernel cannot hold '" + name +
                             "' (role " + stringifyKernelRole(role) + ")",
                         op);
    anchors.push_back(op);
  }

  if (!anchor)
    return success();
  StringRef anchorName = stringifyKernelRole(*anchor);
  if (anchors.empty() && !anchorIsOptional(kind))
    return report.fail("a " + kindName + " kernel needs at least one " +
                       anchorName + " op");
  if (needsExactlyOneAnchor(kind) && anchors.size() != 1)
    return report.fail("a " + kindName + " kernel holds exactly one " +
                           anchorName + " op, found " + Twine(anchors.size()),
                       anchors);

  // One row-reduction kernel maps one warp or block to each row, so every
  // reduction in it must walk the same rows.
  if (kind == KernelKind::row_reduction) {
    RowGeometry first =
        cast<KernelRoleOpInterface>(anchors.front()).getRowGeometry();
    for (Operation *op : ArrayRef(anchors).drop_front()) {
      RowGeometry geometry = cast<KernelRoleOpInterface>(op).getRowGeometry();
      if (geometry == first)
        continue;
      return report.fail("row reductions of one kernel must share their "
                         "rows: '" +
                             anchors.front()->getName().getStringRef() +
                             "' reduces " + describe(first) + " but '" +
                             op->getName().getStringRef() + "' reduces " +
                             describe(geometry),
                         {anchors.front(), op});
    }
  }
  return success();
}

LogicalResult
mlir::tfc::verifyKernelBody(Block &body, KernelKind kind,
                            function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    if (!op.hasTrait<OpTrait::IsTerminator>())
      ops.push_back(&op);
  return verifyKernelOps(ops, kind, emitError);
}
