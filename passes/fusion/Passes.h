//===- Passes.h - tfc fusion passes -----------------------------*- C++ -*-===//
//
// The fusion passes (see Passes.td for what each does): createTfcFusePass()
// and registerTfcFusionPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUSION_PASSES_H
#define TFC_PASSES_FUSION_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/fusion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/fusion/Passes.h.inc"

} // namespace tfc

#endif // TFC_PASSES_FUSION_PASSES_H
