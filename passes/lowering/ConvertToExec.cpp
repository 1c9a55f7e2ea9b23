//===- ConvertToExec.cpp - --tfc-convert-to-exec --------------------------===//
//
// Bufferization and conversion to tfcrt in one step. After region formation
// a function is a straight line of tfc.fusion ops and reshapes, so
// bufferization needs no general analysis: every value gets exactly one
// buffer (an external binding, an arena slot or an alias), lifetimes are
// intervals over the launch order, and the arena planner packs them.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "passes/lowering/ArenaPlanner.h"

#include "common/GemmEpilogues.h"
#include "dialects/tfc/TfcGemmKernel.h"
#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"
#include "dialects/tfcrt/TfcrtInPlace.h"
#include "dialects/tfcrt/TfcrtOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <limits>

namespace tfc {
#define GEN_PASS_DEF_TFCCONVERTTOEXECPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;
namespace tfcrt = mlir::tfcrt;

namespace {

//===----------------------------------------------------------------------===//
// GEMM fields
//===----------------------------------------------------------------------===//

/// The cuBLASLt descriptor fields of a row-major strided-batched GEMM.
struct GemmFields {
  int64_t m, n, k, batch, lda, ldb, ldc, strideA, strideB, strideC;
};

/// The GEMM of a gemm fusion and its epilogue (TfcGemmKernel.h); the
/// tfc.fusion verifier has accepted the body, so this only fails on IR
/// built without verification.
FailureOr<GemmKernelOps> matchGemmFusion(FusionOp fusion) {
  SmallVector<Operation *> ops;
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    ops.push_back(&op);
  SmallVector<Value> outputs(fusion.getYield().getValues());
  return matchGemmKernel(ops, outputs,
                         [&]() { return fusion.emitOpError(); });
}

/// The tfcrt.gemm epilogue that computes what `gemm`'s epilogue ops do.
tfcrt::GemmEpilogue gemmEpilogue(GemmKernelOps &gemm) {
  using ::tfc::EpilogueOperand;
  using Activation = ::tfc::GemmActivation;
  EpilogueOperand bias = gemm.biasGrad  ? EpilogueOperand::Written
                         : gemm.biasAdd ? EpilogueOperand::Read
                                        : EpilogueOperand::None;
  EpilogueOperand aux = gemm.geluGrad                 ? EpilogueOperand::Read
                        : gemm.storesActivationInput ? EpilogueOperand::Written
                                                     : EpilogueOperand::None;
  Activation activation =
      gemm.geluGrad ? Activation::GeluTanhGrad
      : gemm.activationKind == GemmActivation::relu ? Activation::Relu
      : gemm.activationKind == GemmActivation::gelu ? Activation::GeluTanh
                                                    : Activation::None;
  // matchGemmKernel only forms kernels some epilogue of
  // common/GemmEpilogues.h computes, and the dialect's enum spells its name.
  const ::tfc::GemmEpilogueInfo *info =
      ::tfc::findGemmEpilogue(bias, activation, aux);
  std::optional<tfcrt::GemmEpilogue> epilogue =
      info ? tfcrt::symbolizeGemmEpilogue(info->name) : std::nullopt;
  if (!epilogue)
    llvm::report_fatal_error("gemm kernel with an epilogue that neither "
                             "common/GemmEpilogues.h nor tfcrt names");
  return *epilogue;
}

/// Maps `matmul`'s shapes onto a strided-batched GEMM. A rank-2 (or
/// batch-1) `b` against untransposed `a` is a linear layer: `a`'s batch
/// rows are contiguous, so they flatten into `m` and the GEMM is a single
/// large one. Otherwise each operand's batch is addressed with one stride
/// (0 when it has a single matrix), which --tfc-decompose guarantees.
FailureOr<GemmFields> computeGemmFields(MatmulOp matmul) {
  auto aType = cast<RankedTensorType>(matmul.getA().getType());
  auto bType = cast<RankedTensorType>(matmul.getB().getType());
  auto cType = cast<RankedTensorType>(matmul.getType());
  ArrayRef<int64_t> aShape = aType.getShape(), bShape = bType.getShape();
  ArrayRef<int64_t> aBatch = aShape.drop_back(2), bBatch = bShape.drop_back(2);
  ArrayRef<int64_t> cBatch = cType.getShape().drop_back(2);
  int64_t aRows = aShape[aShape.size() - 2], aCols = aShape.back();
  int64_t bRows = bShape[bShape.size() - 2], bCols = bShape.back();

  GemmFields fields;
  fields.m = cType.getShape()[cType.getRank() - 2];
  fields.n = cType.getShape().back();
  fields.k = matmul.getTransposeA() ? aRows : aCols;
  fields.lda = aCols;
  fields.ldb = bCols;
  fields.ldc = fields.n;
  fields.batch = ShapedType::getNumElements(cBatch);
  fields.strideA = fields.strideB = fields.strideC = 0;

  if (isSingleGemm(matmul)) {
    fields.m *= fields.batch;
    fields.batch = 1;
    return fields;
  }

  auto strideOf = [&](StringRef name, ArrayRef<int64_t> batch,
                      int64_t matrix) -> FailureOr<int64_t> {
    if (ShapedType::getNumElements(batch) == 1)
      return 0;
    SmallVector<int64_t> padded(cBatch.size() - batch.size(), 1);
    padded.append(batch.begin(), batch.end());
    if (ArrayRef<int64_t>(padded) == cBatch)
      return matrix;
    return matmul.emitOpError("batch dims ")
           << formatShape(batch) << " of '" << name
           << "' broadcast partially to " << formatShape(cBatch)
           << ", which one batch stride cannot express; run --tfc-decompose "
              "to broadcast them explicitly";
  };
  FailureOr<int64_t> strideA = strideOf("a", aBatch, aRows * aCols);
  if (failed(strideA))
    return failure();
  FailureOr<int64_t> strideB = strideOf("b", bBatch, bRows * bCols);
  if (failed(strideB))
    return failure();
  fields.strideA = *strideA;
  fields.strideB = *strideB;
  fields.strideC = fields.m * fields.n;
  return fields;
}

//===----------------------------------------------------------------------===//
// The lowering of one function
//===----------------------------------------------------------------------===//

class ExecLowering {
public:
  /// `symbols` and `kernelCounter` are shared by the lowerings of one
  /// module, so kernel symbols stay unique across its entries.
  ExecLowering(ModuleOp module, func::FuncOp func, int64_t alignment,
               bool inPlace, SymbolTable &symbols, unsigned &kernelCounter)
      : module(module), func(func), alignment(alignment), inPlace(inPlace),
        symbols(symbols), kernelCounter(kernelCounter) {}

