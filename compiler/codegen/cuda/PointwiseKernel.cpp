//===- PointwiseKernel.cpp - pointwise and gather kernels -----------------===//
//
// One thread computes output element `i` (grid-stride). With a vector width
// W (16 bytes of the widest element type), the kernel first tries a path
// where each thread handles W consecutive elements: every input that has the
// output's element count and is read at exactly `i` (contiguous, same
// linear layout) comes from one aligned W-wide load, every output goes out
// as one W-wide store, and other reads (broadcast operands, tables) stay
// scalar. Whether the pointers are 16-byte aligned is only known at launch,
// so the source tests it and falls back to the scalar loop.
//
// Outputs of different sizes (a fused kernel writing a [B, T, C] value and
// a [C] one) are grouped by element count; each group gets its own
// grid-stride loop, one after the other, as multi-tensor kernels do. Values
// that do not depend on the loop index (scalars, hoisted reads) are shared
// by the loops.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "llvm/ADT/SetVector.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

namespace {
/// One loop of the kernel: the outputs with `numElements` elements.
struct PointwisePlan {
  int64_t numElements = 0;
  int64_t width = 1; ///< vector width in elements (1: scalar only)
  SmallVector<unsigned> outputs; ///< indices into KernelInfo::outputs
};

/// Emits the loop(s) over output elements. In vector mode, block arguments
/// read at `i` are recorded in `vectorArgs` (the first, discovery pass) or
/// read from the `va<N>` registers loaded at the top of the loop.
LogicalResult emitLoop(const KernelInfo &info, KernelWriter &w,
                       const PointwisePlan &plan, bool vector,
                       llvm::SetVector<unsigned> &vectorArgs,
                       bool discovering) {
  const std::string &idx = info.indexType;
  ValueEmitter ve(w, *info.body, idx);
  int64_t n = plan.numElements, width = plan.width;
  std::string stride = fmt::format("({})gridDim.x * blockDim.x", idx);
  std::string start =
      fmt::format("({})blockIdx.x * blockDim.x + threadIdx.x", idx);
  int iVar;
  if (vector) {
    w.push(fmt::format("for ({0} v = {1}; v < {2}; v += {3}) {{", idx, start,
                       n / width, stride),
           "}");
    if (!discovering) {
      for (unsigned k : vectorArgs) {
        BlockArgument arg = info.body->getArgument(k);
        std::string st = storageType(elementTypeOf(arg));
        w.line(fmt::format("const tfc_vec<{0}, {1}> va{2} = reinterpret_cast<"
                           "const tfc_vec<{0}, {1}>*>(in{2})[v];",
                           st, width, k));
      }
      for (unsigned k : plan.outputs)
        w.line(fmt::format("tfc_vec<{}, {}> vo{};",
                           storageType(elementTypeOf(info.outputs[k])), width,
                           k));
    }
    w.push(
        fmt::format("#pragma unroll\nfor (int l = 0; l < {}; ++l) {{", width),
        "}");
    w.line(
        fmt::format("[[maybe_unused]] const {} i = v * {} + l;", idx, width));
    int laneLevel = w.depth();
    ve.loadHook = [&,
                   laneLevel](BlockArgument arg,
                              const IndexExpr &linear) -> std::optional<CExpr> {
      if (numElements(shapeOf(arg)) != n || linear.render() != "i")
        return std::nullopt;
      vectorArgs.insert(arg.getArgNumber());
      return CExpr{loadConversion(elementTypeOf(arg),
                                  fmt::format("va{}.v[l]", arg.getArgNumber())),
                   laneLevel};
    };
  } else {
    w.push(fmt::format("for ({0} i = {1}; i < {2}; i += {3}) {{", idx, start, n,
                       stride),
           "}");
  }
  iVar = w.addVar("i", n, w.depth());
  IndexExpr i = IndexExpr::variable(w.vars(), iVar);

  for (unsigned k : plan.outputs) {
    Value out = info.outputs[k];
    FailureOr<CExpr> value = ve.emit(out, ve.coordsOf(i, shapeOf(out)));
    if (failed(value))
      return failure();
    if (vector)
      w.line(fmt::format("vo{}.v[l] = {};", k,
                         storeConversion(elementTypeOf(out), value->code)));
    else
      w.line(storeOutput(info, k, "i", value->code));
  }
  if (vector) {
    w.pop();
    if (!discovering)
      for (unsigned k : plan.outputs)
        w.line(fmt::format("reinterpret_cast<tfc_vec<{0}, {1}>*>(out{2})[v] = "
                           "vo{2};",
                           storageType(elementTypeOf(info.outputs[k])), width,
                           k));
  }
  w.pop();
  return success();
}
} // namespace

