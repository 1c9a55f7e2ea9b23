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

/// Options of --tfc-train-pipeline: those of --tfc-build-train-step
/// (see passes/training/Passes.td), forwarded to it.
struct TrainPipelineOptions
    : public mlir::PassPipelineOptions<TrainPipelineOptions> {
  Option<std::string> function{*this, "function",
                               llvm::cl::desc("The loss function to train"),
                               llvm::cl::init("loss")};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("adamw, adam or sgd"),
                                llvm::cl::init("adamw")};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam first-moment decay"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2",
                       llvm::cl::desc("Adam second-moment decay"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("Adam epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (-1: the optimizer's torch default)"),
      llvm::cl::init(-1.0)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0.0)};
  Option<bool> nesterov{*this, "nesterov", llvm::cl::desc("SGD Nesterov"),
                        llvm::cl::init(false)};
  Option<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Global gradient-norm clipping (0: off)"),
      llvm::cl::init(0.0)};
  Option<bool> lossScaling{*this, "loss-scaling",
                           llvm::cl::desc("Dynamic loss scaling"),
                           llvm::cl::init(false)};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("Loss-scale growth factor"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("Loss-scale backoff factor"),
                               llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps between loss-scale growths"),
      llvm::cl::init(2000)};
};

/// Adds --tfc-train-pipeline to `pm`: --tfc-build-train-step with
/// `options`, then --tfc-lower-to-exec on @train_step (entry `train_step`).
void buildTrainPipeline(mlir::OpPassManager &pm,
                        const TrainPipelineOptions &options);

/// Registers every named tfc pipeline with the global pipeline registry.
void registerPipelines();

} // namespace tfc

#endif // TFC_PASSES_PIPELINES_H