  /// The entry a function lowers to: the functions of a training step keep
  /// their name, anything else is @forward.
  static StringRef entryName(func::FuncOp func) {
    StringRef name = func.getName();
    return llvm::is_contained({"train_step", "accumulate_step", "apply_step"},
                              name) ||
                   isRefresh(func)
               ? name
               : "forward";
  }

  /// A function computing state derived from the parameters (tfc.refresh):
  /// its entry is a refresh entry.
  static bool isRefresh(func::FuncOp func) {
    return func->hasAttr(TfcDialect::kRefreshAttrName);
  }

  /// Lowers the function into a tfcrt.entry and erases it.
  LogicalResult run() {
    if (failed(checkFunction()))
      return failure();
    if (inPlace)
      regenerateUpdates();
    if (failed(planBuffers()))
      return failure();
    emit();
    symbols.erase(func);
    return success();
  }

  /// The bytes of arena the entry needs (after run()).
  int64_t arenaSize() const { return arenaPlan.size; }

private:
  /// The value that owns the storage of `value`: reshapes alias their
  /// source.
  Value rootOf(Value value) {
    while (auto reshape = value.getDefiningOp<ReshapeOp>())
      value = reshape.getX();
    return value;
  }

  LogicalResult checkType(Type type, const Twine &what) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.hasStaticShape() &&
        tfcrt::getBufferBytes(tensor).has_value())
      return success();
    return func.emitOpError() << what << " has type " << type
                              << ", which has no tfcrt buffer type (a "
                                 "statically shaped tensor of a tfc element "
                                 "type is needed)";
  }

