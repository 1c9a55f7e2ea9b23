//===- HostInterpreter.cpp - planning and running host programs ----------===//
//
// Values are held in compute types (float / double / int64_t). Where a value
// lives while a program runs:
//   - static (constant, iota): materialized once, at planning;
//   - input: read in place when its storage is its compute type (f32, f64,
//     i64), else converted (per chunk when a chain reads it elementwise,
//     whole when anything else reads it);
//   - chained: produced inside a pointwise chain; per chunk it is written to
//     a scratch buffer, or directly into its whole buffer when something
//     after the chain (or the caller, as an output of compute-type storage)
//     needs all of it;
//   - whole: produced by a whole-tensor op into a whole buffer;
//   - view: a view op's result (HostViews.h), read through its composed
//     view of a chained, whole, static or input value by the chains that
//     read it (per chunk) and by other view ops (composed at planning);
//     gathered into a whole buffer only where a whole-tensor op reads it
//     or it is an output.
// Outputs whose storage equals their compute type are written in place; the
// others are converted chunk by chunk or after their op.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostInterpreter.h"

#include "runtime/src/host/HostKernels.h"
#include "runtime/src/host/HostMemory.h"
#include "runtime/src/host/HostViews.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace tfc::rt::host {

namespace {

enum class Fetch {
  Chained,   ///< produced earlier in the same chain, aligned with the chunk
  Aligned,   ///< whole value of the chain's shape: read at the chunk offset
  Broadcast, ///< whole value of another shape: gathered per chunk
  Scalar,    ///< a seed/offset (readsScalarOperand): the single value
  View,      ///< a view of a whole value: gathered per chunk (HostViews.h)
};

bool nativeStorage(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::I64;
}

} // namespace

struct Interpreter::Plan {
  struct Group {
    bool chain = false;
    bool view = false; ///< gathers one view value into its whole buffer
    std::vector<size_t> ops;
    std::vector<int64_t> shape; ///< a chain's iteration space
    int64_t numel = 0;
    /// chain: per op, per operand, how it is fetched and its scratch slot.
    std::vector<std::vector<Fetch>> fetch;
    std::vector<std::vector<int>> slot;
    /// chain: per op, per operand, broadcast strides (Broadcast fetches).
    std::vector<std::vector<std::vector<int64_t>>> strides;
    /// chain: per op, per operand, the view read (View fetches), broadcast
    /// to the chain's shape.
    std::vector<std::vector<StridedView>> views;
    std::vector<int> resultSlot; ///< chain: per op, scratch slot or -1
    int slots = 0;
  };
  std::vector<Group> groups;
  std::vector<int> producerGroup; ///< per value; -1 for inputs and statics
  std::vector<bool> isStatic;     ///< constant or iota
  std::vector<bool> needsWhole;   ///< a whole compute buffer must exist
  /// Per value: the view it is of another value's data, for the results of
  /// folded view ops (HostViews.h); such a value has no buffer unless
  /// `materialize` says a reader needs one.
  std::vector<std::optional<StridedView>> views;
  std::vector<bool> materialize;
  std::vector<int> inputIndex;    ///< per value, or -1
  std::vector<std::vector<int>> outputIndices; ///< per value
  std::vector<std::vector<uint8_t>> staticData;
  /// Per output, per input: whether the output may be written over that
  /// input when both are the same memory (an in-place update), with no
  /// staging: see planInPlace.
  std::vector<std::vector<char>> inPlace;
  /// Per output, where it is staged when outputs overlap inputs in any
  /// other way (kept between runs).
  std::vector<std::vector<uint8_t>> stage;
  int maxSlots = 0;
  /// The run's layout in the thread's scratch: the chunk slots at offset
  /// 0, then each value that needs a buffer of its own at wholeOffset[v]
  /// (~0 for the others); scratchBytes in all.
  std::vector<uint64_t> wholeOffset;
  uint64_t scratchBytes = 0;
};

struct Interpreter::RunState {
  std::vector<void *> whole;      ///< per value: whole compute data, or null
  std::vector<void *> outStorage; ///< per output index
  const std::vector<const void *> *inputs = nullptr;
  uint8_t *slots = nullptr; ///< the chunk slots of the chains
};

