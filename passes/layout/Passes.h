//===- Passes.h - tfc layout passes -----------------------------*- C++ -*-===//
//
// Shape padding (see Passes.td): createTfcPadShapesPass(options),
// registerTfcLayoutPasses(), and the padding multiples per target.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_LAYOUT_PASSES_H
#define TFC_PASSES_LAYOUT_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <optional>
#include <string>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/layout/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/layout/Passes.h.inc"

/// The multiples GEMM dimensions are padded to.
struct PadMultiples {
  int64_t rows = 1;       ///< M (batch x sequence for a linear layer)
  int64_t inner = 1;      ///< K
  int64_t cols = 1;       ///< N
  int64_t vocabulary = 1; ///< N of a GEMM producing cross-entropy logits
};

/// The multiples `pad` (auto, none or an integer N) asks for GEMMs of
/// `element` operands on `target` (sm_80, sm_90, host; f32 GEMMs `tf32`
/// when they run on TF32 tensor cores). std::nullopt for a malformed `pad`.
std::optional<PadMultiples> padMultiples(llvm::StringRef pad,
                                         llvm::StringRef target,
                                         mlir::Type element, bool tf32);

/// The largest multiple `pad=N` takes (a larger one would multiply the
/// program's memory for no tile any target has).
constexpr int64_t kMaxPadMultiple = 4096;

/// Whether `pad` is auto, none or an integer from 1 to kMaxPadMultiple.
bool isValidPadOption(llvm::StringRef pad);

/// "auto, none or an integer from 1 to 4096": what `pad` takes, for errors.
std::string padOptionValues();

} // namespace tfc

#endif // TFC_PASSES_LAYOUT_PASSES_H
