//===- Passes.h - tfc lowering passes ---------------------------*- C++ -*-===//
//
// The passes of --tfc-lower-to-exec (see Passes.td for what each does):
// createTfcDecomposePass(), createTfcFormKernelsPass(),
// createTfcConvertToExecPass(options), and registerTfcLoweringPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_LOWERING_PASSES_H
#define TFC_PASSES_LOWERING_PASSES_H

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfcrt/TfcrtDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/lowering/Passes.h.inc"

} // namespace tfc

#endif // TFC_PASSES_LOWERING_PASSES_H
