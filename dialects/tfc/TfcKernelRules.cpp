//===- TfcKernelRules.cpp - which ops can form one kernel -----------------===//
//
// Each kernel kind has one "anchor" role (the op that decides the kernel's
// iteration space: the reduction, the gather, the GEMM) and accepts pointwise
// ops around it, which codegen fuses as prologue/epilogue code of the
// anchor's loop. Pointwise kernels have no anchor; multi-tensor kernels
// may hold optimizer updates (their anchors) or only pointwise ops.
//
// Besides which ops may share a kernel, the rules check what the kernel's
// loop structure can compute (codegen emits whatever passes them): a
// reduction kernel iterates over its anchors' rows or columns, so what is
// computed from a reduction result must stay in the row or column it belongs
// to, and every output must be one value per row (column) or per element.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcKernelRules.h"

#include "dialects/tfc/TfcGemmKernel.h"

#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfc;

std::optional<KernelKind> mlir::tfc::kernelKindForRole(KernelRole role) {
  switch (role) {
  case KernelRole::Pointwise:
    return KernelKind::pointwise;
  case KernelRole::RowReduction:
    return KernelKind::row_reduction;
  case KernelRole::ColumnReduction:
    return KernelKind::column_reduction;
  case KernelRole::Gather:
    return KernelKind::gather;
  case KernelRole::Gemm:
    return KernelKind::gemm;
  case KernelRole::MultiTensor:
    return KernelKind::multi_tensor;
  case KernelRole::BlockQuantized:
    return KernelKind::block_quantized;
  case KernelRole::Scatter:
    return KernelKind::scatter;
  case KernelRole::Sort:
    return KernelKind::sort;
  case KernelRole::Composite:
    return std::nullopt;
  }
  llvm_unreachable("unknown kernel role");
}

/// The role of the op that anchors a kernel of `kind`, if the kind has one.
/// Multi-tensor kernels are anchored by optimizer updates (role MultiTensor)
/// but may also hold only pointwise ops (an unscale, a plain update written
/// with elementwise ops): see anchorIsOptional.
static std::optional<KernelRole> anchorRole(KernelKind kind) {
  switch (kind) {
  case KernelKind::pointwise:
    return std::nullopt;
  case KernelKind::multi_tensor:
    return KernelRole::MultiTensor;
  case KernelKind::row_reduction:
    return KernelRole::RowReduction;
  case KernelKind::column_reduction:
    return KernelRole::ColumnReduction;
  case KernelKind::gather:
    return KernelRole::Gather;
  case KernelKind::gemm:
    return KernelRole::Gemm;
  case KernelKind::block_quantized:
    return KernelRole::BlockQuantized;
  case KernelKind::scatter:
    return KernelRole::Scatter;
  case KernelKind::sort:
    return KernelRole::Sort;
  }
  llvm_unreachable("unknown kernel kind");
}

/// Whether a kernel of `kind` needs exactly one anchor op (a single gather or
/// GEMM defines the whole launch) rather than one or more (reductions over
/// the same rows or columns share one loop nest). A block_quantized kernel's
/// grid is the quantization blocks of its one op, a scatter kernel's the
/// rows of its one table, a sort kernel's the rows of its one sort.
static bool needsExactlyOneAnchor(KernelKind kind) {
  return kind == KernelKind::gather || kind == KernelKind::gemm ||
         kind == KernelKind::block_quantized || kind == KernelKind::scatter ||
         kind == KernelKind::sort;
}

/// Whether a kernel of `kind` may have no anchor at all: a multi-tensor
/// launch iterates over its tensors, whatever ops compute them.
static bool anchorIsOptional(KernelKind kind) {
  return kind == KernelKind::multi_tensor;
}

namespace {
/// Builds a diagnostic only when a caller asked for one, so that fusion
/// passes can use the rules as a cheap predicate.
struct Reporter {
  function_ref<InFlightDiagnostic()> emitError;

