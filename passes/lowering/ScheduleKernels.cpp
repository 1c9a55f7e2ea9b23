//===- ScheduleKernels.cpp - --tfc-schedule-kernels -----------------------===//
//
// Records on every tfcrt.kernel the launch schedule chooseKernelSchedule
// picks for the target, so the decision is visible in the IR (and in the
// kernel's dedupe identity) instead of inside the CUDA emitters.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "dialects/tfc/TfcKernelSchedule.h"
#include "dialects/tfcrt/TfcrtOps.h"

namespace tfc {
#define GEN_PASS_DEF_TFCSCHEDULEKERNELSPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;

namespace {

struct TfcScheduleKernelsPass
    : public ::tfc::impl::TfcScheduleKernelsPassBase<TfcScheduleKernelsPass> {
  using TfcScheduleKernelsPassBase::TfcScheduleKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<mlir::tfc::KernelTarget> chosen = mlir::tfc::parseKernelTarget(target);
    if (!chosen) {
      module.emitError() << "unknown target '" << target << "' (expected "
                         << mlir::tfc::kernelTargetNames() << ")";
      return signalPassFailure();
    }
    if (rowUnroll < 0 || rowUnroll > mlir::tfc::kMaxScheduleUnroll) {
      module.emitError() << "row-unroll must be in [1, "
                         << mlir::tfc::kMaxScheduleUnroll
                         << "] (or 0: the target's choice), got "
                         << static_cast<int64_t>(rowUnroll);
      return signalPassFailure();
    }
    for (auto kernel : module.getOps<tfcrt::KernelOp>()) {
      mlir::tfc::KernelScheduleAttr schedule = mlir::tfc::chooseKernelSchedule(
          &getContext(), kernel.getKind(), kernel.getBodyBlock(), *chosen,
          rowUnroll);
      if (schedule)
        kernel.setScheduleAttr(schedule);
      else
        kernel.removeScheduleAttr();
    }
  }
};

} // namespace
