//===- Fuse.cpp - --tfc-fuse ----------------------------------------------===//
//
// Greedy kernel fusion over the one-op kernels of --tfc-form-kernels. The
// rules only propose candidate groups; whether a group is one kernel is
// decided by the kernel rules (verifyKernelOps, through mergeKernels), so
// the pass can never form a kernel that the verifier or codegen rejects.
//
// Cost model, in the terms of DESIGN.md's bandwidth-bound kernels: a merge
// saves the store and re-load of every value that becomes internal, and a
// launch. Nothing is ever computed twice except cheap pointwise producers,
// and only when duplicating them moves no more bytes than storing their
// result once and reading it back once per reader.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/KernelMerge.h"
#include "passes/fusion/Passes.h"
#include "passes/FunctionOutputs.h"

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"
#include "dialects/tfcrt/TfcrtInPlace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <set>
#include <vector>

namespace tfc {
#define GEN_PASS_DEF_TFCFUSEPASS
#include "passes/fusion/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;
using namespace ::tfc::fusion;

namespace {

/// A pointwise producer is duplicated into at most this many readers...
constexpr unsigned kMaxDuplicates = 8;
/// ...and only when it is this small.
constexpr unsigned kMaxDuplicatedOps = 16;
/// A kernel reading a value tries to merge with the next this many kernels
/// reading it (in program order), not with all of them: each try walks the
/// ops between the two, and the readers of a weight in a loop unrolled T
/// times (an RNN over T steps) would make T^2 tries that the steps'
/// dependences reject anyway.
constexpr unsigned kSiblingWindow = 8;

class Fuser;

/// A group of kernels to merge, as readerMovesAfter asks about it: its
/// first and last member, and which ops depend on a member (remembered
/// across the group's updates: each asked anew walked the same ops again).
struct GroupReach {
  GroupReach(ArrayRef<FusionOp> members, Fuser &fuser);

  /// Whether `op` reads, through any chain of ops, a member's result. An
  /// op before the first member cannot: the search stops there (a long
  /// unrolled loop would otherwise walk every op before it per call).
  bool dependsOnMembers(Operation *op);

  Operation *first;
  Operation *last;
  llvm::DenseSet<Operation *> memberSet;
  ProgramOrder &order;
  llvm::DenseMap<Operation *, bool> memo;
};

class Fuser {
  friend struct GroupReach;

public:
  explicit Fuser(func::FuncOp func) : func(func) {}

  /// Applies the rules until none merges anything. After every rule that
  /// merged something the cheaper rules run again first: absorbing a
  /// producer entirely (nothing stored) beats keeping its result, and what
  /// one rule merges can let an earlier one apply (an iota absorbed into a
  /// compare makes the compare input-free, hence worth duplicating).
  void run() {
    findForward();
    fuseGemmEpilogues();
    for (;;) {
      if (absorbProducers())
        continue;
      if (fuseEpilogues())
        continue;
      if (fuseMultiTensor())
        continue;
      if (keepProducers())
        continue;
      if (fuseSiblings())
        continue;
      break;
    }
  }

private:
  /// The fusions of the function in program order (a snapshot).
  SmallVector<FusionOp> kernels() {
    SmallVector<FusionOp> all;
    for (Block &block : func.getBody())
      for (auto fusion : block.getOps<FusionOp>())
        all.push_back(fusion);
    return all;
  }

  /// A number that names a fusion op for the failure cache; an op created
  /// later at a reused address gets a new one.
  uint64_t stamp(FusionOp op) {
    auto [it, inserted] = stamps.try_emplace(op.getOperation(), nextStamp);
    if (inserted)
      ++nextStamp;
    return it->second;
  }