  LogicalResult checkFunction() {
    if (func.isExternal())
      return func.emitOpError("has no body to lower");
    if (!func.getBody().hasOneBlock())
      return func.emitOpError("must have a single block to be lowered");
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (failed(checkType(type, "argument #" + Twine(index))))
        return failure();
    for (auto [index, type] : llvm::enumerate(func.getResultTypes()))
      if (failed(checkType(type, "result #" + Twine(index))))
        return failure();

    for (Operation &op : func.getBody().front()) {
      if (isa<ReshapeOp, func::ReturnOp>(op))
        continue;
      auto fusion = dyn_cast<FusionOp>(op);
      if (!fusion) {
        if (isa<StopGradientOp, StraightThroughOp>(op))
          return op.emitOpError("is outside any tfc.fusion; run "
                                "--tfc-decompose first (it drops "
                                "stop_gradients and straight_throughs)");
        if (isa_and_nonnull<TfcDialect>(op.getDialect()))
          return op.emitOpError("is outside any tfc.fusion; run "
                                "--tfc-form-kernels first");
        return op.emitOpError("cannot be lowered to tfcrt");
      }
      if (fusion.getKind() != KernelKind::gemm)
        continue;
      FailureOr<GemmKernelOps> gemm = matchGemmFusion(fusion);
      if (failed(gemm))
        return failure();
      FailureOr<GemmFields> fields = computeGemmFields(gemm->matmul);
      if (failed(fields))
        return failure();
      gemmFields[fusion] = *fields;
    }
    return success();
  }

  /// An update computed by a kernel without inputs (the zeros gradient
  /// accumulators are reset to) is recomputed, by a clone of that kernel,
  /// just before the return: one clone per update, so each writes straight
  /// into its external after every read of the old value (CSE shares one
  /// zero tensor between all accumulators of a shape, and it comes first).
  void regenerateUpdates() {
    auto returnOp = cast<func::ReturnOp>(func.getBody().front().back());
    OpBuilder builder(returnOp);
    for (OpOperand &operand : returnOp->getOpOperands()) {
      if (!func.getResultAttr(operand.getOperandNumber(),
                              TfcDialect::kUpdateAttrName))
        continue;
      auto fusion = operand.get().getDefiningOp<FusionOp>();
      if (!fusion || !fusion.getInputs().empty() ||
          fusion.getKind() == KernelKind::gemm)
        continue;
      unsigned resultNumber = cast<OpResult>(operand.get()).getResultNumber();
      operand.set(builder.clone(*fusion)->getResult(resultNumber));
      if (fusion->use_empty())
        fusion->erase();
    }
  }

  /// Whether `value`, the new value of argument `arg`, is written by its
  /// kernel straight into the argument's external: the kernel is the last
  /// reader of the old value (`lastRead`: the step of the last launch that
  /// reads it, or `kReadAtEnd` when a copy does) and reads it only where
  /// checkInPlaceOutput allows. Records the kernel's in_place pair.
  bool tryUpdateInPlace(Value value, unsigned arg,
                        const llvm::DenseMap<Value, int64_t> &lastRead,
                        const llvm::DenseMap<Operation *, int64_t> &stepOf) {
    auto result = dyn_cast<OpResult>(value);
    auto fusion = result ? dyn_cast<FusionOp>(result.getOwner()) : FusionOp();
    if (!fusion || outputOf.count(value) || inPlaceOf.count(value))
      return false;
    BlockArgument old = func.getArgument(arg);
    auto it = lastRead.find(old);
    if (it != lastRead.end() && it->second > stepOf.lookup(fusion))
      return false;
    std::optional<unsigned> input;
    // The kernel may read the old value through one input, the one its
    // launch passes the external for; a second input or a view of it (read
    // at other indices) would see the new values.
    for (auto [index, operand] : llvm::enumerate(fusion.getInputs())) {
      if (rootOf(operand) != old)
        continue;
      if (operand != old || input)
        return false;
      input = index;
    }
    if (input && failed(tfcrt::checkInPlaceOutput(fusion.getBodyBlock(),
                                                  fusion.getKind(), *input,
                                                  result.getResultNumber())))
      return false;
    inPlaceOf[value] = arg;
    if (input)
      inPlacePairs[fusion].push_back({result.getResultNumber(), *input});
    return true;
  }

