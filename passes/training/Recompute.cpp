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

#include "passes/FunctionList.h"
#include "passes/FunctionOutputs.h"
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
/// memory they read anyway, never a GEMM, a gather or a reduction to
/// duplicate. They are the ops of pointwise kernels (their kernel role:
/// elementwise math, converts, compares, selects, views, constants, iotas,
/// dropout) and the normalized outputs of layer_norm and rms_norm (the
/// statistics are saved: see run()).
bool isCheap(Operation *op) {
  if (isa<LayerNormOp, RmsNormOp>(op))
    return true;
  auto role = dyn_cast<KernelRoleOpInterface>(op);
  return role && role.getKernelRole() == KernelRole::Pointwise;
}

int64_t bytesOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return 0;
  Type e = type.getElementType();
  int64_t bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// The layer index a parameter's state-dict name gives ("h.3.attn.weight",
/// "layers.3.mlp", "encoder.layer.3.output": the first all-digit component),
/// or -1.
int64_t layerOf(StringRef name) {
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  for (StringRef part : parts) {
    int64_t index;
    if (!part.empty() && !part.getAsInteger(10, index))
      return index;
  }
  return -1;
}

class Recomputer {
public:
  Recomputer(func::FuncOp func, bool blocks) : func(func), blocks(blocks) {}