  /// Merges `members` (duplicating `duplicated`) if the kernel rules accept
  /// the group. A rejected group is remembered: merging only ever adds
  /// paths between kernels and a rejected body stays rejected, so the same
  /// group is never tried twice.
  FusionOp merge(ArrayRef<FusionOp> members, ArrayRef<FusionOp> duplicated,
                 bool dryRun = false,
                 std::optional<KernelKind> forcedKind = std::nullopt) {
    std::optional<KernelKind> kind = forcedKind;
    for (FusionOp m : members) {
      if (forcedKind)
        break;
      kind = kind ? combinedKind(*kind, m.getKind())
                  : std::optional<KernelKind>(m.getKind());
    }
    if (!kind)
      return {};
    if (!respectsRecompute(members))
      return {};
    std::vector<uint64_t> key;
    for (FusionOp m : members)
      key.push_back(stamp(m));
    key.push_back(~uint64_t(0));
    for (FusionOp d : duplicated)
      key.push_back(stamp(d));
    if (rejected.count(key))
      return {};
    auto keepsInPlaceUpdates = [&](Block &body, ArrayRef<Value> inputs,
                                   ArrayRef<Value> outputs) {
      return keepsUpdatesInPlace(members, body, *kind, inputs, outputs);
    };
    FailureOr<FusionOp> merged =
        mergeKernels(members, duplicated, *kind, order, dryRun,
                     keepsInPlaceUpdates);
    if (failed(merged)) {
      rejected.insert(key);
      return {};
    }
    if (dryRun)
      return members.front();
    bool inForward = llvm::any_of(members, [&](FusionOp m) {
      return forward.contains(m.getOperation());
    });
    for (FusionOp m : members)
      if (!llvm::is_contained(duplicated, m))
        forget(m);
    if (inForward)
      forward.insert(merged->getOperation());
    return *merged;
  }

  /// The kernels the function's "loss" output depends on: the forward of a
  /// training step (--tfc-recompute's forward, now in kernels). Without a
  /// loss output every kernel counts as forward.
  void findForward() {
    Value loss = ::tfc::namedOutput(func, "loss");
    if (!loss) {
      for (FusionOp fusion : kernels())
        forward.insert(fusion.getOperation());
      return;
    }
    SmallVector<Value> work = {loss};
    llvm::DenseSet<Operation *> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !seen.insert(def).second)
        continue;
      if (isa<FusionOp>(def))
        forward.insert(def);
      llvm::append_range(work, def->getOperands());
    }
  }

  /// Whether a kernel holds ops --tfc-recompute placed in the backward.
  /// A recomputed constant or iota does not count: it reads nothing, so
  /// computing it anywhere keeps nothing alive.
  static bool holdsRecomputed(FusionOp fusion) {
    for (Operation &op : fusion.getBodyBlock())
      if (op.hasAttr(TfcDialect::kRecomputedAttrName) &&
          op.getNumOperands() > 0)
        return true;
    return false;
  }

