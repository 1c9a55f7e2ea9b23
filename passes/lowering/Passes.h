//===- Passes.h - tfc lowering passes ---------------------------*- C++ -*-===//
//
// The passes of --tfc-lower-to-exec (see Passes.td for what each does):
// createTfcDecomposePass(), createTfcFormKernelsPass(),
// createTfcConvertToExecPass(options), createTfcDedupeKernelsPass(),
// createTfcScheduleKernelsPass(options), and registerTfcLoweringPasses(); and
// populateDecompositionPatterns(), the decompositions as rewrite patterns.
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

namespace mlir {
class RewritePatternSet;
namespace tfc {
/// The rewrites of --tfc-decompose as patterns, one per composite op type
/// (attention, softmax / log_softmax and their gradients over a non-last
/// dim, reductions over leading and trailing dims at once, layer_norm_grad,
/// rms_norm_grad, embedding_grad) plus matmul's batch broadcasting: each
/// applies only where its op is composite, so later passes (precision,
/// padding, recompute) can reuse them with any driver.
void populateDecompositionPatterns(RewritePatternSet &patterns);
} // namespace tfc
} // namespace mlir

#endif // TFC_PASSES_LOWERING_PASSES_H
