//===- LearningRate.cpp - the learning-rate schedule on the device --------===//

#include "passes/training/LearningRate.h"

using mlir::Value;

namespace tfc {

llvm::SmallVector<ScheduleInput>
scheduleInputs(const TfcBuildTrainStepPassOptions &options) {
  return {{"lr", false}};
}

std::string checkScheduleOptions(const TfcBuildTrainStepPassOptions &options) {
  if (options.schedule != "constant")
    return "unknown schedule '" + options.schedule + "' (expected constant)";
  return "";
}

Value buildLearningRate(mlir::OpBuilder &builder, mlir::Location loc,
                        const TfcBuildTrainStepPassOptions &options,
                        llvm::ArrayRef<Value> inputs, Value stepsTaken) {
  return inputs.front();
}

} // namespace tfc