  /// A recomputed op merges into the kernels after it (the backward that
  /// reads it). Not into a forward kernel before it whose results the
  /// forward still reads: that would compute it in the forward again
  /// (merging it with the op it is a copy of), and keep it alive in
  /// between, as if it were saved; a forward kernel nothing reads before
  /// the recomputed one (the loss kernel) moves instead. A backward kernel
  /// before it may join when that moves it (a merged kernel takes the
  /// place of its last member) without keeping anything alive longer:
  /// everything the early members read is read by a later member too (or
  /// computed by a member), e.g. a bias-gradient column sum of the dy that
  /// a layer_norm backward with a recomputed layer_norm reads. Moving a
  /// kernel whose inputs die where it runs would grow the arena that
  /// recompute exists to shrink.
  bool respectsRecompute(ArrayRef<FusionOp> members) {
    Operation *firstRecomputed = nullptr;
    for (FusionOp m : members)
      if (holdsRecomputed(m) &&
          (!firstRecomputed || order.isBefore(m, firstRecomputed)))
        firstRecomputed = m;
    if (!firstRecomputed)
      return true;
    llvm::DenseSet<Value> readLate, computed;
    for (FusionOp m : members) {
      for (Value r : m.getResults())
        computed.insert(r);
      if (!order.isBefore(m, firstRecomputed))
        for (Value v : m.getInputs())
          readLate.insert(viewRoot(v));
    }
    Operation *last = members.front();
    for (FusionOp m : members)
      if (order.isBefore(last, m))
        last = m;
    auto isMember = [&](Operation *op) {
      return llvm::any_of(members,
                          [&](FusionOp m) { return m.getOperation() == op; });
    };
    // A forward kernel moves to the recomputed one's place only when nothing
    // reads its results before then (the loss kernel at the end of the
    // forward, whose logits a recomputed convert also reads); one whose
    // results the forward still needs would pull the recomputed op into the
    // forward instead.
    auto movesIntact = [&](FusionOp m) {
      for (Value r : m.getResults())
        for (Operation *user : r.getUsers())
          if (!isMember(user) && user->getBlock() == last->getBlock() &&
              !order.isBefore(last, user))
            return false;
      return true;
    };
    return llvm::none_of(members, [&](FusionOp m) {
      if (!order.isBefore(m, firstRecomputed))
        return false;
      return (forward.contains(m.getOperation()) && !movesIntact(m)) ||
             llvm::any_of(m.getInputs(), [&](Value v) {
               return !readLate.contains(viewRoot(v)) &&
                      !computed.contains(viewRoot(v));
             });
    });
  }

  /// A kernel that computes a parameter's or state's new value from the
  /// old one (a gradient accumulator, a step counter, an optimizer update)
  /// writes it in place when the in-place rule (TfcrtInPlace.h) allows.
  /// A merge must not take that away, which would cost a copy of the value
  /// after the step: every update a member could write in place, the
  /// merged body (of `kind`, binding `inputs`, yielding `outputs`) can too.
  /// A reduction kind never can; a member reading the old value at other
  /// indices (a step count broadcast over a parameter) breaks it too.
  LogicalResult keepsUpdatesInPlace(ArrayRef<FusionOp> members, Block &body,
                                    KernelKind kind, ArrayRef<Value> inputs,
                                    ArrayRef<Value> outputs) {
    if (failed(addsNoLateRead(members, inputs)))
      return failure();
    // Positions looked up once, not by a search per update: a multi-tensor
    // kernel binds every parameter it updates.
    auto positions = [](ValueRange values) {
      llvm::DenseMap<Value, unsigned> first;
      for (auto [i, value] : llvm::enumerate(values))
        first.try_emplace(value, i);
      return first;
    };
    llvm::DenseMap<Value, unsigned> mergedInputs = positions(inputs),
                                    mergedOutputs = positions(outputs);
    GroupReach reach(members, *this);
    for (FusionOp m : members) {
      SmallVector<std::pair<OpResult, Value>> updates = updatesOf(m);
      if (updates.empty())
        continue;
      llvm::DenseMap<Value, unsigned> memberInputs = positions(m.getInputs());
      for (auto [result, argument] : updates) {
        auto input = memberInputs.find(argument);
        if (input == memberInputs.end() ||
            failed(mlir::tfcrt::checkInPlaceOutput(
                m.getBodyBlock(), m.getKind(), input->second,
                result.getResultNumber())))
          continue; // a copy before the merge already
        if (readerMovesAfter(argument, m, reach))
          return failure();
        auto mergedInput = mergedInputs.find(argument);
        auto mergedOutput = mergedOutputs.find(Value(result));
        if (mergedInput == mergedInputs.end() ||
            mergedOutput == mergedOutputs.end() ||
            failed(mlir::tfcrt::checkInPlaceOutput(
                body, kind, mergedInput->second, mergedOutput->second)))
          return failure();
      }
    }
    return success();
  }

  /// The member latest in program order: where the merged kernel sits.
  Operation *lastOf(ArrayRef<FusionOp> members) {
    return extremeOf(members, /*last=*/true);
  }