/// Emits the loop(s) of one output group: a vector loop behind a run-time
/// alignment test with the scalar loop as fallback, or the scalar loop.
static LogicalResult emitGroup(const KernelInfo &info, KernelWriter &w,
                               const PointwisePlan &plan, unsigned group) {
  llvm::SetVector<unsigned> vectorArgs;
  if (plan.width == 1)
    return emitLoop(info, w, plan, /*vector=*/false, vectorArgs,
                    /*discovering=*/false);
  // Discovery pass in a scratch writer: which inputs are read at `i`.
  KernelWriter scratch;
  if (failed(emitLoop(info, scratch, plan, /*vector=*/true, vectorArgs,
                      /*discovering=*/true)))
    return failure();
  std::string aligned;
  for (unsigned k : vectorArgs)
    aligned += fmt::format("reinterpret_cast<unsigned long long>(in{}) | ", k);
  for (auto [n, k] : llvm::enumerate(plan.outputs))
    aligned += fmt::format("reinterpret_cast<unsigned long long>(out{}){}", k,
                           n + 1 < plan.outputs.size() ? " | " : "");
  std::string flag =
      group == 0 ? std::string("tfc_aligned") : fmt::format("tfc_aligned{}", group);
  w.line("const bool " + flag + " = ((" + aligned + ") & 15) == 0;");
  w.push("if (" + flag + ") {", "} else {");
  if (failed(emitLoop(info, w, plan, /*vector=*/true, vectorArgs,
                      /*discovering=*/false)))
    return failure();
  w.pop();
  w.push("", "}");
  if (failed(emitLoop(info, w, plan, /*vector=*/false, vectorArgs,
                      /*discovering=*/false)))
    return failure();
  w.pop();
  return success();
}

FailureOr<CudaKernel> mlir::tfc::cuda::emitPointwiseKernel(KernelInfo &info) {
  // One loop per distinct output size, in order of first appearance.
  SmallVector<PointwisePlan> plans;
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    int64_t n = numElements(shapeOf(out));
    auto it = llvm::find_if(
        plans, [&](const PointwisePlan &p) { return p.numElements == n; });
    if (it == plans.end()) {
      plans.emplace_back();
      it = std::prev(plans.end());
      it->numElements = n;
    }
    it->outputs.push_back(k);
  }

  // Vector width: the schedule's vector bytes of the widest type among the
  // group's outputs and the inputs that can be vector-loaded (those with
  // its element count).
  for (PointwisePlan &plan : plans) {
    int64_t widest = 1;
    for (unsigned k : plan.outputs)
      widest = std::max(widest, storageBytes(elementTypeOf(info.outputs[k])));
    for (BlockArgument arg : info.body->getArguments())
      if (numElements(shapeOf(arg)) == plan.numElements)
        widest = std::max(widest, storageBytes(elementTypeOf(arg)));
    int64_t width = info.schedule.getVectorBytes() / widest;
    if (width > 1 && plan.numElements % width == 0 &&
        plan.numElements >= width)
      plan.width = width;
  }

  KernelWriter w;
  for (auto [group, plan] : llvm::enumerate(plans))
    if (failed(emitGroup(info, w, plan, group)))
      return failure();

  CudaKernel kernel;
  int64_t work = 1;
  for (const PointwisePlan &plan : plans)
    work = std::max(work, plan.width > 1 ? plan.numElements / plan.width
                                         : plan.numElements);
  int64_t threads = info.schedule.getThreads();
  kernel.grid = {std::clamp<int64_t>(ceilDivide(work, threads), 1,
                                     maxGridBlocks(info.schedule)),
                 1, 1};
  kernel.block = {threads, 1, 1};
  std::string loops;
  for (const PointwisePlan &plan : plans)
    loops += fmt::format(
        "{}{} elements, {}", loops.empty() ? "" : "; ", plan.numElements,
        plan.width > 1 ? fmt::format("vector width {} when aligned", plan.width)
                       : std::string("scalar"));
  std::string summary = fmt::format("{} over {}", stringifyKernelKind(info.kind),
                                    loops);
  kernel.source = assembleSource(info, w, threads, summary);
  return kernel;
}
