//===- TfcrtOps.h - tfcrt ops and buffer helpers ----------------*- C++ -*-===//
//
// The tfcrt ops (generated from TfcrtOps.td) and the byte-size rules that
// the verifiers, the lowering and the artifact writer share.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFCRT_TFCRTOPS_H
#define TFC_DIALECTS_TFCRT_TFCRTOPS_H

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfcrt/TfcrtDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::tfcrt {

/// Bytes one element of `elementType` occupies in a buffer: 1 for i1 (stored
/// as a byte, 0 or 1), 2 for f16/bf16, 4 for f32/i32, 8 for f64/i64.
/// std::nullopt for a type that is not a tfc element type.
std::optional<int64_t> getStorageBytes(Type elementType);

/// Bytes a statically shaped buffer of a tfc element type occupies
/// (element count times getStorageBytes); std::nullopt for other types or
/// when the size does not fit in int64_t.
std::optional<int64_t> getBufferBytes(ShapedType type);

/// The memref buffer type holding a value of ranked tensor type `type`:
/// same shape and element type, identity layout.
MemRefType getBufferType(RankedTensorType type);

/// True when `buffer` holds a value of `tensor`: both are shaped types with
/// the same shape and element type.
bool bufferMatchesTensor(Type buffer, Type tensor);

} // namespace mlir::tfcrt

#define GET_OP_CLASSES
#include "dialects/tfcrt/TfcrtOps.h.inc"

#endif // TFC_DIALECTS_TFCRT_TFCRTOPS_H