  /// The member earliest in program order.
  Operation *firstOf(ArrayRef<FusionOp> members) {
    return extremeOf(members, /*last=*/false);
  }

  Operation *extremeOf(ArrayRef<FusionOp> members, bool last) {
    Operation *found = members.front();
    for (FusionOp m : members)
      if (last ? order.isBefore(found, m) : order.isBefore(m, found))
        found = m;
    return found;
  }

  /// The merged kernel sits where the last member is. If it reads an
  /// argument that a kernel outside the group updates in place before that
  /// point, and no member read it there already (a producer of `step + 1`
  /// duplicated into the optimizer kernel after the step's update), the
  /// update would be read after it is written: the lowering would copy.
  LogicalResult addsNoLateRead(ArrayRef<FusionOp> members,
                               ArrayRef<Value> inputs) {
    Operation *last = lastOf(members);
    for (Value input : inputs) {
      auto argument = dyn_cast<BlockArgument>(input);
      if (!argument || argument.getOwner()->getParentOp() != func)
        continue;
      // The kernels updating it from its old value, found from the update
      // results: an argument every kernel reads (a weight of an unrolled
      // loop) would otherwise cost a walk of all of them per merge.
      for (FusionOp updater : updatersOf(argument)) {
        if (llvm::is_contained(members, updater) ||
            !order.isBefore(updater, last) ||
            !llvm::is_contained(updater->getOperands(), input))
          continue;
        bool readLateAlready = llvm::any_of(members, [&](FusionOp m) {
          return order.isBefore(updater, m) &&
                 llvm::is_contained(m.getInputs(), input);
        });
        if (!readLateAlready)
          return failure();
      }
    }
    return success();
  }

  /// Whether a kernel outside `members` that reads `argument` before
  /// `updater` (so the update could be written in place) would read it
  /// after the merged kernel: it sits where the last member is, and what
  /// depends on a member moves after it (the multi-tensor optimizer kernel
  /// reads the old step and the found_inf flag computed with the new one).
  bool readerMovesAfter(Value argument, FusionOp updater, GroupReach &reach) {
    SmallVector<Value> views{argument};
    for (size_t i = 0; i < views.size(); ++i)
      for (Operation *user : views[i].getUsers()) {
        if (isa<ReshapeOp>(user)) {
          views.push_back(user->getResult(0));
          continue;
        }
        if (reach.memberSet.contains(user) || !order.isBefore(user, updater))
          continue; // a member itself, or a reader that was later already
        if (order.isBefore(user, reach.first))
          continue; // stays before the group, depending on none of it
        if (order.isBefore(reach.last, user) || reach.dependsOnMembers(user))
          return true;
      }
    return false;
  }

  /// The results of `op` that the function returns as the new value
  /// (tfc.update) of a parameter or state argument, with that argument.
  SmallVector<std::pair<OpResult, Value>> updatesOf(FusionOp op) {
    SmallVector<std::pair<OpResult, Value>> updates;
    auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
    if (!returnOp)
      return updates;
    for (OpOperand &use : op->getUses()) {
      if (use.getOwner() != returnOp.getOperation())
        continue;
      auto target = func.getResultAttrOfType<StringAttr>(
          use.getOperandNumber(), TfcDialect::kUpdateAttrName);
      if (!target)
        continue;
      for (BlockArgument argument : argumentsNamed().lookup(target))
        updates.push_back({cast<OpResult>(use.get()), argument});
    }
    return updates;
  }

  /// The kernels that compute an update (a tfc.update result) of
  /// `argument`, once per such result.
  SmallVector<FusionOp> updatersOf(BlockArgument argument) {
    SmallVector<FusionOp> updaters;
    auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
    if (!returnOp)
      return updaters;
    if (!updateResults) {
      updateResults.emplace();
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        if (auto target = func.getResultAttrOfType<StringAttr>(
                i, TfcDialect::kUpdateAttrName))
          for (BlockArgument named : argumentsNamed().lookup(target))
            (*updateResults)[named].push_back(i);
    }
    for (unsigned index : updateResults->lookup(argument))
      if (auto updater = returnOp.getOperand(index).getDefiningOp<FusionOp>())
        updaters.push_back(updater);
    return updaters;
  }

