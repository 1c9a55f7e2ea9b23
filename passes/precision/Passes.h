//===- Passes.h - tfc precision passes --------------------------*- C++ -*-===//
//
// Mixed precision (see Passes.td for what each pass does):
// createTfcAutoMixedPrecisionPass(options) and registerTfcPrecisionPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_PRECISION_PASSES_H
#define TFC_PASSES_PRECISION_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/precision/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/precision/Passes.h.inc"

} // namespace tfc

#endif // TFC_PASSES_PRECISION_PASSES_H
