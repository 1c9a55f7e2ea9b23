//===- StepAccumulate.cpp - --tfc-step-accumulate -------------------------===//
//
// Stage 2: gradient accumulation. @train_step becomes @accumulate_step (its
// backward scaled by 1/k, the gradients summed into f32 accumulators) and a
// new @apply_step hands the accumulators to the later stages as the
// gradients and zeroes them.
//
//===----------------------------------------------------------------------===//

#include "passes/training/StepForm.h"
#include "passes/training/StepStages.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "llvm/ADT/BitVector.h"

namespace tfc {
#define GEN_PASS_DEF_TFCSTEPACCUMULATEPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcStepAccumulatePass
    : public ::tfc::impl::TfcStepAccumulatePassBase<TfcStepAccumulatePass> {
  using TfcStepAccumulatePassBase::TfcStepAccumulatePassBase;

  void runOnOperation() override {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_ACCUMULATE_OPTIONS, options)
    if (failed(::tfc::runStepAccumulate(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace

namespace tfc {

std::string
checkStepAccumulateOptions(const TfcBuildTrainStepPassOptions &options) {
  if (options.accumulateSteps < 1)
    return "accumulate-steps must be at least 1 (1: no accumulation)";
  return "";
}

LogicalResult runStepAccumulate(ModuleOp module,
                                const TfcBuildTrainStepPassOptions &options) {
  StringRef flag = stepStageFlag(StepStage::accumulate);
  if (std::string problem = checkStepAccumulateOptions(options);
      !problem.empty())
    return module.emitError(flag) << ": " << problem;
  if (options.accumulateSteps == 1)
    return success();
  FailureOr<SmallVector<func::FuncOp>> steps =
      enterStage(module, StepStage::accumulate, /*needGradients=*/true);
  if (failed(steps))
    return failure();
  auto train = module.lookupSymbol<func::FuncOp>("train_step");
  if (steps->size() != 1 || steps->front() != train)
    return module.emitError(flag)
           << ": expected one @train_step of --tfc-step-gradients";
  for (StringRef name : {"accumulate_step", "apply_step"})
    if (module.lookupSymbol(name))
      return train.emitError(flag)
             << ": the module already has a symbol @" << name;

  // @apply_step(params, accumulators): built first, while @train_step still
  // returns the gradients whose shapes and names it takes.
  SmallVector<StepGradient> grads = stepGradients(train);
  OpBuilder moduleBuilder(train);
  moduleBuilder.setInsertionPointAfter(train);
  SmallVector<Type> paramTypes;
  for (const StepGradient &grad : grads)
    paramTypes.push_back(grad.param.getType());
  auto apply = moduleBuilder.create<func::FuncOp>(
      train.getLoc(), "apply_step",
      moduleBuilder.getFunctionType(paramTypes, {}));
  for (auto [index, grad] : llvm::enumerate(grads))
    apply.setArgAttrs(index, train.getArgAttrDict(grad.param.getArgNumber()));
  apply.addEntryBlock();
  OpBuilder::atBlockEnd(&apply.front())
      .create<func::ReturnOp>(train.getLoc());
  apply->setAttr(kStepStagesAttrName, train->getAttr(kStepStagesAttrName));

  train.setName("accumulate_step");
  Location loc = stepReturn(train).getLoc();
  // (loss / k).backward(): the whole backward scaled by 1/k.
  scaleLossSeed(train, [&](OpBuilder &b, Value seed) {
    VjpBuilder v(b, loc);
    return v.div(seed, v.scalar(tensorTypeOf(seed).getElementType(),
                                double(options.accumulateSteps)));
  });

  OpBuilder builder(stepReturn(train));
  VjpBuilder v(builder, loc);
  llvm::BitVector gradResults(train.getNumResults());
  // The accumulators, added to each function at once (one function type
  // change, not one per parameter).
  SmallVector<NewStepArgument> accumulators;
  for (const StepGradient &grad : grads) {
    std::string name =
        (stepArgumentName(train, grad.param.getArgNumber()) + kGradAccumSuffix)
            .str();
    // Summed in f32 whatever the gradient's type (as torch's .grad of an f32
    // master weight), in f64 for an f64 parameter (f32 would drop its bits).
    auto gradType = tensorTypeOf(grad.value);
    Type accElement = gradType.getElementType().isF64()
                          ? gradType.getElementType()
                          : Type(builder.getF32Type());
    auto type = RankedTensorType::get(gradType.getShape(), accElement);
    accumulators.push_back({type, TfcDialect::kStateAttrName, name});
  }
  FailureOr<SmallVector<BlockArgument>> trainAccs =
      addStepArguments(train, StepStage::accumulate, accumulators);
  if (failed(trainAccs))
    return failure();
  FailureOr<SmallVector<BlockArgument>> applyAccs =
      addStepArguments(apply, StepStage::accumulate, accumulators);
  if (failed(applyAccs))
    return failure();
  SmallVector<NewStepResult> trainResults, applyResults;
  for (auto [grad, accumulator, trainAcc, applyAcc] :
       llvm::zip(grads, accumulators, *trainAccs, *applyAccs)) {
    const std::string &name = accumulator.name;
    auto type = cast<RankedTensorType>(accumulator.type);
    // A gradient has its parameter's type: a 16-bit parameter's sum is
    // rounded once, here (torch rounds its 16-bit .grad at every add).
    OpBuilder applyBuilder(stepReturn(apply));
    VjpBuilder av(applyBuilder, loc);
    Value summed =
        av.convert(applyAcc, tensorTypeOf(grad.param).getElementType());
    applyResults.push_back(
        {summed, kGradAttrName,
         stepArgumentName(apply, grad.param.getArgNumber()).str()});
    applyResults.push_back(
        {av.zeros(type), TfcDialect::kUpdateAttrName, name});
    builder.setInsertionPoint(stepReturn(train));
    gradResults.set(grad.result);
    trainResults.push_back(
        {v.add(trainAcc, v.convert(grad.value, type.getElementType())),
         TfcDialect::kUpdateAttrName, name});
  }
  addStepResults(apply, applyResults);
  addStepResults(train, trainResults);
  // The gradient results sit before every update, so their indices hold.
  gradResults.resize(train.getNumResults());
  eraseStepResults(train, gradResults);
  return success();
}

} // namespace tfc