  /// The arguments by their tfc.param and tfc.state names, in order (an
  /// argument under both names twice), found once: a multi-tensor kernel
  /// updates every parameter, and looking each update's argument up among
  /// all arguments made every merge into it cost their number squared.
  const llvm::DenseMap<StringAttr, SmallVector<BlockArgument, 1>> &
  argumentsNamed() {
    if (argumentsByName)
      return *argumentsByName;
    argumentsByName.emplace();
    for (BlockArgument argument : func.getArguments())
      for (StringRef attr :
           {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName})
        if (auto name = func.getArgAttrOfType<StringAttr>(
                argument.getArgNumber(), attr))
          (*argumentsByName)[name].push_back(argument);
    return *argumentsByName;
  }

  void forget(FusionOp op) {
    stamps.erase(op.getOperation());
    forward.erase(op.getOperation());
    dead.insert(op.getOperation());
  }

  bool isDead(FusionOp op) { return dead.contains(op.getOperation()); }

  /// Rule 0: the epilogue cuBLASLt fuses joins its GEMM
  /// (TfcGemmKernel.h): a bias add of the product, then a ReLU or GELU
  /// (tanh form) of it, each optional; a GELU's input stays an output (the
  /// aux matrix) when the backward reads it. Decided once, on the one-op
  /// kernels, before rule 1a would duplicate a bias add into the GELU and
  /// its backward. Each step takes the first reader the rules accept.
  void fuseGemmEpilogues() {
    dead.clear();
    for (FusionOp gemm : kernels()) {
      if (isDead(gemm) || gemm.getKind() != KernelKind::gemm)
        continue;
      FusionOp current = gemm;
      for (int step = 0; step < 2 && current; ++step) {
        FusionOp merged;
        for (FusionOp reader : readersOf(current, order).kernels)
          if ((merged = merge({current, reader}, {}, /*dryRun=*/false,
                              KernelKind::gemm)))
            break;
        current = merged;
      }
    }
  }

  /// Rule 1a: pointwise producers whose results only kernels read join
  /// them entirely: the one reader, or every reader by duplication.
  bool absorbProducers() {
    bool changed = false;
    dead.clear();
    SmallVector<FusionOp> all = kernels();
    // Last to first: merging a producer into its reader leaves the merged
    // kernel where the reader was, and the producer's own producers are
    // visited next and find it, so a chain collapses in one sweep.
    for (FusionOp producer : llvm::reverse(all)) {
      if (isDead(producer) || producer.getKind() != KernelKind::pointwise)
        continue;
      Readers readers = readersOf(producer, order);
      if (readers.external || readers.kernels.empty())
        continue;
      if (readers.kernels.size() == 1) {
        changed |= bool(merge({producer, readers.kernels.front()}, {}));
        continue;
      }
      changed |= duplicate(producer, readers.kernels);
    }
    return changed;
  }

  /// Rule 1b: a pointwise producer that must stay in memory (something
  /// else reads it, or not every reader can take it) joins the first reader
  /// that can: that reader is spared the re-load, the others still read the
  /// stored result (bias + residual add writing the residual stream next to
  /// the layer_norm it feeds).
  bool keepProducers() {
    bool changed = false;
    dead.clear();
    SmallVector<FusionOp> all = kernels();
    for (FusionOp producer : llvm::reverse(all)) {
      if (isDead(producer) || producer.getKind() != KernelKind::pointwise)
        continue;
      for (FusionOp reader : readersOf(producer, order).kernels) {
        if (!carriesBulk(producer, reader))
          continue;
        if (merge({producer, reader}, {})) {
          changed = true;
          break;
        }
      }
    }
    return changed;
  }

