//===- DedupeKernels.cpp - --tfc-dedupe-kernels ---------------------------===//
//
// One kernel per distinct body. Every layer of a transformer lowers to the
// same kernels on the same shapes, and each tfcrt.kernel costs an NVRTC
// compile (tens of milliseconds cold) and a module load, so kernels that
// differ only in their symbol are merged before the artifact is written.
//
// Candidates are bucketed by a hash of everything but the name; within a
// bucket the full comparison (KernelOp::isEquivalentIgnoringName) decides,
// so a hash collision can never merge two different kernels.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "dialects/tfcrt/TfcrtOps.h"

#include "llvm/ADT/DenseMap.h"

#include <unordered_map>

namespace tfc {
#define GEN_PASS_DEF_TFCDEDUPEKERNELSPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;
namespace tfcrt = mlir::tfcrt;

namespace {

struct TfcDedupeKernelsPass
    : public ::tfc::impl::TfcDedupeKernelsPassBase<TfcDedupeKernelsPass> {
  using TfcDedupeKernelsPassBase::TfcDedupeKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The kernels kept so far, by hash; the first of each class in module
    // order survives, so the kept names are those launched first.
    // (std::unordered_map: any size_t is a valid hash, and DenseMap
    // reserves two keys.)
    std::unordered_map<size_t, SmallVector<tfcrt::KernelOp, 1>> kept;
    llvm::DenseMap<StringAttr, FlatSymbolRefAttr> replacement;
    SmallVector<tfcrt::KernelOp> duplicates;
    for (auto kernel : module.getOps<tfcrt::KernelOp>()) {
      SmallVector<tfcrt::KernelOp, 1> &bucket =
          kept[static_cast<size_t>(kernel.hashIgnoringName())];
      auto *original = llvm::find_if(bucket, [&](tfcrt::KernelOp candidate) {
        return candidate.isEquivalentIgnoringName(kernel);
      });
      if (original == bucket.end()) {
        bucket.push_back(kernel);
        continue;
      }
      replacement[kernel.getSymNameAttr()] =
          FlatSymbolRefAttr::get(original->getSymNameAttr());
      duplicates.push_back(kernel);
    }
    if (duplicates.empty())
      return markAllAnalysesPreserved();

    // tfcrt.launch is the only op that refers to kernels.
    module.walk([&](tfcrt::LaunchOp launch) {
      if (FlatSymbolRefAttr target =
              replacement.lookup(launch.getKernelAttr().getAttr()))
        launch.setKernelAttr(target);
    });
    for (tfcrt::KernelOp duplicate : duplicates)
      duplicate.erase();
  }
};

} // namespace