  /// Decides where every value lives and plans the arena.
  LogicalResult planBuffers() {
    auto returnOp = cast<func::ReturnOp>(func.getBody().front().back());
    // The argument each tfc.update result is written over.
    llvm::DenseMap<StringRef, unsigned> stateArgs;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      for (StringRef key :
           {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName})
        if (auto name = func.getArgAttrOfType<StringAttr>(i, key))
          stateArgs[name.getValue()] = i;
    // A result is written straight into its output buffer by the kernel
    // that computes it; anything else returned is copied there at the end.
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      if (auto target = func.getResultAttrOfType<StringAttr>(
              index, TfcDialect::kUpdateAttrName)) {
        auto it = stateArgs.find(target.getValue());
        if (it == stateArgs.end())
          return func.emitOpError("result #")
                 << index << " updates '" << target.getValue()
                 << "', which names no tfc.param or tfc.state argument";
        // An unchanged value needs no copy.
        if (value != func.getArgument(it->second))
          updates.push_back({value, it->second});
        continue;
      }
      if (value.getDefiningOp<FusionOp>() && !outputOf.count(value))
        outputOf[value] = index;
      else
        copies.push_back({value, static_cast<unsigned>(index)});
    }

    // Updates written in place by their kernel need no copy. Where an
    // argument is read last decides which can be: launches read it at
    // their step, the copies after the last launch.
    if (inPlace) {
      llvm::DenseMap<Operation *, int64_t> stepOf;
      llvm::DenseMap<Value, int64_t> lastRead;
      auto noteRead = [&](Value value, int64_t at) {
        if (auto argument = dyn_cast<BlockArgument>(rootOf(value)))
          lastRead[argument] = std::max(lastRead.lookup(argument), at);
      };
      int64_t at = 0;
      for (auto fusion : func.getBody().front().getOps<FusionOp>()) {
        stepOf[fusion] = at;
        for (Value input : fusion.getInputs())
          noteRead(input, at);
        ++at;
      }
      for (auto [value, index] : copies)
        noteRead(value, kReadAtEnd);
      for (auto [value, arg] : updates)
        noteRead(value, kReadAtEnd);
      llvm::erase_if(updates, [&](const std::pair<Value, unsigned> &update) {
        return tryUpdateInPlace(update.first, update.second, lastRead, stepOf);
      });
    }

    std::vector<int64_t> sizes;
    std::vector<::tfc::BufferLifetime> lifetimes;
    int64_t step = 0;
    auto use = [&](Value value, int64_t at) {
      auto it = arenaIndex.find(rootOf(value));
      if (it != arenaIndex.end())
        lifetimes[it->second].last = std::max(lifetimes[it->second].last, at);
    };
    for (Operation &op : func.getBody().front()) {
      auto fusion = dyn_cast<FusionOp>(op);
      if (!fusion)
        continue;
      for (Value input : fusion.getInputs())
        use(input, step);
      for (Value result : fusion.getResults()) {
        if (outputOf.count(result) || inPlaceOf.count(result))
          continue;
        std::optional<int64_t> bytes =
            tfcrt::getBufferBytes(cast<ShapedType>(result.getType()));
        if (!bytes)
          return fusion.emitOpError("result of type ")
                 << result.getType() << " has no buffer size that fits in "
                 << "int64_t bytes";
        arenaIndex[result] = sizes.size();
        sizes.push_back(*bytes);
        lifetimes.push_back({step, step});
      }
      ++step;
    }
    // The copies into output buffers run after the last launch.
    for (auto [value, index] : copies)
      use(value, step);
    for (auto [value, index] : updates)
      use(value, step);
    // Copies run in sequence and those from arguments run first, so one
    // may read an argument that a kernel result overwrites later, but not
    // one that another argument overwrites (a swap or a chain).
    for (auto [value, arg] : updates) {
      auto source = dyn_cast<BlockArgument>(rootOf(value));
      if (source && llvm::any_of(updates, [&](const auto &u) {
            return u.second == source.getArgNumber() &&
                   isa<BlockArgument>(rootOf(u.first));
          }))
        return func.emitOpError("result updating argument #")
               << arg << " reads argument #" << source.getArgNumber()
               << ", which is updated too; updates that exchange arguments "
                  "are not supported";
    }
    // Updates from arguments (or views of them) read them before any
    // update overwrites one.
    std::stable_partition(updates.begin(), updates.end(),
                          [&](const std::pair<Value, unsigned> &u) {
                            return isa<BlockArgument>(rootOf(u.first));
                          });