  /// Duplicates a cheap pointwise `producer` into every one of `readers`,
  /// when that moves no more bytes than storing its results and reading
  /// them back, and only if every reader can take it (the producer then
  /// disappears). Returns whether anything merged.
  bool duplicate(FusionOp producer, ArrayRef<FusionOp> readers) {
    if (readers.size() > kMaxDuplicates ||
        opCount(producer) > kMaxDuplicatedOps)
      return false;
    int64_t bytesIn = 0, bytesOut = 0;
    for (Value input : producer.getInputs())
      bytesIn += bytesOf(input);
    for (Value result : producer.getResults())
      bytesOut += bytesOf(result);
    // Each copy reads the producer's inputs where its reader read the
    // producer's result, and the result is never stored: with N readers,
    // N * bytesIn against (N + 1) * bytesOut. Inputs at most an eighth
    // larger than the result (iota and constant chains, broadcasts of small
    // tensors, a bias added to a GEMM's output that the forward and the
    // backward both read) always win for N <= kMaxDuplicates. Larger inputs
    // would be cheaper for two readers but compound: a copy makes its
    // reader read those inputs, and duplicating the reader's other
    // producers later multiplies them (a residual stream recomputed from
    // every layer).
    static_assert(kMaxDuplicates <= 8, "the 9/8 bound below assumes it");
    if (8 * bytesIn > 9 * bytesOut)
      return false;
    for (FusionOp reader : readers)
      if (!merge({producer, reader}, {producer}, /*dryRun=*/true))
        return false;
    // The dry runs saw the same bodies and paths, so these succeed; should
    // one not, the producer simply stays for the readers left.
    for (FusionOp reader : readers)
      if (!merge({producer, reader}, {producer}))
        return true;
    // The last reader took it: mergeKernels erased it.
    forget(producer);
    return true;
  }

  /// Rule 2: pointwise readers of a reduction or gather join it as its
  /// epilogue; a row reduction reading another over the same rows joins
  /// it, and so does a column sum over its rows (the bias gradient of the
  /// residual-stream gradient a layer_norm backward writes). A kernel that
  /// only converts what an optimizer update wrote joins its multi-tensor
  /// kernel too (the 16-bit weight copy of the new parameter,
  /// --tfc-weight-copies).
  bool fuseEpilogues() {
    bool changed = false;
    dead.clear();
    for (FusionOp producer : kernels()) {
      if (isDead(producer))
        continue;
      KernelKind kind = producer.getKind();
      bool update =
          kind == KernelKind::multi_tensor && !holdsTensorSums(producer);
      if (kind != KernelKind::row_reduction &&
          kind != KernelKind::column_reduction && kind != KernelKind::gather &&
          !update)
        continue;
      // The producer may grow several times; follow the merged kernel.
      FusionOp current = producer;
      for (FusionOp reader : readersOf(producer, order).kernels) {
        KernelKind readerKind = reader.getKind();
        bool candidate = readerKind == KernelKind::pointwise ||
                         (kind == KernelKind::row_reduction &&
                          (readerKind == KernelKind::row_reduction ||
                           readerKind == KernelKind::column_reduction));
        // An update takes only the conversions of what it wrote (the weight
        // copies); other pointwise work (a loss scaler's selects and scalar
        // chain) stays out of the optimizer's launch, whose registers it
        // would crowd (ptxas spilled the loss-scaled, clipped step's).
        if (update && candidate &&
            !llvm::all_of(reader.getBodyBlock().without_terminator(),
                          [](Operation &op) { return isa<ConvertOp>(op); }))
          candidate = false;
        if (!candidate || isDead(reader) || !carriesBulk(current, reader))
          continue;
        if (FusionOp merged = merge({current, reader}, {})) {
          current = merged;
          changed = true;
        }
      }
    }
    return changed;
  }

