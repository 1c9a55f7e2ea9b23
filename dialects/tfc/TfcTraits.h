//===- TfcTraits.h - element properties of tfc ops as op traits -*- C++ -*-===//
//
// The C++ side of the native op traits declared in TfcBase.td ("Op traits"
// there says what each one promises and which pass relies on it). An op
// states its properties in its own ODS definition, and passes ask
// `op->hasTrait<OpTrait::tfc::ElementLocal>()` instead of keeping lists of
// op classes, so a new pointwise op is described in one place.
//
// The traits carry no run-time verification: each is a fact about the op's
// math that its ODS definition asserts. ElementLocal checks at compile time
// that it comes with the traits it implies.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCTRAITS_H
#define TFC_DIALECTS_TFC_TFCTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::tfc {

/// Every element i of every result reads an operand that has the result's
/// shape at element i only (Tfc_ReadsAtResultIndex).
template <typename ConcreteType>
class ReadsAtResultIndex
    : public TraitBase<ConcreteType, ReadsAtResultIndex> {};

/// One result whose element i is the same function, at every index, of the
/// operand elements at index i (numpy broadcasting) alone
/// (Tfc_ElementLocal).
template <typename ConcreteType>
class ElementLocal : public TraitBase<ConcreteType, ElementLocal> {
public:
  static LogicalResult verifyTrait(Operation *) {
    static_assert(ConcreteType::template hasTrait<ReadsAtResultIndex>(),
                  "ElementLocal implies ReadsAtResultIndex: attach "
                  "Tfc_ElementLocal, which lists both");
    static_assert(ConcreteType::template hasTrait<OneResult>(),
                  "an ElementLocal op has one result");
    return success();
  }
};

/// f(0, ..., 0) = 0 up to the sign of zero (Tfc_KeepsZeros).
template <typename ConcreteType>
class KeepsZeros : public TraitBase<ConcreteType, KeepsZeros> {};

/// The op's CUDA code calls a slow-path routine of the math library
/// (Tfc_SlowPathMath).
template <typename ConcreteType>
class SlowPathMath : public TraitBase<ConcreteType, SlowPathMath> {};

} // namespace mlir::OpTrait::tfc

#endif // TFC_DIALECTS_TFC_TFCTRAITS_H