namespace {

/// The memory of the runs on this thread: a run's whole intermediates and
/// chunk slots live here while it runs. Runs on one thread follow each
/// other, so every program run there shares it: the kernels of a training
/// step keep reusing the same, cache-warm memory instead of each holding
/// buffers of its own (it grows to the largest run's need and stays).
std::vector<uint8_t> &threadScratch() {
  static thread_local std::vector<uint8_t> pool;
  return pool;
}

/// Offsets within the scratch are multiples of a cache line.
constexpr uint64_t kScratchAlign = 64;

} // namespace

Interpreter::Interpreter(HostProgram program, int64_t chunkElements,
                         bool foldViews)
    : prog_(std::move(program)),
      chunk_(chunkElements > 0 ? chunkElements : kDefaultChunkElements),
      plan_(std::make_unique<Plan>()) {
  Plan &p = *plan_;
  size_t nv = prog_.values.size();
  p.producerGroup.assign(nv, -1);
  p.isStatic.assign(nv, false);
  p.needsWhole.assign(nv, false);
  p.inputIndex.assign(nv, -1);
  p.outputIndices.resize(nv);
  p.staticData.resize(nv);
  for (size_t i = 0; i < prog_.inputs.size(); ++i)
    p.inputIndex[prog_.inputs[i]] = int(i);
  for (size_t i = 0; i < prog_.outputs.size(); ++i)
    p.outputIndices[prog_.outputs[i]].push_back(int(i));

  // Statics are evaluated now; they behave like inputs afterwards. All of
  // them must fit in memory (see HostMemory.h: overcommit hides failures).
  uint64_t staticBytes = 0;
  for (const HostOp &op : prog_.ops)
    if (op.code == OpCode::Constant || op.code == OpCode::Iota) {
      const ValueType &t = prog_.values[op.results[0]];
      staticBytes += uint64_t(std::max<int64_t>(1, t.numel)) *
                     computeSize(t.dtype);
    }
  requireFitsInMemory(staticBytes);
  for (const HostOp &op : prog_.ops) {
    if (op.code != OpCode::Constant && op.code != OpCode::Iota)
      continue;
    int64_t v = op.results[0];
    p.isStatic[v] = true;
    const ValueType &t = prog_.values[v];
    p.staticData[v].resize(std::max<int64_t>(1, t.numel) *
                           computeSize(t.dtype));
    materializeStatic(prog_, op, p.staticData[v].data());
  }

  // View ops fold: their results are ways to read the value at the root of
  // their chain of views (HostViews.h), where such a way exists.
  // Where the composition fails (a transposed tensor flattened), the
  // operand view is gathered whole and the op views that copy instead.
  p.views.resize(nv);
  p.materialize.assign(nv, false);
  if (foldViews)
    for (const HostOp &op : prog_.ops) {
      if (!isFoldableView(op.code))
        continue;
      int64_t x = op.operands[0], r = op.results[0];
      const ValueType &xt = prog_.values[x];
      p.views[r] = applyViewOp(op, prog_.values[r],
                               p.views[x] ? *p.views[x] : identityView(x, xt));
      if (!p.views[r] && p.views[x]) {
        p.views[r] = applyViewOp(op, prog_.values[r], identityView(x, xt));
        if (p.views[r])
          p.materialize[x] = true;
      }
    }
  // A view is gathered whole only for a reader that needs it so: a
  // whole-tensor op (a view op that did not fold is one), a dropout's or
  // random's seed or offset, the caller (an output). Chains and folded views read it in
  // place.
  for (const HostOp &op : prog_.ops)
    for (size_t k = 0; k < op.operands.size(); ++k) {
      int64_t v = op.operands[k];
      if (v < 0 || !p.views[v])
        continue;
      bool chainRead =
          isPointwiseOp(op.code) && !readsScalarOperand(op.code, k);
      bool composed = isFoldableView(op.code) && p.views[op.results[0]];
      if (!chainRead && !composed)
        p.materialize[v] = true;
    }
  for (int64_t v : prog_.outputs)
    if (p.views[v])
      p.materialize[v] = true;

  // Greedy grouping in program order: a pointwise op joins the open chain
  // when it produces the chain's shape and reads no view of a value the
  // chain computes (a view may read other elements than the chunk's).
  // Folded views form no group; one that is gathered whole forms its own.
  auto readsViewOf = [&](const HostOp &op, int group) {
    for (int64_t v : op.operands)
      if (v >= 0 && p.views[v] && !p.materialize[v] &&
          p.producerGroup[p.views[v]->base] == group)
        return true;
    return false;
  };
  for (size_t i = 0; i < prog_.ops.size(); ++i) {
    const HostOp &op = prog_.ops[i];
    if (p.isStatic[op.results[0]])
      continue;
    const ValueType &rt = prog_.values[op.results[0]];
    if (p.views[op.results[0]] && !p.materialize[op.results[0]])
      continue;
    bool pw = isPointwiseOp(op.code);
    if (pw && !p.groups.empty() && p.groups.back().chain &&
        p.groups.back().shape == rt.shape &&
        !readsViewOf(op, int(p.groups.size() - 1))) {
      p.groups.back().ops.push_back(i);
    } else {
      Plan::Group g;
      g.chain = pw;
      g.view = bool(p.views[op.results[0]]);
      g.ops.push_back(i);
      g.shape = rt.shape;
      g.numel = rt.numel;
      p.groups.push_back(std::move(g));
    }
    for (int64_t r : op.results)
      p.producerGroup[r] = int(p.groups.size() - 1);
  }

  // Fetch modes, and which values need whole buffers: any value read by a
  // whole-tensor op, read through broadcast or as a scalar, or read by a
  // later group than its own.
  for (size_t g = 0; g < p.groups.size(); ++g) {
    Plan::Group &grp = p.groups[g];
    for (size_t oi = 0; oi < grp.ops.size(); ++oi) {
      const HostOp &op = prog_.ops[grp.ops[oi]];
      std::vector<Fetch> f;
      std::vector<int> s;
      std::vector<std::vector<int64_t>> bs(op.operands.size());
      std::vector<StridedView> vs(op.operands.size());
      for (size_t k = 0; k < op.operands.size(); ++k) {
        int64_t v = op.operands[k];
        if (v < 0) {
          f.push_back(Fetch::Aligned);
          s.push_back(-1);
          continue;
        }
        bool sameGroup = p.producerGroup[v] == int(g);
        if (!grp.chain) {
          // A gathered view reads its root (below), not its operand.
          if (!p.isStatic[v] && !grp.view)
            p.needsWhole[v] = true;
          f.push_back(Fetch::Aligned);
          s.push_back(-1);
          continue;
        }
        const ValueType &t = prog_.values[v];
        if (p.views[v] && !p.materialize[v]) {
          f.push_back(Fetch::View);
          s.push_back(grp.slots++);
          vs[k] = broadcastView(*p.views[v], grp.shape);
          if (!p.isStatic[vs[k].base])
            p.needsWhole[vs[k].base] = true;
        } else if (readsScalarOperand(op.code, k)) {
          f.push_back(Fetch::Scalar);
          s.push_back(-1);
          if (!p.isStatic[v])
            p.needsWhole[v] = true;
        } else if (sameGroup) {
          f.push_back(Fetch::Chained);
          s.push_back(-1);
        } else if (t.shape == grp.shape) {
          f.push_back(Fetch::Aligned);
          // Inputs of non-native storage are converted per chunk.
          bool convert = p.inputIndex[v] >= 0 && !nativeStorage(t.dtype);
          s.push_back(convert ? grp.slots++ : -1);
          if (!p.isStatic[v] && p.inputIndex[v] < 0)
            p.needsWhole[v] = true;
        } else {
          f.push_back(Fetch::Broadcast);
          s.push_back(grp.slots++);
          bs[k] = broadcastStrides(t.shape, grp.shape);
          if (!p.isStatic[v])
            p.needsWhole[v] = true;
        }
      }
      grp.fetch.push_back(std::move(f));
      grp.slot.push_back(std::move(s));
      grp.strides.push_back(std::move(bs));
      grp.views.push_back(std::move(vs));
    }
    // A gathered view reads its root whole.
    if (grp.view) {
      int64_t base = p.views[prog_.ops[grp.ops[0]].results[0]]->base;
      if (!p.isStatic[base])
        p.needsWhole[base] = true;
    }
  }
  // Inputs with native storage are read in place: no buffer of their own.
  for (int64_t v : prog_.inputs)
    if (nativeStorage(prog_.values[v].dtype))
      p.needsWhole[v] = false;
  // Whole-tensor results always need their buffers.
  for (const Plan::Group &grp : p.groups)
    if (!grp.chain)
      for (int64_t r : prog_.ops[grp.ops[0]].results)
        p.needsWhole[r] = true;
  // Chained values that nothing after the chain reads get a scratch slot,
  // unless they are outputs of native storage, produced in place.
  for (Plan::Group &grp : p.groups) {
    if (!grp.chain)
      continue;
    for (size_t oi = 0; oi < grp.ops.size(); ++oi) {
      int64_t r = prog_.ops[grp.ops[oi]].results[0];
      bool inPlace =
          !p.outputIndices[r].empty() && nativeStorage(prog_.values[r].dtype);
      grp.resultSlot.push_back(p.needsWhole[r] || inPlace ? -1 : grp.slots++);
    }
    p.maxSlots = std::max(p.maxSlots, grp.slots);
  }
  planScratch();
  planInPlace();
}