  /// Rule 3: kernels that read the same value merge, so it is read once.
  bool fuseSiblings() {
    bool changed = false;
    dead.clear();
    // Function arguments, then every kernel's results in program order; a
    // kernel merged away meanwhile has nothing left to share.
    for (BlockArgument argument : func.getArguments())
      changed |= mergeReadersOf(argument);
    for (FusionOp fusion : kernels()) {
      if (isDead(fusion))
        continue;
      for (unsigned k = 0; k < fusion.getNumResults(); ++k) {
        if (isDead(fusion))
          break;
        changed |= mergeReadersOf(fusion.getResult(k));
      }
    }
    return changed;
  }

  /// Merges the kernels reading `value` pairwise, first to last, each
  /// with the next kSiblingWindow readers.
  bool mergeReadersOf(Value value) {
    bool changed = false;
    SmallVector<FusionOp> readers = kernelsReading(value, order);
    for (size_t i = 0; i < readers.size(); ++i) {
      if (isDead(readers[i]))
        continue;
      size_t end = std::min(readers.size(), i + 1 + kSiblingWindow);
      for (size_t j = i + 1; j < end; ++j) {
        if (isDead(readers[j]) ||
            !worthMergingSiblings(value, readers[i], readers[j]))
          continue;
        if (FusionOp merged = merge({readers[i], readers[j]}, {})) {
          readers[i] = merged;
          changed = true;
        }
      }
    }
    return changed;
  }

  /// Whether what `reader` reads of `producer`'s results is a real part of
  /// its input (at least half as many elements as it iterates over), so
  /// that merging saves a round trip through memory. A scalar or a bias
  /// read by a large kernel is not: merging on such an edge only chains
  /// independent work into one launch (every kernel reading a step count
  /// into one, with a single row for all of them).
  bool carriesBulk(FusionOp producer, FusionOp reader) {
    return 2 * elementsPassed(producer, reader) >= iterationSize(reader);
  }

  /// Whether `fusion` is a kernel of whole-tensor sums (a gradient's sum of
  /// squares for the global norm, its inf/NaN check) and scalar ops: formed
  /// as a row reduction of one row, it belongs in a multi-tensor launch.
  static bool sumsWholeTensors(FusionOp fusion) {
    if (fusion.getKind() != KernelKind::row_reduction)
      return false;
    bool any = false;
    for (Operation &op : fusion.getBodyBlock().without_terminator()) {
      auto role = dyn_cast<KernelRoleOpInterface>(op);
      if (role && role.getKernelRole() == KernelRole::Pointwise)
        continue;
      if (!isTensorSum(&op))
        return false;
      any = true;
    }
    return any;
  }

  static bool holdsTensorSums(FusionOp fusion) {
    return llvm::any_of(fusion.getBodyBlock().without_terminator(),
                        [](Operation &op) { return isTensorSum(&op); });
  }

