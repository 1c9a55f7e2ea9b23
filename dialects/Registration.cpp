//===- Registration.cpp - dialects and passes every tfc tool uses ---------===//

#include "dialects/Registration.h"
#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfcrt/TfcrtDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void tfc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tfc::TfcDialect, mlir::tfcrt::TfcrtDialect,
                  mlir::func::FuncDialect>();
}

void tfc::registerUpstreamPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  mlir::registerSCCPPass();
}