/// Output o may share its memory with input i (the runtime's in-place
/// updates: a parameter, a moment, a step counter) without being staged when
/// every read of the input happens before or element by element with the
/// write: both have one native storage type and size; the input is not an
/// output itself; no op after the output's producer P reads the input; and
/// P, if it reads the input, reads element k before writing element k and
/// cannot fail half way: a single-pass binary op (add, sub, mul, maximum,
/// minimum) or an elementwise optimizer update (adam, adamw, sgd:
/// HostOptimizerOps.cpp reads each element's operands before it writes that
/// element's results); every op of a pointwise chain that reads the input
/// fetches it aligned with the chunk, never broadcast.
void Interpreter::planInPlace() {
  Plan &p = *plan_;
  size_t nv = prog_.values.size();
  // A view is read where its readers run: a read of it is a read of its
  // root.
  auto root = [&](int64_t v) { return p.views[v] ? p.views[v]->base : v; };
  std::vector<int64_t> producerOp(nv, -1), lastRead(nv, -1);
  for (size_t i = 0; i < prog_.ops.size(); ++i) {
    for (int64_t r : prog_.ops[i].results)
      producerOp[r] = int64_t(i);
    for (int64_t v : prog_.ops[i].operands)
      if (v >= 0)
        lastRead[v] = lastRead[root(v)] = int64_t(i);
  }
  p.inPlace.assign(prog_.outputs.size(),
                   std::vector<char>(prog_.inputs.size(), 0));
  for (size_t o = 0; o < prog_.outputs.size(); ++o) {
    int64_t vo = prog_.outputs[o];
    int64_t P = producerOp[vo];
    if (P < 0 || p.isStatic[vo])
      continue;
    const HostOp &producer = prog_.ops[P];
    const Plan::Group &grp = p.groups[p.producerGroup[vo]];
    bool elementwiseUpdate = producer.code == OpCode::Adam ||
                             producer.code == OpCode::AdamW ||
                             producer.code == OpCode::Sgd;
    // Pointwise ops that compute each element in one pass and cannot fail
    // half way (a step counter's increment, a scaled update).
    bool singlePass = producer.code == OpCode::Add ||
                      producer.code == OpCode::Sub ||
                      producer.code == OpCode::Mul ||
                      producer.code == OpCode::Maximum ||
                      producer.code == OpCode::Minimum;
    const ValueType &to = prog_.values[vo];
    for (size_t i = 0; i < prog_.inputs.size(); ++i) {
      int64_t vi = prog_.inputs[i];
      const ValueType &ti = prog_.values[vi];
      if (vi == vo || !p.outputIndices[vi].empty() || ti.dtype != to.dtype ||
          !nativeStorage(ti.dtype) || ti.numel != to.numel ||
          lastRead[vi] > P)
        continue;
      bool safe = true;
      if (grp.chain) {
        for (size_t oi = 0; oi < grp.ops.size(); ++oi) {
          const HostOp &op = prog_.ops[grp.ops[oi]];
          for (size_t k = 0; k < op.operands.size(); ++k)
            if (op.operands[k] >= 0 && root(op.operands[k]) == vi &&
                (grp.fetch[oi][k] != Fetch::Aligned ||
                 (grp.ops[oi] == size_t(P) && !singlePass)))
              safe = false;
        }
      } else {
        for (int64_t v : producer.operands)
          if (v >= 0 && root(v) == vi && !elementwiseUpdate)
            safe = false;
      }
      p.inPlace[o][i] = safe;
    }
  }
}

