//===- Recompute.cpp - --tfc-recompute ------------------------------------===//
//
// The flow network (one per function): each forward value v is an edge
// v.in -> v.out whose capacity is v's bytes (cutting it = saving v); an
// operand edge u.out -> v.in of infinite capacity for each forward use; the
// source feeds v.in with infinite capacity when v cannot be recomputed (it
// is computed in the forward, whatever the cut), and v.out feeds the sink
// with infinite capacity when anything after the forward reads v. Function
// arguments are free (parameters and inputs stay in memory anyway) and are
// not nodes. The minimum cut closest to the source gives the saved values;
// the forward values on the sink side that the backward reads are
// recomputed.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "passes/training/MinCut.h"

#include "dialects/tfc/TfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>

namespace tfc {
#define GEN_PASS_DEF_TFCRECOMPUTEPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

constexpr llvm::StringLiteral kPassFlag = "--tfc-recompute";

/// Ops mode=cheap may run again in the backward: their cost is a pass over
/// memory they read anyway, never a GEMM or a reduction to duplicate.
bool isCheap(Operation *op) {
  return isa<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, CosOp, SinOp,
             TanhOp, SigmoidOp, ReluOp, SiluOp, GeluOp, PowOp, AddOp, SubOp,
             MulOp, DivOp, MaximumOp, MinimumOp, CompareOp, SelectOp,
             ConvertOp, ConstantOp, IotaOp, ReshapeOp, TransposeOp,
             BroadcastToOp, SliceOp, ConcatOp, PadOp, DropoutOp, LayerNormOp,
             RmsNormOp>(op);
}

int64_t bytesOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return 0;
  Type e = type.getElementType();
  int64_t bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

class Recomputer {
public:
  explicit Recomputer(func::FuncOp func) : func(func) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Value loss;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto name = func.getResultAttrOfType<StringAttr>(
              i, TfcDialect::kOutputAttrName);
          name && name.getValue() == "loss")
        loss = ret.getOperand(i);
    if (!loss)
      return success(); // no forward (apply_step)
    collectForward(loss);
    if (forward.empty())
      return success();

    // Nodes: source, sink, then in/out per forward value.
    SmallVector<Value> values;
    DenseMap<Value, int> index;
    for (Operation *op : forward)
      for (Value r : op->getResults()) {
        index[r] = values.size();
        values.push_back(r);
      }
    const int source = 0, sink = 1;
    auto in = [&](Value v) { return 2 + 2 * index.lookup(v); };
    auto out = [&](Value v) { return 3 + 2 * index.lookup(v); };
    ::tfc::FlowNetwork net(2 + 2 * int(values.size()));
    const int64_t inf = ::tfc::FlowNetwork::kInfinite;
    for (Value v : values) {
      Operation *def = v.getDefiningOp();
      net.addEdge(in(v), out(v), std::max<int64_t>(1, bytesOf(v)));
      // A norm's statistics (one or two numbers per row) are saved: what
      // recomputing them costs is a pass over the rows, what saving them
      // costs next to nothing.
      bool statistic = isa<LayerNormOp, RmsNormOp>(def) &&
                       cast<OpResult>(v).getResultNumber() > 0;
      if (!isCheap(def) || statistic)
        net.addEdge(source, in(v), inf);
      for (Value operand : def->getOperands())
        if (index.count(operand))
          net.addEdge(out(operand), in(v), inf);
      for (Operation *user : v.getUsers())
        if (!forward.contains(user)) {
          net.addEdge(out(v), sink, inf);
          break;
        }
    }
    if (net.maxFlow(source, sink) >= inf)
      return func.emitError(kPassFlag)
             << ": no finite set of values to save (a bug: every value "
                "can be saved)";
    // Of the minimum cuts, the one closest to the sink: among values of
    // equal size it saves the last of a chain (a GEMM's bias-added output
    // rather than its raw product), so the forward keeps its fused kernels
    // and the backward recomputes only what follows. Saved: v.in on the
    // source side, v.out on the sink side. Recomputed: both on the sink
    // side.
    std::vector<bool> sinkSide = net.sinkSide(sink);
    auto saved = [&](Value v) { return !sinkSide[in(v)] && sinkSide[out(v)]; };
    for (Value v : values)
      if (sinkSide[in(v)])
        recompute.insert(v);
    if (const char *log = std::getenv("TFC_LOG");
        log && llvm::StringRef(log) == "debug")
      for (Value v : values) {
        bool read = llvm::any_of(v.getUsers(), [&](Operation *user) {
          return !forward.contains(user);
        });
        if (!saved(v) && !(read && recompute.contains(v)))
          continue;
        llvm::errs() << kPassFlag << ": @" << func.getName() << " "
                     << (saved(v) ? "saves" : "recomputes") << " "
                     << v.getDefiningOp()->getName() << " " << v.getType()
                     << " (" << bytesOf(v) << " bytes)\n";
      }

    // Every reader after the forward of a value to recompute reads a clone
    // made right before it.
    SmallVector<Operation *> after;
    for (Operation &op : body)
      if (!forward.contains(&op))
        after.push_back(&op);
    for (Operation *op : after) {
      // Clones are shared within one reader only: a clone read again much
      // later would live as long as the saved value it replaces.
      clones.clear();
      for (OpOperand &operand : op->getOpOperands())
        if (recompute.contains(operand.get())) {
          OpBuilder b(op);
          operand.set(rematerialize(b, operand.get()));
        }
    }
    // Forward ops no one reads any more.
    for (Operation *op : llvm::reverse(forward))
      if (op->use_empty() && isCheap(op))
        op->erase();
    return success();
  }

private:
  /// The forward: every op the loss depends on.
  void collectForward(Value loss) {
    SmallVector<Value> work = {loss};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || forward.contains(def))
        continue;
      forward.insert(def);
      llvm::append_range(work, def->getOperands());
    }
    // In program order.
    SmallVector<Operation *> ordered;
    for (Operation &op : func.getBody().front())
      if (forward.contains(&op))
        ordered.push_back(&op);
    forward.clear();
    forward.insert(ordered.begin(), ordered.end());
  }

  /// A clone of `v`'s producer (and of the producers of its operands to
  /// recompute) before `b`'s insertion point, once per value.
  Value rematerialize(OpBuilder &b, Value v) {
    if (Value done = clones.lookup(v))
      return done;
    Operation *def = v.getDefiningOp();
    IRMapping map;
    for (Value operand : def->getOperands())
      if (recompute.contains(operand))
        map.map(operand, rematerialize(b, operand));
    Operation *clone = b.clone(*def, map);
    for (auto [original, copy] :
         llvm::zip(def->getResults(), clone->getResults()))
      clones[original] = copy;
    return clones.lookup(v);
  }

  func::FuncOp func;
  llvm::SetVector<Operation *> forward;
  DenseSet<Value> recompute;
  DenseMap<Value, Value> clones;
};

struct TfcRecomputePass
    : public ::tfc::impl::TfcRecomputePassBase<TfcRecomputePass> {
  using TfcRecomputePassBase::TfcRecomputePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode != "none" && mode != "cheap") {
      module.emitError(kPassFlag)
          << ": unknown mode '" << mode << "' (expected none or cheap)";
      return signalPassFailure();
    }
    if (mode == "none")
      return;
    SmallVector<StringRef> names;
    llvm::SplitString(function, names, ",");
    for (StringRef name : names)
      if (auto f = module.lookupSymbol<func::FuncOp>(name.trim()))
        if (failed(Recomputer(f).run()))
          return signalPassFailure();
  }
};

} // namespace