  /// Fails with `message`, plus a note at each op of `culprits`.
  LogicalResult fail(const Twine &message,
                     ArrayRef<Operation *> culprits = {}) const {
    if (!emitError)
      return failure();
    InFlightDiagnostic diag = emitError();
    diag << message;
    for (Operation *op : culprits)
      diag.attachNote(op->getLoc()) << "'" << op->getName() << "' here";
    return diag;
  }
};
} // namespace

static std::string describe(const RowGeometry &geometry) {
  return std::to_string(geometry.rows) + " rows of " +
         std::to_string(geometry.rowLength);
}

/// A shape as `4x8x1` for diagnostics (`scalar` for rank 0).
static std::string describeShape(Type type) {
  auto shaped = cast<ShapedType>(type);
  if (shaped.getRank() == 0)
    return "scalar";
  std::string out;
  for (int64_t d : shaped.getShape())
    out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

static int64_t numElementsOf(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

/// Whether pointwise `op` reads each operand at the numpy-broadcast
/// coordinates of the result element it computes (ValueEmitter's
/// `operandAt`), as opposed to moving data across positions (transpose,
/// slice, concat, pad) or producing data from nothing (iota, constant).
/// Reshape keeps the linear index and is handled on its own.
static bool readsAtBroadcastCoords(Operation *op) {
  return !isa<ReshapeOp, TransposeOp, SliceOp, ConcatOp, PadOp, IotaOp,
              ConstantOp>(op);
}

/// Whether an operand of `operandShape` that broadcasts to `resultShape` is
/// read at one position per leading "row" of `rows` elements: padded to the
/// result's rank it equals the result on a prefix of dims holding `rows`
/// elements and is 1 on the rest (a keepdim row statistic `[R, 1]` read by
/// an element of `[R, L]`).
static bool broadcastsPerRow(ArrayRef<int64_t> operandShape,
                             ArrayRef<int64_t> resultShape, int64_t rows) {
  if (operandShape.size() > resultShape.size())
    return false;
  SmallVector<int64_t> padded(resultShape.size() - operandShape.size(), 1);
  padded.append(operandShape.begin(), operandShape.end());
  int64_t prefix = 1;
  for (size_t k = 0; k <= resultShape.size(); ++k) {
    if (k > 0) {
      if (padded[k - 1] != resultShape[k - 1])
        return false;
      prefix *= resultShape[k - 1];
    }
    if (prefix == rows && llvm::all_of(ArrayRef(padded).drop_front(k),
                                       [](int64_t d) { return d == 1; }))
      return true;
  }
  return false;
}

namespace {
/// Where a value computed from the row reductions of a kernel lives: one
/// value per element of the rows (index `row * L + j`), one per row (index
/// `row`), or after every row is reduced (a cross_entropy loss, a scalar).
enum class RowLayout { Element, Row, Final, Column };

/// How a row-reduction anchor reads its operand #`index`: per element of the
/// row it reduces, per row, or elsewhere (weights and biases broadcast along
/// the row, labels and the upstream loss gradient read at other rows).
std::optional<RowLayout> rowOperandUse(Operation *op, unsigned index) {
  return llvm::TypeSwitch<Operation *, std::optional<RowLayout>>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, SoftmaxOp, LogSoftmaxOp,
            LayerNormOp, RmsNormOp, CrossEntropyOp>(
          [&](Operation *) -> std::optional<RowLayout> {
            if (index == 0)
              return RowLayout::Element;
            return std::nullopt;
          })
      .Case<SoftmaxGradOp, LogSoftmaxGradOp>(
          [&](Operation *) -> std::optional<RowLayout> {
            if (index <= 1)
              return RowLayout::Element;
            return std::nullopt;
          })
      .Case([&](LayerNormGradInputOp) -> std::optional<RowLayout> {
        if (index <= 1)
          return RowLayout::Element;
        if (index <= 3)
          return RowLayout::Row;
        return std::nullopt;
      })
      .Case([&](RmsNormGradInputOp) -> std::optional<RowLayout> {
        if (index <= 1)
          return RowLayout::Element;
        if (index == 2)
          return RowLayout::Row;
        return std::nullopt;
      })
      .Case([&](CrossEntropyGradOp) -> std::optional<RowLayout> {
        if (index == 1)
          return RowLayout::Element;
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The layout of result #`index` of a row-reduction anchor.
RowLayout rowResultLayout(Operation *op, unsigned index) {
  if (isa<CrossEntropyOp>(op))
    return RowLayout::Final;
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op))
    return RowLayout::Row;
  if (isa<LayerNormOp, RmsNormOp>(op))
    return index == 0 ? RowLayout::Element : RowLayout::Row;
  return RowLayout::Element;
}
} // namespace

/// The normalized dims a column-reduction anchor reduces.
static SmallVector<int64_t> columnReducedDims(Operation *op);

/// Whether column reduction `op` sums a value of `geometry`'s R*L elements
/// over the leading dims that number its rows, leaving one value per
/// position of the row.
static bool sumsOverRows(Operation *op, const RowGeometry &geometry) {
  if (!isa<ReduceSumOp, ReduceMeanOp>(op))
    return false;
  auto type = cast<ShapedType>(op->getOperand(0).getType());
  if (type.getNumElements() != geometry.rows * geometry.rowLength)
    return false;
  SmallVector<int64_t> dims = columnReducedDims(op);
  int64_t reduced = 1;
  for (auto [k, d] : llvm::enumerate(dims)) {
    if (d != static_cast<int64_t>(k))
      return false;
    reduced *= type.getDimSize(d);
  }
  return reduced == geometry.rows;
}

/// The dataflow rules of a row-reduction kernel: a value computed from a
/// row statistic (or a softmax / normalized row) exists in registers of the
/// warp or block that owns its row, so it may only reach other values and
/// outputs at positions of the same row; a cross_entropy loss exists only
/// after every row is reduced, and so do column sums over the rows, which
/// only per-column ops may read.
static LogicalResult checkRowDataflow(ArrayRef<Operation *> ops,
                                      ArrayRef<Operation *> columnSums,
                                      ArrayRef<Value> outputs,
                                      const RowGeometry &geometry,
                                      const Reporter &report) {
  int64_t rows = geometry.rows, perRow = geometry.rowLength;
  int64_t elements = rows * perRow;
  llvm::DenseMap<Value, RowLayout> layouts;
  auto countFits = [&](RowLayout layout, int64_t n) {
    return (layout == RowLayout::Element && n == elements) ||
           (layout == RowLayout::Row && n == rows);
  };
  if (!columnSums.empty()) {
    int64_t registers = 0;
    for (Operation *op : columnSums) {
      if (!sumsOverRows(op, geometry))
        return report.fail("'" + op->getName().getStringRef() +
                               "' in a row_reduction kernel must sum a value "
                               "of the kernel's rows over the leading dims "
                               "that number them (the kernel reduces " +
                               describe(geometry) + ")",
                           op);
      auto et = cast<ShapedType>(op->getResult(0).getType()).getElementType();
      registers +=
          (perRow + 31) / 32 * (et.getIntOrFloatBitWidth() > 32 ? 2 : 1);
    }
    if (perRow > 1024 || registers > kRowKernelColumnAccumulators)
      return report.fail(
          "a row_reduction kernel holds column sums only over rows of at "
          "most 1024 elements and in at most " +
              Twine(kRowKernelColumnAccumulators) +
              " registers per thread; these need " + Twine(registers) +
              " (the kernel reduces " + describe(geometry) + ")",
          columnSums);
  }
  for (Operation *op : ops) {
    auto role = cast<KernelRoleOpInterface>(op).getKernelRole();
    if (role == KernelRole::ColumnReduction) {
      auto it = layouts.find(op->getOperand(0));
      if (it != layouts.end() && it->second != RowLayout::Element)
        return report.fail("'" + op->getName().getStringRef() +
                               "' sums a value that exists once per row or "
                               "after all rows, not once per element",
                           op);
      layouts[op->getResult(0)] = RowLayout::Column;
      continue;
    }
    if (role == KernelRole::RowReduction) {
      for (OpOperand &operand : op->getOpOperands()) {
        auto it = layouts.find(operand.get());
        if (it == layouts.end())
          continue;
        std::optional<RowLayout> use =
            rowOperandUse(op, operand.getOperandNumber());
        if (use && it->second == *use)
          continue;
        return report.fail(
            "'" + op->getName().getStringRef() + "' reads operand #" +
                Twine(operand.getOperandNumber()) +
                ", which is computed from a reduction of this kernel, " +
                (it->second == RowLayout::Final ||
                         it->second == RowLayout::Column
                     ? Twine("but a loss or a column sum exists only after "
                             "all rows are reduced")
                     : Twine("at positions outside the row it belongs to")),
            op);
      }
      for (OpResult result : op->getResults())
        layouts[result] = rowResultLayout(op, result.getResultNumber());
      continue;
    }

    // A pointwise op: free (computed from the inputs only, at any index) or
    // computed from the reductions.
    SmallVector<std::pair<Value, RowLayout>> reduced;
    for (Value operand : op->getOperands())
      if (auto it = layouts.find(operand); it != layouts.end())
        reduced.push_back({operand, it->second});
    if (reduced.empty())
      continue;
    // After all rows: a loss (scalar ops of losses follow it) or a column
    // sum (per-column ops of column sums follow it, once per position of
    // the row), mixed with nothing computed per row.
    auto late = llvm::find_if(reduced, [](auto &entry) {
      return entry.second == RowLayout::Final ||
             entry.second == RowLayout::Column;
    });
    if (late != reduced.end()) {
      RowLayout layout = late->second;
      bool column = layout == RowLayout::Column;
      int64_t count = column ? perRow : 1;
      bool aligned =
          (!column || isa<ReshapeOp>(op) || readsAtBroadcastCoords(op)) &&
          llvm::all_of(op->getResults(),
                       [&](Value r) { return numElementsOf(r) == count; }) &&
          llvm::all_of(reduced, [&](auto &entry) {
            return entry.second == layout &&
                   (!column || numElementsOf(entry.first) == perRow);
          });
      if (!aligned)
        return report.fail(
            "'" + op->getName().getStringRef() +
                (column ? Twine("' reads a column sum of this kernel other "
                                "than per column (a column sum exists only "
                                "after all rows are reduced, once per "
                                "position of the row)")
                        : Twine("' combines a cross_entropy loss with "
                                "per-row values; the loss exists only after "
                                "all rows are reduced, so only scalar ops of "
                                "losses can follow it in the same kernel")),
            op);
      for (Value r : op->getResults())
        layouts[r] = layout;
      continue;
    }
    Value result = op->getResult(0);
    int64_t n = numElementsOf(result);
    if (isa<ReshapeOp>(op)) {
      // The linear index is unchanged, so is the row of every element.
      layouts[result] = reduced.front().second;
      continue;
    }
    std::optional<RowLayout> layout;
    if (n == elements)
      layout = RowLayout::Element;
    else if (n == rows)
      layout = RowLayout::Row;
    bool aligned = layout && readsAtBroadcastCoords(op);
    for (auto &[value, valueLayout] : reduced) {
      if (!aligned)
        break;
      // Same element count: the operand's shape is the result's up to
      // size-1 dims, so it is read at the same linear index.
      if (numElementsOf(value) == n && countFits(valueLayout, n))
        continue;
      // A row statistic broadcast along its row.
      aligned =
          valueLayout == RowLayout::Row && *layout == RowLayout::Element &&
          broadcastsPerRow(cast<ShapedType>(value.getType()).getShape(),
                           cast<ShapedType>(result.getType()).getShape(), rows);
    }
    if (!aligned)
      return report.fail("'" + op->getName().getStringRef() +
                             "' reads a value computed from a row reduction "
                             "of this kernel at positions outside the row "
                             "it belongs to (the kernel reduces " +
                             describe(geometry) + ")",
                         op);
    layouts[result] = *layout;
  }

  for (Value output : outputs) {
    int64_t n = numElementsOf(output);
    auto it = layouts.find(output);
    if (it != layouts.end() && it->second == RowLayout::Column)
      continue; // one per position of the row, checked above
    if (it != layouts.end() && it->second == RowLayout::Final) {
      if (n != 1)
        return report.fail("an output computed from a cross_entropy loss "
                           "must be a scalar, not " +
                           describeShape(output.getType()));
      continue;
    }
    if (n != rows && n != elements)
      return report.fail("a row_reduction output of " + Twine(n) +
                         " elements (" + describeShape(output.getType()) +
                         ") is neither one per row (" + Twine(rows) +
                         ") nor one per element (" + Twine(elements) + ")");
  }
  return success();
}

/// The normalized dims a column-reduction anchor reduces.
static SmallVector<int64_t> columnReducedDims(Operation *op) {
  return llvm::TypeSwitch<Operation *, SmallVector<int64_t>>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(
          [](auto r) { return r.getNormalizedDims(); })
      .Default([](Operation *) { return SmallVector<int64_t>(); });
}

/// The rules of a column-reduction kernel: its threads walk the (column,
/// reduced row) space of one input shape, so every reduction reduces the
/// same dims of a same-shaped operand; what is computed from the column
/// sums exists once per column after the combine, so it may only be
/// computed per column and cannot feed another reduction.
static LogicalResult checkColumnKernel(ArrayRef<Operation *> ops,
                                       ArrayRef<Operation *> anchors,
                                       ArrayRef<Value> outputs,
                                       const Reporter &report) {
  Operation *first = anchors.front();
  auto firstType = cast<ShapedType>(first->getOperand(0).getType());
  SmallVector<int64_t> dims = columnReducedDims(first);
  for (Operation *op : anchors.drop_front()) {
    if (op->getOperand(0).getType() == firstType &&
        columnReducedDims(op) == dims)
      continue;
    return report.fail("the column reductions of one kernel must reduce the "
                       "same dims of same-shaped operands",
                       {first, op});
  }
  int64_t total = firstType.getNumElements();
  int64_t columns = 1;
  for (int64_t d = 0, e = firstType.getRank(); d < e; ++d)
    if (!llvm::is_contained(dims, d))
      columns *= firstType.getDimSize(d);

  llvm::DenseSet<Value> late;
  for (Operation *op : ops) {
    bool isAnchor = llvm::is_contained(anchors, op);
    bool readsLate = llvm::any_of(op->getOperands(),
                                  [&](Value v) { return late.contains(v); });
    if (isAnchor && readsLate)
      return report.fail("'" + op->getName().getStringRef() +
                             "' reduces a value computed from another column "
                             "reduction of the same kernel",
                         op);
    if (!isAnchor && readsLate) {
      Value result = op->getResult(0);
      int64_t n = numElementsOf(result);
      bool aligned = isa<ReshapeOp>(op) ||
                     (readsAtBroadcastCoords(op) && n == columns &&
                      llvm::all_of(op->getOperands(), [&](Value v) {
                        return !late.contains(v) || numElementsOf(v) == n;
                      }));
      if (!aligned)
        return report.fail("'" + op->getName().getStringRef() +
                               "' reads a column reduction result of this "
                               "kernel at positions other than its column",
                           op);
    }
    if (isAnchor || readsLate)
      for (Value r : op->getResults())
        late.insert(r);
  }
  for (Value output : outputs) {
    int64_t n = numElementsOf(output);
    if (n != columns && n != total)
      return report.fail("a column_reduction output of " + Twine(n) +
                         " elements (" + describeShape(output.getType()) +
                         ") is neither one per column (" + Twine(columns) +
                         ") nor one per input element (" + Twine(total) + ")");
  }
  return success();
}

bool mlir::tfc::isTensorSum(Operation *op) {
  if (!isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op))
    return false;
  auto type = cast<ShapedType>(op->getOperand(0).getType());
  if (!isa<FloatType>(type.getElementType()))
    return false;
  return numElementsOf(op->getResult(0)) == 1 &&
         static_cast<int64_t>(columnReducedDims(op).size()) == type.getRank() &&
         type.getNumElements() > 0;
}

/// The rules of whole-tensor sums in a multi-tensor launch: every block
/// sums its share of each tensor, and the last block to finish combines the
/// blocks' partials, so a sum and what is computed from it exist only then:
/// scalar ops may follow, but no update and no other sum of the launch may
/// read them.
static LogicalResult checkTensorSums(ArrayRef<Operation *> ops,
                                     ArrayRef<Operation *> sums,
                                     const Reporter &report) {
  llvm::DenseSet<Value> late;
  for (Operation *op : ops) {
    bool isSum = llvm::is_contained(sums, op);
    bool readsLate = llvm::any_of(op->getOperands(),
                                  [&](Value v) { return late.contains(v); });
    if (readsLate) {
      auto role = cast<KernelRoleOpInterface>(op).getKernelRole();
      if (isSum || role != KernelRole::Pointwise ||
          llvm::any_of(op->getResults(),
                       [](Value r) { return numElementsOf(r) != 1; }))
        return report.fail(
            "'" + op->getName().getStringRef() +
                "' reads a whole-tensor sum of this multi_tensor kernel, "
                "which exists only after every block has finished: only "
                "scalar pointwise ops may follow it in the same launch",
            op);
    }
    if (isSum || readsLate)
      for (Value r : op->getResults())
        late.insert(r);
  }
  return success();
}

/// Kernels whose loop computes only their anchor's results (block
/// quantized updates, scatters, sorts): every output is one of them.
static LogicalResult onlyAnchorOutputs(ArrayRef<Value> outputs,
                                       Operation *anchor, StringRef kindName,
                                       const Reporter &report) {
  for (Value output : outputs)
    if (output.getDefiningOp() != anchor)
      return report.fail("every output of a " + kindName +
                             " kernel must be a result of its " +
                             anchor->getName().getStringRef() + " op",
                         anchor);
  return success();
}

/// Evaluations of a kernel's ops per element of its outputs. The emitters
/// compute each value at the coordinates its readers ask for (a slice, pad,
/// concat, transpose, reshape, broadcast or reduction read remaps them) and
/// share it only between reads at the same coordinates: a value read through
/// two different views is computed twice, and a chain of such reads doubles
/// at each step (a log-step scan, x + shifted(x) thirteen times for a cumsum
/// of 4608 elements, made 2^13 copies of its first step: 73 MB of CUDA).
/// Each distinct path of remapping reads from an output to an op counts one
/// evaluation of it (an upper bound: two paths may meet at equal
/// coordinates); reads at the result's own coordinates (element-local ops on
/// operands of the result's shape) keep the path, and all reads of a value
/// of one element (a scale, a norm) are one.
static int64_t evaluationsPerElement(ArrayRef<Operation *> ops,
                                     ArrayRef<Value> outputs, int64_t stopAt) {
  llvm::DenseSet<Operation *> inKernel(ops.begin(), ops.end());
  llvm::DenseMap<Value, llvm::DenseSet<uint64_t>> paths;
  for (Value output : outputs)
    paths[output].insert(0);
  int64_t evaluations = 0;
  for (Operation *op : llvm::reverse(ops)) {
    llvm::DenseSet<uint64_t> mine;
    for (Value result : op->getResults())
      if (auto it = paths.find(result); it != paths.end())
        mine.insert(it->second.begin(), it->second.end());
    evaluations += std::max<int64_t>(1, mine.size());
    if (evaluations > stopAt)
      return evaluations;
    bool local = op->hasTrait<OpTrait::tfc::ElementLocal>();
    for (OpOperand &use : op->getOpOperands()) {
      Operation *def = use.get().getDefiningOp();
      if (!def || !inKernel.contains(def))
        continue;
      llvm::DenseSet<uint64_t> &theirs = paths[use.get()];
      if (numElementsOf(use.get()) == 1) {
        theirs.insert(1); // every read of one element reads the same one
        continue;
      }
      bool sameCoords =
          local && use.get().getType() == op->getResult(0).getType();
      for (uint64_t path : mine)
        theirs.insert(sameCoords ? path
                                 : static_cast<uint64_t>(llvm::hash_combine(
                                       path, op, use.getOperandNumber())));
    }
  }
  return evaluations;
}

LogicalResult
mlir::tfc::verifyKernelOps(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                           KernelKind kind,
                           function_ref<InFlightDiagnostic()> emitError) {
  Reporter report{emitError};
  StringRef kindName = stringifyKernelKind(kind);
  if (ops.empty())
    return report.fail("body must contain at least one op besides the "
                       "terminator");

  std::optional<KernelRole> anchor = anchorRole(kind);
  SmallVector<Operation *> anchors, columnSums, tensorSums;
  for (Operation *op : ops) {
    StringRef name = op->getName().getStringRef();
    if (!isa_and_nonnull<TfcDialect>(op->getDialect()))
      return report.fail("'" + name +
                             "' is not a tfc op; a kernel body holds only "
                             "tfc ops",
                         op);
    auto roleOp = dyn_cast<KernelRoleOpInterface>(op);
    if (!roleOp)
      return report.fail("'" + name +
                             "' has no kernel role and cannot be part of a "
                             "kernel (fusions do not nest)",
                         op);
    KernelRole role = roleOp.getKernelRole();
    if (role == KernelRole::Pointwise)
      continue;
    if (role == KernelRole::Composite)
      return report.fail("'" + name +
                             "' is a composite op; lowering decomposes it "
                             "before kernels are formed",
                         op);
    if (kind == KernelKind::row_reduction &&
        role == KernelRole::ColumnReduction) {
      columnSums.push_back(op); // sums over the rows, checked below
      continue;
    }
    if (kind == KernelKind::gemm && role == KernelRole::ColumnReduction)
      continue; // a bias gradient epilogue: matchGemmKernel decides
    if (kind == KernelKind::multi_tensor && isTensorSum(op)) {
      tensorSums.push_back(op); // whole-tensor sums, checked below
      continue;
    }
    if (role != anchor)
      return report.fail("a " + kindName + " kernel cannot hold '" + name +
                             "' (role " + stringifyKernelRole(role) + ")",
                         op);
    anchors.push_back(op);
  }

  // Recomputation through views is bounded (evaluationsPerElement): twice
  // the ops plus a margin lets a value feed a few views (a rotary
  // embedding's halves, q/k/v slices of one bias add) and refuses
  // exponential chains.
  int64_t allowed = 2 * static_cast<int64_t>(ops.size()) + kRecomputeMargin;
  if (int64_t evaluations = evaluationsPerElement(ops, outputs, allowed);
      evaluations > allowed)
    return report.fail("a " + kindName + " kernel would evaluate its " +
                       Twine(ops.size()) + " ops more than " + Twine(allowed) +
                       " times per element (reads through slices, pads or "
                       "other views at different coordinates recompute what "
                       "they read); split it");

  if (!anchor)
    return success();
  StringRef anchorName = stringifyKernelRole(*anchor);
  if (anchors.empty() && !anchorIsOptional(kind))
    return report.fail("a " + kindName + " kernel needs at least one " +
                       anchorName + " op");
  if (needsExactlyOneAnchor(kind) && anchors.size() != 1)
    return report.fail("a " + kindName + " kernel holds exactly one " +
                           anchorName + " op, found " + Twine(anchors.size()),
                       anchors);

  // Reduction kernels index every operand of their ops; a tensor without
  // elements has no rows or columns to map threads to.
  if (kind == KernelKind::row_reduction ||
      kind == KernelKind::column_reduction) {
    for (Operation *op : ops)
      for (Value operand : op->getOperands())
        if (numElementsOf(operand) == 0)
          return report.fail("reductions over empty tensors are not "
                             "supported",
                             op);
  }

  switch (kind) {
  case KernelKind::gemm:
    // cuBLASLt runs the GEMM (tfcrt.gemm) with the epilogue it fuses.
    return matchGemmKernel(ops, outputs, emitError);
  case KernelKind::block_quantized:
    // The block loop computes all results of the update at once; nothing
    // follows it.
    return onlyAnchorOutputs(outputs, anchors.front(), kindName, report);
  case KernelKind::scatter: {
    // One warp per table row scans all ids, so they are read from memory
    // or a constant (never recomputed per row), and only the rows summed
    // (dy) may be computed in the kernel; the scan writes each table row
    // once.
    auto scatter = cast<EmbeddingGradOp>(anchors.front());
    if (Operation *def = scatter.getIds().getDefiningOp();
        def && !isa<ConstantOp>(def) && llvm::is_contained(ops, def))
      return report.fail("a scatter kernel reads its ids from memory; they "
                         "cannot be computed in the kernel",
                         def);
    return onlyAnchorOutputs(outputs, scatter, kindName, report);
  }
  case KernelKind::sort:
    // A sort kernel reads its rows from memory and writes its two results:
    // no codegen fuses a prologue or epilogue into the sort, so the kernel
    // is its one op.
    if (ops.size() != 1)
      for (Operation *op : ops)
        if (op != anchors.front())
          return report.fail("a sort kernel holds only its " +
                                 anchors.front()->getName().getStringRef() +
                                 " op; '" + op->getName().getStringRef() +
                                 "' cannot be fused into it",
                             op);
    return onlyAnchorOutputs(outputs, anchors.front(), kindName, report);
  case KernelKind::row_reduction: {
    // One row-reduction kernel maps one warp or block to each row, so every
    // reduction in it must walk the same rows.
    RowGeometry first =
        cast<KernelRoleOpInterface>(anchors.front()).getRowGeometry();
    for (Operation *op : ArrayRef(anchors).drop_front()) {
      RowGeometry geometry = cast<KernelRoleOpInterface>(op).getRowGeometry();
      if (geometry == first)
        continue;
      return report.fail("row reductions of one kernel must share their "
                         "rows: '" +
                             anchors.front()->getName().getStringRef() +
                             "' reduces " + describe(first) + " but '" +
                             op->getName().getStringRef() + "' reduces " +
                             describe(geometry),
                         {anchors.front(), op});
    }
    return checkRowDataflow(ops, columnSums, outputs, first, report);
  }
  case KernelKind::column_reduction:
    return checkColumnKernel(ops, anchors, outputs, report);
  case KernelKind::multi_tensor:
    return checkTensorSums(ops, tensorSums, report);
  default:
    return success();
  }
}

LogicalResult
mlir::tfc::verifyKernelBody(Block &body, KernelKind kind,
                            function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<Operation *> ops;
  SmallVector<Value> outputs;
  for (Operation &op : body) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      outputs.append(op.operand_begin(), op.operand_end());
    else
      ops.push_back(&op);
  }
  return verifyKernelOps(ops, outputs, kind, emitError);
}
