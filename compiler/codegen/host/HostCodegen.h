//===- HostCodegen.h - host program of one tfc kernel -----------*- C++ -*-===//
//
// Serializes the body of a kernel (a tfc.fusion region or the region of a
// tfcrt.kernel symbol: block arguments = inputs, tfc ops, tfc.yield =
// outputs) in the host program text format of docs/execution.md §5, which
// the host backend's interpreter (runtime/src/host) reads:
//
//   tfc-host-program 1
//   kind pointwise
//   in %0 f32 16x64x128
//   in %1 f32 128
//   op %2 add f32 16x64x128 (%0, %1)
//   op %3 gelu f32 16x64x128 (%2) approximate=tanh
//   out %3
//
// Values are numbered in order (block arguments first). Every attribute of
// every op is written, defaults included, so the interpreter never guesses:
// integers, floats in shortest round-trip form (`inf`, `-inf`, `nan`), lists
// `[a,b]`, keywords (enum names, `true`/`false`). Further results of a
// multi-result op (layer_norm: mean, rstd; rms_norm: rstd) follow on
// `result` lines, `op %5 result f32 8x1 (%4) index=1`, so each line defines
// one value with its dtype and shape; an absent optional operand is `_`.
// Constants list their values, a splat as one value: `value=[1.5]`.
// Every line is checked against its row of common/HostOps.def (operand and
// result counts, absent operands, attribute keys) before it is written, so
// a drift between this writer and the runtime's parser is a compile-time
// diagnostic, not an artifact that fails to load.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_HOST_HOSTCODEGEN_H
#define TFC_COMPILER_CODEGEN_HOST_HOSTCODEGEN_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/Block.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tfc {

/// Returns the host program of `body` as a kernel of kind `kind`. The body
/// must pass the tfc.fusion kernel rules for `kind`; an op that cannot be in
/// a kernel (matmul, attention, nested fusions, other dialects), a
/// non-static or unsupported type, or a constant not stored as a
/// DenseElementsAttr gets an MLIR diagnostic at the op and failure.
FailureOr<std::string> emitHostProgram(Block &body, KernelKind kind);

/// One row of common/HostOps.def, the schema host programs share with the
/// runtime's parser: the op's name (its tfc mnemonic), operand count (-1:
/// one or more), first operand that may be absent (-1: none), result count
/// and the attribute keys its line spells out (space-separated).
struct HostOpSchema {
  StringRef name;
  int operands;
  int optionalFrom;
  int results;
  StringRef attributes;
};

/// Every row of common/HostOps.def.
ArrayRef<HostOpSchema> hostOpSchemas();

} // namespace mlir::tfc

#endif // TFC_COMPILER_CODEGEN_HOST_HOSTCODEGEN_H
