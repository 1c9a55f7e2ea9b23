//===- Model.cpp - what tfc-train needs to know about a model -------------===//

#include "compiler/tools/tfc-train/Model.h"
#include "compiler/tools/tfc-train/Report.h"
#include "dialects/Registration.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// Ops that pass a value on unchanged but for its shape or element type.
bool isView(Operation *op) {
  return op->getNumOperands() >= 1 && op->getNumResults() == 1 &&
         isa<mlir::tfc::ReshapeOp, mlir::tfc::ConvertOp,
             mlir::tfc::BroadcastToOp, mlir::tfc::TransposeOp>(op);
}

/// `v` and every value a chain of views makes of it.
SmallVector<Value> viewsOf(Value v) {
  SmallVector<Value> values = {v};
  for (size_t i = 0; i < values.size(); ++i)
    for (Operation *user : values[i].getUsers())
      if (isView(user) && user->getOperand(0) == values[i])
        values.push_back(user->getResult(0));
  return values;
}

/// What `v` is a view of.
Value throughViews(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isView(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether `v` is a normalized value: the `y` of tfc.layer_norm or
/// tfc.rms_norm, or a product with an rsqrt (x * rsqrt(var + eps)) or a
/// quotient by a sqrt.
bool isNormalized(Value v) {
  v = throughViews(v);
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<mlir::tfc::LayerNormOp, mlir::tfc::RmsNormOp>(def))
    return def->getResult(0) == v;
  auto definedBy = [](Value x, auto tag) {
    Operation *op = throughViews(x).getDefiningOp();
    return op && isa<decltype(tag)>(op);
  };
  if (isa<mlir::tfc::MulOp>(def))
    return definedBy(def->getOperand(0), mlir::tfc::RsqrtOp()) ||
           definedBy(def->getOperand(1), mlir::tfc::RsqrtOp());
  if (isa<mlir::tfc::DivOp>(def))
    return definedBy(def->getOperand(1), mlir::tfc::SqrtOp());
  return false;
}

/// Whether the parameter `param` scales a normalized value (ModelInfo's
/// normScales).
bool isNormScale(Value param) {
  for (Value v : viewsOf(param))
    for (Operation *user : v.getUsers()) {
      if (auto ln = dyn_cast<mlir::tfc::LayerNormOp>(user))
        if (ln.getWeight() == v)
          return true;
      if (auto rms = dyn_cast<mlir::tfc::RmsNormOp>(user))
        if (rms.getWeight() == v)
          return true;
      if (isa<mlir::tfc::MulOp>(user)) {
        Value other = user->getOperand(0) == v ? user->getOperand(1)
                                               : user->getOperand(0);
        if (other != v && isNormalized(other))
          return true;
      }
    }
  return false;
}

/// The smallest size of dim `dim` of operand `operand`'s type over the ops
/// of type OpT that take (a view of) `input` as operand `index`; 0 if none.
template <typename OpT>
int64_t sizeAtUse(Value input, unsigned index, unsigned operand,
                  unsigned dim) {
  int64_t size = 0;
  for (Value v : viewsOf(input))
    for (Operation *user : v.getUsers()) {
      if (!isa<OpT>(user) || user->getNumOperands() <= index ||
          user->getOperand(index) != v)
        continue;
      auto type =
          dyn_cast<RankedTensorType>(user->getOperand(operand).getType());
      if (!type || type.getRank() <= dim || type.isDynamicDim(dim))
        continue;
      int64_t n = type.getDimSize(dim);
      size = size == 0 ? n : std::min(size, n);
    }
  return size;
}
} // namespace

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

bool ::tfc::train::inspectModel(const std::string &path,
                              const std::string &function, ModelInfo &info,
                              std::string &error) {
  info = ModelInfo();
  if (std::string problem = notARegularFile(path);
      !problem.empty() && problem != "does not exist") {
    error = "model '" + path + "' " + problem + ", not an .mlir file";
    return false;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = "cannot open '" + path + "': " + file.getError().message();
    return false;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  DialectRegistry registry;
  ::tfc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  llvm::raw_string_ostream errors(error);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, errors);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return false;
  auto func = module->lookupSymbol<func::FuncOp>(function);
  if (!func) {
    std::string names;
    for (auto f : module->getOps<func::FuncOp>())
      names += (names.empty() ? "@" : ", @") + f.getName().str();
    error = "model '" + path + "' has no function @" + function +
            (names.empty() ? " (it has no functions)"
                           : " (its functions: " + names + ")");
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
      if (isNormScale(func.getArgument(i)))
        info.normScales.push_back(arg.name);
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
      if (arg.name == "tokens")
        info.tokenVocab = sizeAtUse<mlir::tfc::EmbeddingOp>(func.getArgument(i),
                                                      /*index=*/1,
                                                      /*operand=*/0, 0);
      if (arg.name == "targets")
        info.targetClasses = sizeAtUse<mlir::tfc::CrossEntropyOp>(
            func.getArgument(i), /*index=*/1, /*operand=*/0, 1);
    }
  }
  llvm::sort(info.normScales);
  if (info.params.empty()) {
    error = "model '" + path + "' has no parameters to train: mark them with "
            "{tfc.param = \"name\"} on arguments of @" + function;
    return false;
  }
  return true;
}

bool ::tfc::train::checkLanguageModel(const std::string &path, ModelInfo &info,
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
