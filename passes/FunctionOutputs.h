//===- FunctionOutputs.h - a function's named outputs -----------*- C++ -*-===//
//
// A step function names its results with tfc.output ("loss", "found_inf",
// ...). Passes that look for one of them (the loss, whose producers are the
// forward) read it here.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUNCTIONOUTPUTS_H
#define TFC_PASSES_FUNCTIONOUTPUTS_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tfc {

/// The value `func` returns as its tfc.output `name`, or null.
inline mlir::Value namedOutput(mlir::func::FuncOp func, llvm::StringRef name) {
  auto ret = llvm::cast<mlir::func::ReturnOp>(
      func.getBody().front().getTerminator());
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (auto attr = func.getResultAttrOfType<mlir::StringAttr>(
            i, mlir::tfc::TfcDialect::kOutputAttrName);
        attr && attr.getValue() == name)
      return ret.getOperand(i);
  return mlir::Value();
}

} // namespace tfc

#endif // TFC_PASSES_FUNCTIONOUTPUTS_H
