//===- PadShapes.cpp - --tfc-pad-shapes -----------------------------------===//
//
// Local padding: each GEMM pads its own operands and cuts its result back,
// so exactness never depends on what the rest of the graph does with the
// padded lanes. Two things keep that cheap: pointwise consumers move before
// the cut (a bias add and an activation stay GEMM epilogues), and fusion
// folds the pads and cuts that remain into the kernels next to them.
//
//===----------------------------------------------------------------------===//

#include "passes/layout/Passes.h"

#include "passes/FunctionList.h"

#include "dialects/tfc/TfcKernelSchedule.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace tfc {
#define GEN_PASS_DEF_TFCPADSHAPESPASS
#include "passes/layout/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

constexpr llvm::StringLiteral kPassFlag = "--tfc-pad-shapes";

int64_t roundUp(int64_t x, int64_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

/// Matmuls whose result becomes cross-entropy logits: their N is the
/// vocabulary. Walks back from each logits operand through the ops a model
/// puts between the two (reshape, convert, a bias add).
DenseSet<Operation *> vocabularyGemms(func::FuncOp func) {
  DenseSet<Operation *> gemms;
  func.walk([&](CrossEntropyOp ce) {
    Value v = ce.getLogits();
    for (int depth = 0; depth < 8 && v; ++depth) {
      Operation *def = v.getDefiningOp();
      if (!def)
        break;
      if (isa<MatmulOp>(def)) {
        gemms.insert(def);
        break;
      }
      if (isa<ReshapeOp, ConvertOp>(def)) {
        v = def->getOperand(0);
      } else if (auto add = dyn_cast<AddOp>(def)) {
        // The operand of the full shape is the product; the other a bias.
        v = add.getLhs().getType() == add.getType() ? add.getLhs()
                                                     : add.getRhs();
      } else {
        break;
      }
    }
  });
  return gemms;
}

/// Ops that compute each element from the same element of their operands
/// alone (Tfc_ElementLocal; dropout and iota depend on the index, so a
/// padded iteration space would change them).
bool isElementLocal(Operation *op) {
  return op->hasTrait<OpTrait::tfc::ElementLocal>();
}

/// Ops with f(0, ..., 0) = 0 up to the sign of zero (Tfc_KeepsZeros):
/// lanes that are zero in every operand stay zero.
bool keepsZeros(Operation *op) {
  return op->hasTrait<OpTrait::tfc::KeepsZeros>();
}

class Padder {
public:
  Padder(StringRef pad, StringRef target, bool tf32)
      : pad(pad), target(target), tf32(tf32) {}

  LogicalResult run(func::FuncOp func) {
    DenseSet<Operation *> vocab = vocabularyGemms(func);
    SmallVector<MatmulOp> gemms;
    func.walk([&](MatmulOp m) { gemms.push_back(m); });
    for (MatmulOp m : gemms)
      if (failed(padGemm(m, vocab.contains(m))))
        return failure();
    // Pointwise readers of the cuts move before them, as far as they go.
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<SliceOp> cuts(cutsMade.begin(), cutsMade.end());
      for (SliceOp cut : cuts)
        changed |= sinkCut(cut);
    }
    for (PadOp operandPad : operandPads)
      foldRepad(operandPad);
    // Cuts whose readers now read the padded value are dead.
    for (SliceOp cut : cutsMade)
      if (cut->use_empty())
        cut.erase();
    return success();
  }

private:
  /// Pads `m` when its multiples ask for it.
  LogicalResult padGemm(MatmulOp m, bool isVocabulary) {
    auto aType = cast<RankedTensorType>(m.getA().getType());
    auto bType = cast<RankedTensorType>(m.getB().getType());
    auto cType = cast<RankedTensorType>(m.getType());
    std::optional<::tfc::PadMultiples> mult = ::tfc::padMultiples(
        pad, target, aType.getElementType(), tf32 && aType.getElementType().isF32());
    if (!mult)
      return m.emitError(kPassFlag) << ": bad pad option '" << pad << "'";
    OpBuilder b(m);
    Location loc = m.getLoc();
    Value a = m.getA(), bv = m.getB();
    // A linear layer: rank-2 weight against batched activations, whose
    // batch rows flatten into M.
    bool flatten = bType.getRank() == 2 && aType.getRank() > 2 &&
                   !m.getTransposeA();
    if (flatten) {
      int64_t rows = aType.getNumElements() / aType.getShape().back();
      a = b.create<ReshapeOp>(
          loc, RankedTensorType::get({rows, aType.getShape().back()},
                                     aType.getElementType()),
          a);
      aType = cast<RankedTensorType>(a.getType());
    }
    int64_t ar = aType.getRank(), br = bType.getRank();
    unsigned mAxis = m.getTransposeA() ? ar - 1 : ar - 2;
    unsigned kAxisA = m.getTransposeA() ? ar - 2 : ar - 1;
    unsigned kAxisB = m.getTransposeB() ? br - 1 : br - 2;
    unsigned nAxis = m.getTransposeB() ? br - 2 : br - 1;
    int64_t M = aType.getDimSize(mAxis), K = aType.getDimSize(kAxisA),
            N = bType.getDimSize(nAxis);
    int64_t M2 = roundUp(M, mult->rows), K2 = roundUp(K, mult->inner),
            N2 = roundUp(N, isVocabulary ? std::max(mult->cols,
                                                    mult->vocabulary)
                                         : mult->cols);
    if (M2 == M && K2 == K && N2 == N) {
      if (flatten) // undo the reshape: nothing to pad
        a.getDefiningOp()->erase();
      return success();
    }
    auto padTo = [&](Value v,
                     ArrayRef<std::pair<unsigned, int64_t>> grow) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> low(t.getRank(), 0), high(t.getRank(), 0);
      SmallVector<int64_t> shape(t.getShape());
      bool any = false;
      for (auto [axis, extra] : grow) {
        high[axis] += extra;
        shape[axis] += extra;
        any |= extra > 0;
      }
      if (!any)
        return v;
      return b
          .create<PadOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                         v, b.getDenseI64ArrayAttr(low),
                         b.getDenseI64ArrayAttr(high), b.getF64FloatAttr(0.0))
          .getResult();
    };
    Value ap = padTo(a, {{mAxis, M2 - M}, {kAxisA, K2 - K}});
    if (auto p = ap.getDefiningOp<PadOp>(); p && ap != a)
      operandPads.push_back(p);
    Value bp = padTo(bv, {{kAxisB, K2 - K}, {nAxis, N2 - N}});
    // The product: the batch dims as before, then M2 x N2.
    SmallVector<int64_t> cShape;
    if (flatten)
      cShape = {M2, N2};
    else {
      cShape.assign(cType.getShape().begin(), cType.getShape().end());
      cShape[cShape.size() - 2] = M2;
      cShape.back() = N2;
    }
    auto product = b.create<MatmulOp>(
        loc, RankedTensorType::get(cShape, cType.getElementType()), ap, bp,
        m.getTransposeA(), m.getTransposeB());
    product->setAttr(TfcDialect::kPadFromAttrName, b.getDenseI64ArrayAttr({M, N, K}));
    // Columns N.. of the product are zero: B's padded columns are.
    if (N2 > N)
      zeroTail.insert(product.getResult());
    SmallVector<int64_t> start(cShape.size(), 0), limit(cShape);
    limit[limit.size() - 2] = M;
    limit.back() = N;
    auto cut = b.create<SliceOp>(
        loc,
        RankedTensorType::get(limit, cType.getElementType()), product,
        b.getDenseI64ArrayAttr(start), b.getDenseI64ArrayAttr(limit),
        DenseI64ArrayAttr());
    cutsMade.insert(cut);
    Value result = cut;
    if (flatten)
      result = b.create<ReshapeOp>(loc, cType, result);
    m.replaceAllUsesWith(result);
    m.erase();
    return success();
  }

  /// Moves the one pointwise reader of `cut` before it: op(cut(P), w...)
  /// becomes cut(op(P, pad(w)...)) when every other operand is a broadcast
  /// (a bias, a scale: padding it costs next to nothing). A flattened linear
  /// layer's cut is followed by the reshape back to its batch dims; the
  /// reader then sees reshape(cut(P)) and, when its other operands vary
  /// along the last dim at most, becomes reshape(cut(op(P, pad(w)...))).
  /// Returns whether it moved one.
  bool sinkCut(SliceOp cut) {
    if (!cut->hasOneUse())
      return false;
    Operation *user = *cut->getUsers().begin();
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (reshape) {
      auto rt = cast<RankedTensorType>(reshape.getType());
      if (!reshape->hasOneUse() || rt.getRank() == 0 ||
          rt.getShape().back() != cut.getType().getShape().back())
        return false;
      user = *reshape->getUsers().begin();
    }
    Value read = reshape ? reshape.getResult() : cut.getResult();
    if (!isElementLocal(user) || user->getNumResults() != 1)
      return false;
    auto resultType = cast<RankedTensorType>(user->getResult(0).getType());
    if (resultType.getShape() !=
        cast<RankedTensorType>(read.getType()).getShape())
      return false;
    auto full = cast<RankedTensorType>(cut.getX().getType());
    auto cutType = cast<RankedTensorType>(cut.getType());
    int64_t rank = full.getRank();
    OpBuilder b(user);
    SmallVector<Value> operands;
    // The moved op keeps the product's zero last-dim tail when it maps zeros
    // to zero and each other operand is zero there too (padded with zeros).
    bool tailZero = zeroTail.contains(cut.getX()) && keepsZeros(user);
    for (Value v : user->getOperands()) {
      if (v == read) {
        operands.push_back(cut.getX());
        continue;
      }
      auto t = cast<RankedTensorType>(v.getType());
      if (2 * t.getNumElements() > cutType.getNumElements())
        return false; // a full-size operand: padding it would copy it
      if (reshape) {
        // Only the last dim may vary: it becomes a vector (or scalar)
        // against the 2-D product.
        ArrayRef<int64_t> dims = t.getShape();
        if (t.getRank() > 1 &&
            llvm::any_of(dims.drop_back(), [](int64_t d) { return d != 1; }))
          return false;
        if (t.getRank() > 1)
          v = b.create<ReshapeOp>(
              user->getLoc(),
              RankedTensorType::get({dims.back()}, t.getElementType()), v);
        t = cast<RankedTensorType>(v.getType());
      }
      // Aligned at the back: grow the dims the cut shrank, where the
      // operand has them (size 1 broadcasts on).
      SmallVector<int64_t> low(t.getRank(), 0), high(t.getRank(), 0),
          shape(t.getShape());
      bool any = false;
      for (int64_t d = 0; d < t.getRank(); ++d) {
        int64_t fd = rank - t.getRank() + d;
        if (fd < 0 || t.getDimSize(d) == 1 ||
            t.getDimSize(d) == full.getDimSize(fd))
          continue;
        high[d] = full.getDimSize(fd) - t.getDimSize(d);
        shape[d] = full.getDimSize(fd);
        any = true;
      }
      tailZero &= t.getRank() > 0 && high.back() > 0;
      operands.push_back(
          any ? b.create<PadOp>(user->getLoc(),
                                RankedTensorType::get(shape, t.getElementType()),
                                v, b.getDenseI64ArrayAttr(low),
                                b.getDenseI64ArrayAttr(high),
                                b.getF64FloatAttr(0.0))
                    .getResult()
              : v);
    }
    OperationState state(user->getLoc(), user->getName());
    state.addOperands(operands);
    state.addAttributes(user->getAttrs());
    state.addTypes(
        RankedTensorType::get(full.getShape(), resultType.getElementType()));
    Operation *padded = b.create(state);
    if (tailZero)
      zeroTail.insert(padded->getResult(0));
    auto newCut = b.create<SliceOp>(
        user->getLoc(),
        RankedTensorType::get(cutType.getShape(), resultType.getElementType()),
        padded->getResult(0), cut.getStartAttr(), cut.getLimitAttr(),
        cut.getStepAttr());
    Value replacement = newCut.getResult();
    if (reshape)
      replacement =
          b.create<ReshapeOp>(user->getLoc(), resultType, replacement);
    user->getResult(0).replaceAllUsesWith(replacement);
    user->erase();
    if (reshape)
      reshape.erase();
    cutsMade.remove(cut);
    cut.erase();
    cutsMade.insert(newCut);
    return true;
  }

  /// A GEMM operand padded along its last dim that is a cut-back value Z
  /// whose cut-off lanes are zero anyway (a product padded along N, then a
  /// bias add and GELU) is Z itself: pad(cut(Z)) -> Z, with no copy. The
  /// cut may be followed by reshapes that undo each other.
  void foldRepad(PadOp operandPad) {
    Value v = operandPad.getX();
    while (auto r = v.getDefiningOp<ReshapeOp>())
      v = r.getX();
    auto cut = v.getDefiningOp<SliceOp>();
    if (!cut || !cutsMade.contains(cut) || !zeroTail.contains(cut.getX()))
      return;
    auto z = cast<RankedTensorType>(cut.getX().getType());
    auto padded = cast<RankedTensorType>(operandPad.getType());
    if (padded != z || operandPad.getX().getType() != cut.getType() ||
        llvm::any_of(operandPad.getLow(), [](int64_t l) { return l != 0; }) ||
        cut.getStep())
      return;
    // Only the last dim was cut, from 0.
    ArrayRef<int64_t> start = cut.getStart(), limit = cut.getLimit();
    for (int64_t d = 0; d < z.getRank(); ++d)
      if (start[d] != 0 || (d + 1 < z.getRank() && limit[d] != z.getDimSize(d)))
        return;
    operandPad.getResult().replaceAllUsesWith(cut.getX());
    operandPad.erase();
  }

  StringRef pad, target;
  bool tf32;
  llvm::SetVector<SliceOp> cutsMade;
  /// Padded values whose lanes past the model's extent in the last dim are
  /// zero.
  DenseSet<Value> zeroTail;
  /// The pads of GEMM A operands (candidates for foldRepad).
  SmallVector<PadOp> operandPads;
};