/// Lays out a run's scratch: the chunk slots, then a buffer for every value
/// that needs one and has no memory of its own (not a static, a
/// native-storage input, or a native-storage output, which is written in
/// place). Buffers whose lifetimes do not overlap share memory: a value is
/// live from the group producing it (before the first group for an input
/// converted on load) to the last group reading it, directly or through a
/// folded view of it. Each takes the lowest offset free of the buffers live
/// when it is produced (first fit), so a kernel of many steps (a topk's
/// picks, a long unrolled loop) needs the memory of its widest point, not
/// the sum of all its values.
void Interpreter::planScratch() {
  Plan &p = *plan_;
  auto aligned = [](uint64_t n) {
    return (n + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
  };
  size_t n = prog_.values.size();
  std::vector<int> last(n, -1);
  auto read = [&](int64_t v, int g) {
    // A folded view's readers read its base (composed: one step).
    for (int depth = 0; v >= 0 && depth < 2; ++depth) {
      last[v] = std::max(last[v], g);
      if (!p.views[v] || p.views[v]->base == v)
        break;
      v = p.views[v]->base;
    }
  };
  for (size_t g = 0; g < p.groups.size(); ++g) {
    const Plan::Group &grp = p.groups[g];
    for (size_t oi : grp.ops)
      for (int64_t v : prog_.ops[oi].operands)
        read(v, int(g));
    if (grp.view)
      read(p.views[prog_.ops[grp.ops[0]].results[0]]->base, int(g));
  }

  uint64_t slotsEnd = aligned(uint64_t(p.maxSlots) * uint64_t(chunk_) * 8);
  p.scratchBytes = slotsEnd;
  p.wholeOffset.assign(n, ~uint64_t(0));
  std::vector<size_t> order;
  for (size_t v = 0; v < n; ++v) {
    const ValueType &t = prog_.values[v];
    if (p.isStatic[v] || !p.needsWhole[v] ||
        (p.inputIndex[v] >= 0 && nativeStorage(t.dtype)) ||
        (!p.outputIndices[v].empty() && nativeStorage(t.dtype)))
      continue;
    order.push_back(v);
  }
  auto firstOf = [&](size_t v) { return p.producerGroup[v]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return firstOf(a) < firstOf(b);
  });
  struct Block {
    uint64_t begin, end;
    int last;
  };
  std::vector<Block> blocks;
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (size_t v : order) {
    const ValueType &t = prog_.values[v];
    uint64_t size =
        aligned(uint64_t(std::max<int64_t>(1, t.numel)) * computeSize(t.dtype));
    int first = firstOf(v);
    busy.clear();
    for (const Block &b : blocks)
      if (b.last >= first)
        busy.push_back({b.begin, b.end});
    std::sort(busy.begin(), busy.end());
    uint64_t at = slotsEnd;
    for (auto [lo, hi] : busy) {
      if (lo >= at + size)
        break;
      at = std::max(at, hi);
    }
    p.wholeOffset[v] = at;
    blocks.push_back({at, at + size, std::max(last[v], first)});
    p.scratchBytes = std::max(p.scratchBytes, at + size);
  }
}

