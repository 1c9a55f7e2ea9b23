//===- tfc-opt.cpp - the tfc pass driver ----------------------------------===//
//
// mlir-opt for tfc: parses, verifies and transforms tfc IR with the tfc
// dialects, the tfc passes and pipelines and the upstream passes tfc uses.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/InputFile.h"
#include "dialects/Registration.h"
#include "passes/Pipelines.h"
#include "passes/autodiff/Passes.h"
#include "passes/fusion/Passes.h"
#include "passes/layout/Passes.h"
#include "passes/lowering/Passes.h"
#include "passes/precision/Passes.h"
#include "passes/training/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tfc::registerAllDialects(registry);
  tfc::registerUpstreamPasses();
  tfc::registerTfcLoweringPasses();
  tfc::registerTfcAutodiffPasses();
  tfc::registerTfcFusionPasses();
  tfc::registerTfcPrecisionPasses();
  tfc::registerTfcLayoutPasses();
  tfc::registerTfcTrainingPasses();
  tfc::registerPipelines();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tfc optimizer driver: transforms tfc IR\n", registry);
  if (std::string problem = tfc::checkInputFile(input); !problem.empty()) {
    llvm::errs() << "tfc-opt: " << problem << "\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
