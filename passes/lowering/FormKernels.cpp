//===- FormKernels.cpp - --tfc-form-kernels -------------------------------===//
//
// Unfused compilation: one tfc.fusion per op. Codegen and the runtime only
// ever see fusions, so the later fusion pass changes nothing downstream but
// the grouping.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tfc {
#define GEN_PASS_DEF_TFCFORMKERNELSPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// Replaces `op` by a tfc.fusion of `kind` holding a clone of it. Distinct
/// operands become the fusion's inputs, except results of tfc.constant,
/// which are cloned into the body: a splat there costs nothing, and as an
/// input it would cost a buffer and a load. GEMM kernels are the exception:
/// cuBLASLt reads its operands from memory, so a constant operand stays an
/// input (and becomes a kernel of its own); so do sort kernels, which hold
/// their one sort alone.
void wrapInFusion(Operation *op, KernelKind kind) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  SmallVector<Value> inputs;
  SmallVector<Operation *> constants;
  bool cloneConstants = kind != KernelKind::gemm && kind != KernelKind::sort;
  for (Value operand : op->getOperands()) {
    auto constant = operand.getDefiningOp<ConstantOp>();
    if (constant && cloneConstants) {
      if (!llvm::is_contained(constants, constant))
        constants.push_back(constant);
    } else if (!llvm::is_contained(inputs, operand)) {
      inputs.push_back(operand);
    }
  }

  auto fusion = builder.create<FusionOp>(
      loc, op->getResultTypes(),
      KernelKindAttr::get(builder.getContext(), kind), inputs);
  Block *body = new Block();
  fusion.getBody().push_back(body);
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));

  OpBuilder inner = OpBuilder::atBlockBegin(body);
  for (Operation *constant : constants)
    inner.clone(*constant, mapping);
  Operation *clone = inner.clone(*op, mapping);
  inner.create<YieldOp>(loc, clone->getResults());
  op->replaceAllUsesWith(fusion.getResults());
  op->erase();
}

struct TfcFormKernelsPass
    : public ::tfc::impl::TfcFormKernelsPassBase<TfcFormKernelsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<Operation *, KernelKind>> kernels;
    SmallVector<ConstantOp> constants;
    for (Block &block : func.getBody()) {
      for (Operation &op : block) {
        // Reshapes are views (bufferization aliases them), fusions are
        // already kernels; constants are handled after their users.
        if (isa<ReshapeOp, FusionOp>(op))
          continue;
        if (auto constant = dyn_cast<ConstantOp>(op)) {
          constants.push_back(constant);
          continue;
        }
        auto role = dyn_cast<KernelRoleOpInterface>(op);
        if (!role)
          continue;
        std::optional<KernelKind> kind =
            kernelKindForRole(role.getKernelRole());
        if (!kind) {
          op.emitOpError("is a composite op; run --tfc-decompose before "
                         "--tfc-form-kernels");
          return signalPassFailure();
        }
        kernels.push_back({&op, *kind});
      }
    }
    for (auto [op, kind] : kernels)
      wrapInFusion(op, kind);
    // Users in kernels now hold their own clones. A constant still used
    // outside (by a reshape or the return) needs a buffer, so it becomes a
    // pointwise kernel of its own.
    for (ConstantOp constant : constants) {
      if (constant->use_empty())
        constant->erase();
      else
        wrapInFusion(constant, KernelKind::pointwise);
    }
  }
};

} // namespace
