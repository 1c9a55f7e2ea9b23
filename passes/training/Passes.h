//===- Passes.h - tfc training passes ---------------------------*- C++ -*-===//
//
// Training-step construction (see Passes.td for what each pass does):
// createTfcBuildTrainStepPass(options) and registerTfcTrainingPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_PASSES_H
#define TFC_PASSES_TRAINING_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/training/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/training/Passes.h.inc"

} // namespace tfc

#endif // TFC_PASSES_TRAINING_PASSES_H