Interpreter::~Interpreter() = default;

size_t Interpreter::numGroups() const { return plan_->groups.size(); }

bool Interpreter::writesInPlace(size_t output, size_t input) const {
  return output < plan_->inPlace.size() &&
         input < plan_->inPlace[output].size() && plan_->inPlace[output][input];
}

Status Interpreter::create(std::string_view text,
                           std::unique_ptr<Interpreter> &out,
                           int64_t chunkElements, bool foldViews) {
  HostProgram prog;
  TFC_RETURN_IF_ERROR(parseHostProgram(text, prog));
  // Planning materializes constants: a program may ask for more memory than
  // there is, which must be an error, not an abort.
  try {
    out = std::make_unique<Interpreter>(std::move(prog), chunkElements,
                                        foldViews);
  } catch (const std::bad_alloc &) {
    return Status::error("host program: out of memory materializing its "
                         "constants");
  }
  return Status::ok();
}

Status Interpreter::runPointwiseGroup(size_t g, RunState &st) {
  Plan &p = *plan_;
  const Plan::Group &grp = p.groups[g];
  uint8_t *scratch = st.slots;
  auto slotPtr = [&](int s) { return scratch + size_t(s) * chunk_ * 8; };
  std::vector<void *> chunkPtr(prog_.values.size(), nullptr);
  std::vector<const void *> args;
  for (int64_t start = 0; start < grp.numel; start += chunk_) {
    int64_t n = std::min(chunk_, grp.numel - start);
    for (size_t oi = 0; oi < grp.ops.size(); ++oi) {
      const HostOp &op = prog_.ops[grp.ops[oi]];
      args.assign(op.operands.size(), nullptr);
      for (size_t k = 0; k < op.operands.size(); ++k) {
        int64_t v = op.operands[k];
        const ValueType &t = prog_.values[v];
        int64_t eb = computeSize(t.dtype);
        switch (grp.fetch[oi][k]) {
        case Fetch::Chained:
          args[k] = chunkPtr[v];
          break;
        case Fetch::Scalar:
          args[k] = st.whole[v];
          break;
        case Fetch::Aligned:
          if (grp.slot[oi][k] >= 0) {
            const uint8_t *src =
                static_cast<const uint8_t *>((*st.inputs)[p.inputIndex[v]]);
            loadStorage(t.dtype, src + start * dtypeSize(t.dtype),
                        slotPtr(grp.slot[oi][k]), n);
            args[k] = slotPtr(grp.slot[oi][k]);
          } else {
            args[k] = static_cast<const uint8_t *>(st.whole[v]) + start * eb;
          }
          break;
        case Fetch::Broadcast:
          gatherStrided(st.whole[v], slotPtr(grp.slot[oi][k]), eb, grp.shape,
                        grp.strides[oi][k], 0, start, n);
          args[k] = slotPtr(grp.slot[oi][k]);
          break;
        case Fetch::View: {
          const StridedView &view = grp.views[oi][k];
          gatherView(view, st.whole[view.base], eb, slotPtr(grp.slot[oi][k]),
                     start, n);
          args[k] = slotPtr(grp.slot[oi][k]);
          break;
        }
        }
      }
      int64_t r = op.results[0];
      const ValueType &rt = prog_.values[r];
      int64_t eb = computeSize(rt.dtype);
      void *dst = grp.resultSlot[oi] >= 0
                      ? static_cast<void *>(slotPtr(grp.resultSlot[oi]))
                      : static_cast<uint8_t *>(st.whole[r]) + start * eb;
      TFC_RETURN_IF_ERROR(runPointwiseOp(prog_, op, args, dst, start, n));
      chunkPtr[r] = dst;
      for (int o : p.outputIndices[r]) {
        uint8_t *out = static_cast<uint8_t *>(st.outStorage[o]) +
                       start * dtypeSize(rt.dtype);
        if (out != dst)
          storeStorage(rt.dtype, dst, out, n);
      }
    }
  }
  return Status::ok();
}