struct TfcPadShapesPass
    : public ::tfc::impl::TfcPadShapesPassBase<TfcPadShapesPass> {
  using TfcPadShapesPassBase::TfcPadShapesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!::tfc::isValidPadOption(pad)) {
      module.emitError(kPassFlag)
          << ": unknown pad '" << pad
          << "' (expected " << ::tfc::padOptionValues() << ")";
      return signalPassFailure();
    }
    if (!parseKernelTarget(target)) {
      module.emitError(kPassFlag)
          << ": unknown target '" << target << "' (expected "
          << kernelTargetNames() << ")";
      return signalPassFailure();
    }
    if (pad == "none")
      return;
    auto compute =
        module->getAttrOfType<StringAttr>(TfcDialect::kF32GemmComputeAttrName);
    bool tf32 = compute && compute.getValue() == "tf32";
    FailureOr<SmallVector<func::FuncOp>> funcs = ::tfc::lookupFunctions(
        module, function, ::tfc::MissingFunction::Error, kPassFlag, "pad");
    if (failed(funcs))
      return signalPassFailure();
    for (func::FuncOp f : *funcs)
      if (failed(Padder(pad, target, tf32).run(f)))
        return signalPassFailure();
  }
};

} // namespace

namespace tfc {

bool isValidPadOption(StringRef pad) {
  int64_t n;
  return pad == "auto" || pad == "none" ||
         (!pad.getAsInteger(10, n) && n >= 1 && n <= kMaxPadMultiple);
}

std::string padOptionValues() {
  return "auto, none or an integer from 1 to " +
         std::to_string(kMaxPadMultiple);
}

std::optional<PadMultiples> padMultiples(StringRef pad, StringRef target,
                                         Type element, bool tf32) {
  PadMultiples m;
  if (pad == "none")
    return m;
  int64_t n;
  if (!pad.getAsInteger(10, n)) {
    if (n < 1 || n > kMaxPadMultiple)
      return std::nullopt;
    m.rows = m.inner = m.cols = m.vocabulary = n;
    return m;
  }
  if (pad != "auto")
    return std::nullopt;
  // The table of Passes.td: tensor-core tiles on the GPU targets only.
  if (target == "host")
    return m;
  // M stays: no leading dimension of a row-major GEMM is M (A is M x K
  // with lda = K, C is M x N with ldc = N), so tensor-core kernels need
  // nothing of it, and padding it would copy every activation.
  if (element.isF16() || element.isBF16()) {
    m.inner = m.cols = 8;
    m.vocabulary = 64;
  } else if (element.isF32() && tf32) {
    m.inner = m.cols = 4;
    m.vocabulary = 64;
  }
  return m;
}

} // namespace tfc