    std::string error;
    std::optional<::tfc::ArenaPlan> plan =
        ::tfc::planArena(sizes, lifetimes, alignment, &error);
    if (!plan)
      return func.emitOpError("arena planning failed: ") << error;
    arenaPlan = std::move(*plan);
    return success();
  }

  /// The name of output `index` of the function.
  std::string outputName(unsigned index) {
    if (auto name = func.getResultAttrOfType<StringAttr>(
            index, TfcDialect::kOutputAttrName))
      return name.str();
    if (func.getName() == "loss" && func.getNumResults() == 1 &&
        cast<RankedTensorType>(func.getResultTypes()[0]).getRank() == 0)
      return "loss";
    return "out" + std::to_string(index);
  }

  /// A fresh kernel symbol name `k<N>`.
  std::string kernelName() {
    std::string name;
    do
      name = "k" + std::to_string(kernelCounter++);
    while (symbols.lookup(name));
    return name;
  }

  static MemRefType bufferType(Value value) {
    return tfcrt::getBufferType(cast<RankedTensorType>(value.getType()));
  }

  void emit() {
    OpBuilder moduleBuilder(func);
    auto entry =
        moduleBuilder.create<tfcrt::EntryOp>(func.getLoc(), entryName(func),
                                             isRefresh(func));
    // What --tfc-recompute measured travels on to the artifact's manifest.
    if (Attribute saved =
            func->getAttr(TfcDialect::kSavedActivationBytesAttrName))
      entry->setAttr(TfcDialect::kSavedActivationBytesAttrName, saved);
    // Kernels go before the entry, in launch order.
    moduleBuilder.setInsertionPoint(entry);
    OpBuilder builder = OpBuilder::atBlockEnd(&entry.getBodyBlock());

    Block &body = func.getBody().front();
    for (BlockArgument argument : body.getArguments()) {
      unsigned index = argument.getArgNumber();
      tfcrt::BufferRole role = tfcrt::BufferRole::input;
      std::string name = "arg" + std::to_string(index);
      if (auto param = func.getArgAttrOfType<StringAttr>(
              index, TfcDialect::kParamAttrName)) {
        role = tfcrt::BufferRole::param;
        name = param.str();
      } else if (auto state = func.getArgAttrOfType<StringAttr>(
                     index, TfcDialect::kStateAttrName)) {
        role = tfcrt::BufferRole::state;
        name = state.str();
      } else if (auto input = func.getArgAttrOfType<StringAttr>(
                     index, TfcDialect::kInputAttrName)) {
        name = input.str();
      }
      buffers[argument] = builder.create<tfcrt::ExternalOp>(
          argument.getLoc(), bufferType(argument), role, name);
    }
    auto returnOp = cast<func::ReturnOp>(body.back());
    // Outputs keep their result index; updates have no output buffer.
    SmallVector<Value> outputs;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands()))
      outputs.push_back(
          func.getResultAttr(index, TfcDialect::kUpdateAttrName)
              ? Value()
              : builder.create<tfcrt::ExternalOp>(
                    returnOp.getLoc(), bufferType(value),
                    tfcrt::BufferRole::output, outputName(index)));
    for (auto [value, index] : outputOf)
      buffers[value] = outputs[index];
    for (auto [value, arg] : inPlaceOf)
      buffers[value] = buffers.lookup(func.getArgument(arg));

    for (Operation &op : body) {
      if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        buffers[reshape] = builder.create<tfcrt::AliasOp>(
            reshape.getLoc(), bufferType(reshape),
            buffers.lookup(reshape.getX()));
        continue;
      }
      auto fusion = dyn_cast<FusionOp>(op);
      if (!fusion)
        continue;
      for (Value result : fusion.getResults())
        if (!buffers.count(result))
          buffers[result] = builder.create<tfcrt::ArenaViewOp>(
              fusion.getLoc(), bufferType(result),
              arenaPlan.offsets[arenaIndex.lookup(result)]);
      SmallVector<Value> inputs =
          llvm::map_to_vector(fusion.getInputs(), [&](Value input) {
            return buffers.lookup(input);
          });
      SmallVector<Value> results =
          llvm::map_to_vector(fusion.getResults(), [&](Value result) {
            return buffers.lookup(result);
          });
      if (fusion.getKind() == KernelKind::gemm)
        emitGemm(builder, fusion, inputs, results);
      else
        emitLaunch(moduleBuilder, builder, fusion, inputs, results);
    }
    for (auto [value, index] : copies)
      builder.create<tfcrt::CopyOp>(returnOp.getLoc(), buffers.lookup(value),
                                    outputs[index]);
    for (auto [value, arg] : updates)
      builder.create<tfcrt::CopyOp>(returnOp.getLoc(), buffers.lookup(value),
                                    buffers.lookup(func.getArgument(arg)));
    builder.create<tfcrt::ReturnOp>(returnOp.getLoc());
  }

  /// The tfcrt.gemm of a gemm fusion whose inputs and results have the
  /// buffers `inputs` and `results`: C is the buffer of the epilogue's last
  /// value (the GELU gradient of a backward one), aux the stored GELU input
  /// (a result, or an input of a backward epilogue), bias the bias row (an
  /// input, or the bias gradient a backward epilogue writes).
  void emitGemm(OpBuilder &builder, FusionOp fusion, ArrayRef<Value> inputs,
                ArrayRef<Value> results) {
    GemmKernelOps gemm = *matchGemmFusion(fusion);
    const GemmFields &f = gemmFields.lookup(fusion);
    auto inputBuffer = [&](Value arg) {
      return inputs[cast<BlockArgument>(arg).getArgNumber()];
    };
    Value a = inputBuffer(gemm.matmul.getA());
    Value b = inputBuffer(gemm.matmul.getB());
    // Forward epilogues read the bias and write aux; the backward ones
    // read aux (the stored GELU input) and write the bias gradient.
    Value bias = gemm.bias ? inputBuffer(gemm.bias) : Value();
    Value aux = gemm.geluGrad ? inputBuffer(gemm.geluGrad.getX()) : Value();
    Value c;
    for (auto [yielded, buffer] :
         llvm::zip_equal(fusion.getYield().getValues(), results)) {
      if (yielded == gemm.result())
        c = buffer;
      else if (gemm.biasGrad && yielded == gemm.biasGrad.getResult())
        bias = buffer;
      else
        aux = buffer;
    }
    tfcrt::GemmEpilogue epilogue = gemmEpilogue(gemm);
    Type aType = cast<ShapedType>(a.getType()).getElementType();
    builder.create<tfcrt::GemmOp>(
        fusion.getLoc(), a, b, bias, c, aux, gemm.matmul.getTransposeA(),
        gemm.matmul.getTransposeB(), f.m, f.n, f.k, f.batch, f.lda, f.ldb,
        f.ldc, f.strideA, f.strideB, f.strideC, aType,
        cast<ShapedType>(b.getType()).getElementType(),
        cast<ShapedType>(c.getType()).getElementType(), gemmComputeType(aType),
        epilogue, APFloat(1.0), APFloat(0.0));
  }

  /// The accumulation type of a GEMM of `aType` operands: TF32 tensor cores
  /// for f32 ones when --tfc-auto-mixed-precision=precision=tf32 marked the
  /// module (`tfc.f32_gemm_compute = "tf32"`), else accumulationType.
  Type gemmComputeType(Type aType) {
    auto mode = module->getAttrOfType<StringAttr>(
        TfcDialect::kF32GemmComputeAttrName);
    if (aType.isF32() && mode && mode.getValue() == "tf32")
      return FloatTF32Type::get(module.getContext());
    return accumulationType(aType);
  }

  void emitLaunch(OpBuilder &moduleBuilder, OpBuilder &builder, FusionOp fusion,
                  ArrayRef<Value> inputs, ArrayRef<Value> results) {
    auto type =
        FunctionType::get(module.getContext(), fusion.getInputs().getTypes(),
                          fusion.getResultTypes());
    auto kernel = moduleBuilder.create<tfcrt::KernelOp>(
        fusion.getLoc(), kernelName(), fusion.getKind(), type);
    // The body moves unchanged; only the terminator changes dialect,
    // because tfc.yield belongs to tfc.fusion.
    kernel.getBody().takeBody(fusion.getBody());
    auto pairs = inPlacePairs.find(fusion);
    if (pairs != inPlacePairs.end()) {
      SmallVector<int64_t> inPlaceInputs(fusion.getNumResults(), -1);
      for (auto [output, input] : pairs->second)
        inPlaceInputs[output] = input;
      kernel.setInPlace(ArrayRef<int64_t>(inPlaceInputs));
    }
    YieldOp yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
    OpBuilder(yield).create<tfcrt::YieldOp>(yield.getLoc(), yield.getValues());
    yield.erase();
    symbols.insert(kernel);
    builder.create<tfcrt::LaunchOp>(fusion.getLoc(), kernel.getSymName(),
                                    inputs, results);
  }

  /// The step of the copies that run after the last launch.
  static constexpr int64_t kReadAtEnd = std::numeric_limits<int64_t>::max();

  ModuleOp module;
  func::FuncOp func;
  int64_t alignment;
  bool inPlace;
  SymbolTable &symbols;
  unsigned &kernelCounter;

  llvm::DenseMap<Operation *, GemmFields> gemmFields;
  /// Returned fusion results written straight into output `index`.
  llvm::DenseMap<Value, unsigned> outputOf;
  /// Returned values copied into output `index` after the last launch.
  SmallVector<std::pair<Value, unsigned>> copies;
  /// tfc.update results copied over argument `index` after the copies.
  SmallVector<std::pair<Value, unsigned>> updates;
  /// tfc.update results their kernel writes into argument `index`'s
  /// external directly.
  llvm::DenseMap<Value, unsigned> inPlaceOf;
  /// Per kernel, the (output, input) pairs that share one buffer.
  llvm::DenseMap<Operation *, SmallVector<std::pair<unsigned, unsigned>>>
      inPlacePairs;
  /// Arena-backed values: their index into the planner's vectors.
  llvm::DenseMap<Value, size_t> arenaIndex;
  ::tfc::ArenaPlan arenaPlan;
  /// The tfcrt buffer of every tfc value.
  llvm::DenseMap<Value, Value> buffers;
};

