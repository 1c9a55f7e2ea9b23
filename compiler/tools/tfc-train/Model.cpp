//===- Model.cpp - what tfc-train needs to know about a model -------------===//

#include "compiler/tools/tfc-train/Model.h"
#include "dialects/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

bool tfc::train::inspectModel(const std::string &path,
                              const std::string &function, ModelInfo &info,
                              std::string &error) {
  info = ModelInfo();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = "cannot open '" + path + "': " + file.getError().message();
    return false;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  DialectRegistry registry;
  tfc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  llvm::raw_string_ostream errors(error);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, errors);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return false;
  auto func = module->lookupSymbol<func::FuncOp>(function);
  if (!func) {
    error = "model '" + path + "' has no function @" + function;
    return false;
  }
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getArgument(i).getType());
    if (!type || !type.hasStaticShape())
      continue; // the compiler reports unsupported types itself
    ModelArgument arg;
    arg.shape.assign(type.getShape().begin(), type.getShape().end());
    arg.elementType = typeName(type.getElementType());
    if (auto name = func.getArgAttrOfType<StringAttr>(i, "tfc.param")) {
      arg.name = name.str();
      info.params.push_back(arg);
    } else if (auto name = func.getArgAttrOfType<StringAttr>(i, "tfc.input")) {
      arg.name = name.str();
      bool stream = (arg.name == kDropoutSeedInput ||
                     arg.name == kDropoutOffsetInput) &&
                    arg.shape.empty() && arg.elementType == "i64";
      if (stream)
        info.randomStream.push_back(arg.name);
      else
        info.inputs.push_back(arg);
    }
  }
  if (info.params.empty()) {
    error = "model '" + path + "' has no parameters to train: mark them with "
            "{tfc.param = \"name\"} on arguments of @" + function;
    return false;
  }
  return true;
}

bool tfc::train::checkLanguageModel(const std::string &path, ModelInfo &info,
                                    std::string &error) {
  const ModelArgument *tokens = nullptr, *targets = nullptr;
  for (const ModelArgument &arg : info.inputs) {
    if (arg.name == "tokens")
      tokens = &arg;
    if (arg.name == "targets")
      targets = &arg;
  }
  if (!tokens || !targets) {
    error = "model '" + path + "' needs inputs named \"tokens\" and "
            "\"targets\" to train on text or synthetic:copy (other models "
            "train on a safetensors file of examples: --data FILE.safetensors)";
    return false;
  }
  auto isIndex = [](const ModelArgument &arg) {
    return arg.elementType == "i64" || arg.elementType == "i32";
  };
  if (tokens->shape.size() != 2 || !isIndex(*tokens) ||
      tokens->shape != targets->shape || !isIndex(*targets)) {
    error = "model '" + path + "': \"tokens\" and \"targets\" must both be "
            "[batch, seq] tensors of i64 or i32";
    return false;
  }
  info.batch = tokens->shape[0];
  info.seqLen = tokens->shape[1];
  return true;
}
