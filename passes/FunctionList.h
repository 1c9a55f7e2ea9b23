//===- FunctionList.h - the functions a pass option names -------*- C++ -*-===//
//
// Passes that work on some functions of a module take them as a
// comma-separated `function=` option: the step functions a pipeline
// built, or the user's choice. One reading of that option for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUNCTIONLIST_H
#define TFC_PASSES_FUNCTIONLIST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace tfc {

/// How lookupFunctions treats a name with no function behind it.
enum class MissingFunction {
  Error, ///< emit "<passFlag>: no func.func @<name> to <purpose>", fail
  Skip,  ///< leave it out (a pipeline lists the step functions it may build)
};

/// The functions `list` names (comma-separated, spaces around names
/// ignored), in that order; every function of the module when `list` is
/// empty.
inline mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
lookupFunctions(mlir::ModuleOp module, llvm::StringRef list,
                MissingFunction missing, llvm::StringRef passFlag = "",
                llvm::StringRef purpose = "") {
  llvm::SmallVector<mlir::func::FuncOp> funcs;
  if (list.trim().empty()) {
    llvm::append_range(funcs, module.getOps<mlir::func::FuncOp>());
    return funcs;
  }
  llvm::SmallVector<llvm::StringRef> names;
  llvm::SplitString(list, names, ",");
  for (llvm::StringRef name : names) {
    auto f = module.lookupSymbol<mlir::func::FuncOp>(name.trim());
    if (f) {
      funcs.push_back(f);
      continue;
    }
    if (missing == MissingFunction::Skip)
      continue;
    module.emitError(passFlag)
        << ": no func.func @" << name.trim() << " to " << purpose;
    return mlir::failure();
  }
  return funcs;
}

} // namespace tfc

#endif // TFC_PASSES_FUNCTIONLIST_H
