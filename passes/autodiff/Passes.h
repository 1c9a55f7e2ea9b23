//===- Passes.h - tfc autodiff passes ---------------------------*- C++ -*-===//
//
// Reverse-mode differentiation (see Passes.td for what each pass does):
// createTfcAutodiffPass(options) and registerTfcAutodiffPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_AUTODIFF_PASSES_H
#define TFC_PASSES_AUTODIFF_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/autodiff/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/autodiff/Passes.h.inc"

} // namespace tfc

#endif // TFC_PASSES_AUTODIFF_PASSES_H