Status Interpreter::runGroup(size_t g, RunState &st) {
  const Plan::Group &grp = plan_->groups[g];
  if (grp.chain)
    return runPointwiseGroup(g, st);
  const HostOp &op = prog_.ops[grp.ops[0]];
  if (grp.view) {
    const ValueType &rt = prog_.values[op.results[0]];
    const StridedView &view = *plan_->views[op.results[0]];
    gatherView(view, st.whole[view.base], computeSize(rt.dtype),
               st.whole[op.results[0]], 0, rt.numel);
  } else {
    std::vector<const void *> args;
    for (int64_t v : op.operands)
      args.push_back(v < 0 ? nullptr : st.whole[v]);
    std::vector<void *> results;
    for (int64_t r : op.results)
      results.push_back(st.whole[r]);
    TFC_RETURN_IF_ERROR(runWholeOp(prog_, op, args, results));
  }
  for (int64_t r : op.results) {
    const ValueType &rt = prog_.values[r];
    for (int o : plan_->outputIndices[r])
      if (st.outStorage[o] != st.whole[r])
        storeStorage(rt.dtype, st.whole[r], st.outStorage[o], rt.numel);
  }
  return Status::ok();
}

Status Interpreter::run(const std::vector<const void *> &inputs,
                        const std::vector<void *> &outputs) {
  // Intermediates are allocated on first use; a program whose intermediates
  // do not fit in memory fails cleanly.
  try {
    return runImpl(inputs, outputs);
  } catch (const std::bad_alloc &) {
    return Status::error("host program: out of memory for its intermediate "
                         "values");
  }
}