  /// Records on the function the bytes of the forward values read after
  /// the forward (the saved activations), as the function is now.
  void recordSaved() {
    int64_t bytes = 0;
    for (Operation *op : forward) {
      // A reshape is a view of its operand's buffer, not bytes of its own.
      if (isa<ReshapeOp>(op))
        continue;
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !forward.contains(user) && !isa<func::ReturnOp>(user);
            }))
          bytes += bytesOf(r);
    }
    func->setAttr(TfcDialect::kSavedActivationBytesAttrName,
                  Builder(func.getContext()).getI64IntegerAttr(bytes));
  }

  /// mode=none: only the record.
  void measure() {
    if (Value loss = lossOf()) {
      collectForward(loss);
      recordSaved();
    }
  }

  /// The value of the function's "loss" output, or null.
  Value lossOf() { return ::tfc::namedOutput(func, "loss"); }

  LogicalResult run() {
    Block &body = func.getBody().front();
    Value loss = lossOf();
    if (!loss)
      return success(); // no forward (apply_step)
    collectForward(loss);
    if (forward.empty())
      return success();

    if (blocks)
      findBlocks();
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
      bool inBlock = blockOf.count(def) && blockOf.lookup(def) >= 0;
      if (inBlock ? blockInputs.contains(v) : (!isCheap(def) || statistic))
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
                     << " (" << bytesOf(v) << " bytes)";
        if (blocks)
          llvm::errs() << " in block " << blockOf.lookup(v.getDefiningOp());
        llvm::errs() << "\n";
      }

    // Every reader after the forward of a value to recompute reads a clone
    // made right before it.
    SmallVector<Operation *> after;
    for (Operation &op : body)
      if (!forward.contains(&op))
        after.push_back(&op);
    for (Operation *op : after) {
      // Clones are shared within one reader only: a clone read again much
      // later would live as long as the saved value it replaces. A block's
      // forward is recomputed once for its whole backward (blockClones).
      readerClones.clear();
      for (OpOperand &operand : op->getOpOperands())
        if (recompute.contains(operand.get())) {
          OpBuilder b(op);
          operand.set(rematerialize(b, operand.get()));
        }
    }
    // Forward ops no one reads any more.
    SmallVector<Operation *> ordered(forward.begin(), forward.end());
    for (Operation *op : llvm::reverse(ordered))
      if (op->use_empty() && isPure(op)) {
        forward.remove(op);
        op->erase();
      }
    recordSaved();
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
    if (Value done = blockClones.lookup(v))
      return done;
    if (Value done = readerClones.lookup(v))
      return done;
    Operation *def = v.getDefiningOp();
    IRMapping map;
    for (Value operand : def->getOperands())
      if (recompute.contains(operand))
        map.map(operand, rematerialize(b, operand));
    Operation *clone = b.clone(*def, map);
    clone->setAttr(TfcDialect::kRecomputedAttrName, b.getUnitAttr());
    bool inBlock = blocks && blockOf.lookup(def) >= 0;
    DenseMap<Value, Value> &clones = inBlock ? blockClones : readerClones;
    for (auto [original, copy] :
         llvm::zip(def->getResults(), clone->getResults()))
      clones[original] = copy;
    return clones.lookup(v);
  }

  /// mode=blocks: the layer each forward op belongs to (-1 outside any):
  /// the block of a parameter it reads, directly or through the weight-only
  /// ops that convert or pad it (the tfc.checkpoint that took it, or else
  /// the layer index in its name), else the largest of its operands' (a
  /// residual add joins the layer it closes). A value read by an op of a
  /// later layer than its own is a block input: saved, while everything a
  /// block computes is recomputed in its backward, GEMMs included.
  void findBlocks() {
    DenseMap<Value, int64_t> layer;
    DenseSet<Value> weights; // parameters and what only they determine
    // Blocks the user marked with tfc.checkpoint replace the layer numbers
    // of the names (--tfc-inline-checkpoints recorded them).
    auto marked = func->getParentOfType<ModuleOp>()->getAttrOfType<DictionaryAttr>(
        TfcDialect::kCheckpointBlocksAttrName);
    for (BlockArgument arg : func.getArguments())
      if (auto name = func.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(), TfcDialect::kParamAttrName)) {
        if (!marked) {
          layer[arg] = layerOf(name.getValue());
        } else if (auto block = marked.getAs<IntegerAttr>(name.getValue())) {
          layer[arg] = block.getInt();
        } else {
          layer[arg] = -1;
        }
        weights.insert(arg);
      }
    for (Operation *op : forward) {
      int64_t own = -1;
      bool global = false, allWeights = op->getNumOperands() > 0;
      for (Value operand : op->getOperands()) {
        allWeights &= weights.contains(operand);
        auto it = layer.find(operand);
        if (it == layer.end())
          continue;
        // A parameter of no layer (an embedding, a final norm, a tied head)
        // puts its reader outside the blocks.
        global |= weights.contains(operand) && it->second < 0;
        own = std::max(own, it->second);
      }
      if (global)
        own = -1;
      blockOf[op] = own;
      for (Value r : op->getResults()) {
        layer[r] = own;
        if (allWeights)
          weights.insert(r);
      }
    }
    for (Operation *op : forward)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && forward.contains(def) && blockOf.lookup(op) >= 0 &&
            blockOf.lookup(def) < blockOf.lookup(op))
          blockInputs.insert(operand);
      }
  }

  func::FuncOp func;
  bool blocks;
  DenseMap<Operation *, int64_t> blockOf;
  DenseSet<Value> blockInputs;
  llvm::SetVector<Operation *> forward;
  DenseSet<Value> recompute;
  /// The clones of values of a block (mode=blocks), made once for the
  /// block's whole backward, and those of the other values, shared within
  /// one reader only.
  DenseMap<Value, Value> blockClones, readerClones;
};

struct TfcRecomputePass
    : public ::tfc::impl::TfcRecomputePassBase<TfcRecomputePass> {
  using TfcRecomputePassBase::TfcRecomputePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode != "none" && mode != "cheap" && mode != "blocks") {
      module.emitError(kPassFlag) << ": unknown mode '" << mode
                                  << "' (expected none, cheap or blocks)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs = *::tfc::lookupFunctions(
        module, function, ::tfc::MissingFunction::Skip);
    for (func::FuncOp f : funcs) {
      Recomputer recomputer(f, mode == "blocks");
      if (mode == "none")
        recomputer.measure();
      else if (failed(recomputer.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