  /// Rule 4: the optimizer's multi-tensor kernels (one per parameter as
  /// formed) become one launch over all their tensors, in program order,
  /// as far as the parameter space allows; so do the whole-tensor sums of
  /// the gradients (global norm, inf/NaN check), which the update cannot
  /// share a launch with (it needs their total): one launch reads every
  /// gradient for the sums, one for the update. They share no bulk data,
  /// so the sibling rule would not merge them; one launch instead of one
  /// per parameter is the point of the kind.
  bool fuseMultiTensor() {
    bool changed = false;
    dead.clear();
    // --tfc-optimizer-in-backward placed each update after its gradient:
    // one launch for all would move them back to the end.
    if (func->hasAttr(TfcDialect::kOptimizerInBackwardAttrName))
      return false;
    FusionOp current;
    for (FusionOp fusion : kernels()) {
      if (isDead(fusion) || (fusion.getKind() != KernelKind::multi_tensor &&
                             !sumsWholeTensors(fusion)))
        continue;
      // Sums and updates go to separate launches: an update reading a sum's
      // total (the clip coefficient, found_inf) could not share one, nor
      // could what reads the update and a total (the skip-step select).
      if (!current || holdsTensorSums(current) != holdsTensorSums(fusion)) {
        current = fusion;
        continue;
      }
      if (FusionOp merged =
              merge({current, fusion}, {}, false, KernelKind::multi_tensor)) {
        current = merged;
        changed = true;
      } else {
        current = fusion; // full: start the next launch here
      }
    }
    // Whole-tensor sums left alone (a mean-squared-error loss) become a
    // multi-tensor launch too: as a row reduction of one row they would run
    // in a single block.
    for (FusionOp fusion : kernels())
      if (!isDead(fusion) && sumsWholeTensors(fusion) &&
          succeeded(verifyKernelBody(fusion.getBodyBlock(),
                                     KernelKind::multi_tensor))) {
        fusion.setKind(KernelKind::multi_tensor);
        changed = true;
      }
    return changed;
  }

  /// Siblings merge when the value they share is a real part of what they
  /// read (not a bias or a scalar shared by many kernels) and their loops
  /// fit together: the same reduction kind, pointwise kernels of one size,
  /// or a pointwise kernel joining a reduction.
  bool worthMergingSiblings(Value value, FusionOp a, FusionOp b) {
    // Twins are a recomputation (--tfc-recompute) and the value it
    // replaces: merging them would compute the backward's copy in the
    // forward again and keep it alive in between.
    if (OperationEquivalence::isEquivalentTo(
            a, b, OperationEquivalence::exactValueMatch,
            /*markEquivalent=*/nullptr,
            OperationEquivalence::IgnoreLocations))
      return false;
    int64_t sizeA = iterationSize(a), sizeB = iterationSize(b);
    int64_t elements = cast<ShapedType>(value.getType()).getNumElements();
    if (2 * elements < std::min(sizeA, sizeB))
      return false;
    std::optional<KernelKind> kind = combinedKind(a.getKind(), b.getKind());
    if (!kind || *kind == KernelKind::gather)
      return false;
    if (*kind == KernelKind::pointwise)
      return sizeA == sizeB;
    return true;
  }

  func::FuncOp func;
  ProgramOrder order;
  llvm::DenseMap<Operation *, uint64_t> stamps;
  uint64_t nextStamp = 0;
  std::set<std::vector<uint64_t>> rejected;
  llvm::DenseSet<Operation *> dead;
  /// findForward's kernels, and the merged kernels that hold one of them.
  llvm::DenseSet<Operation *> forward;
  /// argumentsNamed(), once built (the pass changes no argument).
  std::optional<llvm::DenseMap<StringAttr, SmallVector<BlockArgument, 1>>>
      argumentsByName;
  /// The indices of the tfc.update results of each argument (updatersOf),
  /// once found.
  std::optional<llvm::DenseMap<Value, SmallVector<unsigned, 1>>> updateResults;
};

GroupReach::GroupReach(ArrayRef<FusionOp> members, Fuser &fuser)
    : first(fuser.firstOf(members)), last(fuser.lastOf(members)),
      order(fuser.order) {
  for (FusionOp m : members)
    memberSet.insert(m);
}

bool GroupReach::dependsOnMembers(Operation *op) {
  auto [it, inserted] = memo.try_emplace(op, false);
  if (!inserted)
    return it->second;
  bool depends = false;
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || def->getBlock() != first->getBlock() ||
        order.isBefore(def, first))
      continue;
    if (memberSet.contains(def) || dependsOnMembers(def)) {
      depends = true;
      break;
    }
  }
  return memo[op] = depends;
}

struct TfcFusePass : public ::tfc::impl::TfcFusePassBase<TfcFusePass> {
  void runOnOperation() override { Fuser(getOperation()).run(); }
};

} // namespace