struct TfcConvertToExecPass
    : public ::tfc::impl::TfcConvertToExecPassBase<TfcConvertToExecPass> {
  using TfcConvertToExecPassBase::TfcConvertToExecPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t align = alignment;
    if (align <= 0 || (align & (align - 1)) != 0) {
      module.emitError("--tfc-convert-to-exec: alignment ")
          << align << " is not a positive power of two";
      return signalPassFailure();
    }
    // Several functions lower into entries of one program: they share
    // externals by name and one arena, sized for the largest entry (entries
    // never run at the same time, and nothing in the arena outlives one).
    SmallVector<func::FuncOp> funcs;
    llvm::StringSet<> entries;
    for (StringRef name : llvm::split(StringRef(function), ',')) {
      name = name.trim();
      auto func = module.lookupSymbol<func::FuncOp>(name);
      if (!func) {
        module.emitError("--tfc-convert-to-exec: no func.func @")
            << name << " to lower (choose one with function=<name>)";
        return signalPassFailure();
      }
      StringRef entry = ExecLowering::entryName(func);
      if (!entries.insert(entry).second) {
        module.emitError("--tfc-convert-to-exec: two functions lower to "
                         "the entry @")
            << entry << " (only train_step, accumulate_step and apply_step "
            << "keep their names; any other function becomes @forward)";
        return signalPassFailure();
      }
      if (tfcrt::ArenaOp::lookup(module) ||
          (entry != name && module.lookupSymbol(entry))) {
        module.emitError("--tfc-convert-to-exec: the module already has a "
                         "tfcrt.arena or a symbol @")
            << entry;
        return signalPassFailure();
      }
      funcs.push_back(func);
    }
    SymbolTable symbols(module);
    unsigned kernelCounter = 0;
    int64_t arenaSize = 0;
    for (func::FuncOp func : funcs) {
      ExecLowering lowering(module, func, align, inPlace, symbols,
                            kernelCounter);
      if (failed(lowering.run()))
        return signalPassFailure();
      arenaSize = std::max(arenaSize, lowering.arenaSize());
    }
    OpBuilder::atBlockBegin(module.getBody())
        .create<tfcrt::ArenaOp>(module.getLoc(), arenaSize, align);
  }
};

} // namespace
