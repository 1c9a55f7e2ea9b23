//===- Pipelines.h - named tfc pass pipelines -------------------*- C++ -*-===//
//
// The pipelines tfc's tools run by name (tfc-opt --<name>), built in C++ so
// that the JIT session can run the same ones in process.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_PIPELINES_H
#define TFC_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace tfc {

/// Options of --tfc-lower-to-exec.
struct LowerToExecOptions
    : public mlir::PassPipelineOptions<LowerToExecOptions> {
  Option<std::string> function{
      *this, "function",
      llvm::cl::desc("The function to lower into tfcrt.entry @forward"),
      llvm::cl::init("loss")};
  Option<bool> autodiff{
      *this, "autodiff",
      llvm::cl::desc("Run --tfc-autodiff on `function` first and lower its "
                     "gradient function <function>_grad (outputs: the loss, "
                     "then one gradient per tfc.param argument)"),
      llvm::cl::init(false)};
};

/// Adds --tfc-lower-to-exec to `pm` (a pass manager on builtin.module):
/// [tfc-autodiff,] tfc-decompose, canonicalize, tfc-form-kernels,
/// tfc-convert-to-exec.
void buildLowerToExecPipeline(mlir::OpPassManager &pm,
                              const LowerToExecOptions &options);

/// Adds --tfc-train-pipeline to `pm`: --tfc-build-train-step configured by
/// `stepOptions` in that pass's own syntax (e.g. "optimizer=sgd
/// momentum=0.9"; its options are the single list, passes/training/Passes.td),
/// then --tfc-lower-to-exec on @train_step (entry `train_step`). Bad options
/// go to `errorHandler` and fail.
mlir::LogicalResult
buildTrainPipeline(mlir::OpPassManager &pm, llvm::StringRef stepOptions,
                   llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                       errorHandler);

/// Registers every named tfc pipeline with the global pipeline registry.
void registerPipelines();

} // namespace tfc

#endif // TFC_PASSES_PIPELINES_H