Status Interpreter::runImpl(const std::vector<const void *> &inputs,
                            const std::vector<void *> &outputs) {
  Plan &p = *plan_;
  if (inputs.size() != prog_.inputs.size() ||
      outputs.size() != prog_.outputs.size())
    return Status::error("host program: expected " +
                         std::to_string(prog_.inputs.size()) + " inputs and " +
                         std::to_string(prog_.outputs.size()) +
                         " outputs, got " + std::to_string(inputs.size()) +
                         " and " + std::to_string(outputs.size()));
  auto bytesOf = [&](int64_t v) {
    const ValueType &t = prog_.values[v];
    return t.numel * dtypeSize(t.dtype);
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i] && bytesOf(prog_.inputs[i]) > 0)
      return Status::error("host program: input " + std::to_string(i) +
                           " is null");
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i] && bytesOf(prog_.outputs[i]) > 0)
      return Status::error("host program: output " + std::to_string(i) +
                           " is null");

  // An output overlapping an input (or another output) is staged: ops may
  // read inputs after outputs were partly written.
  auto overlaps = [](const void *a, int64_t na, const void *b, int64_t nb) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return na > 0 && nb > 0 && x < y + nb && y < x + na;
  };
  bool staged = false;
  for (size_t o = 0; o < outputs.size(); ++o) {
    int64_t no = bytesOf(prog_.outputs[o]);
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t ni = bytesOf(prog_.inputs[i]);
      bool exact = outputs[o] == inputs[i] && no == ni;
      if (!(exact && p.inPlace[o][i]))
        staged |= overlaps(outputs[o], no, inputs[i], ni);
    }
    for (size_t o2 = o + 1; o2 < outputs.size(); ++o2)
      staged |=
          overlaps(outputs[o], no, outputs[o2], bytesOf(prog_.outputs[o2]));
  }
  RunState st;
  st.inputs = &inputs;
  st.outStorage.assign(outputs.begin(), outputs.end());
  if (staged) {
    p.stage.resize(outputs.size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      p.stage[o].resize(std::max<int64_t>(1, bytesOf(prog_.outputs[o])));
      st.outStorage[o] = p.stage[o].data();
    }
  }

  // Where every value's whole compute data lives for this run: inputs and
  // statics in place, outputs of native storage in the caller's memory, the
  // intermediates at their planned offsets in the thread's scratch.
  st.whole.assign(prog_.values.size(), nullptr);
  requireFitsInMemory(p.scratchBytes);
  std::vector<uint8_t> &pool = threadScratch();
  if (pool.size() < p.scratchBytes + kScratchAlign)
    pool.resize(p.scratchBytes + kScratchAlign);
  uint8_t *base = pool.data();
  base += (kScratchAlign - reinterpret_cast<uintptr_t>(base) % kScratchAlign) %
          kScratchAlign;
  st.slots = base;
  for (size_t v = 0; v < prog_.values.size(); ++v) {
    const ValueType &t = prog_.values[v];
    if (p.isStatic[v]) {
      st.whole[v] = p.staticData[v].data();
    } else if (p.inputIndex[v] >= 0 && nativeStorage(t.dtype)) {
      st.whole[v] = const_cast<void *>(inputs[p.inputIndex[v]]);
    } else if (!p.outputIndices[v].empty() && nativeStorage(t.dtype)) {
      // Produced in place (chunk by chunk, or whole).
      st.whole[v] = st.outStorage[p.outputIndices[v][0]];
    } else if (p.wholeOffset[v] != ~uint64_t(0)) {
      st.whole[v] = base + p.wholeOffset[v];
      if (p.inputIndex[v] >= 0)
        loadStorage(t.dtype, inputs[p.inputIndex[v]], st.whole[v], t.numel);
    }
  }
  for (size_t g = 0; g < p.groups.size(); ++g)
    TFC_RETURN_IF_ERROR(runGroup(g, st));

  // Outputs that are inputs or statics are copies.
  for (size_t o = 0; o < outputs.size(); ++o) {
    int64_t v = prog_.outputs[o];
    const ValueType &t = prog_.values[v];
    if (p.inputIndex[v] >= 0) {
      if (st.outStorage[o] != inputs[p.inputIndex[v]])
        std::memmove(st.outStorage[o], inputs[p.inputIndex[v]], bytesOf(v));
    } else if (p.isStatic[v]) {
      storeStorage(t.dtype, st.whole[v], st.outStorage[o], t.numel);
    }
  }
  if (staged)
    for (size_t o = 0; o < outputs.size(); ++o)
      std::memcpy(outputs[o], p.stage[o].data(), bytesOf(prog_.outputs[o]));
  return Status::ok();
}

} // namespace tfc::rt::host
