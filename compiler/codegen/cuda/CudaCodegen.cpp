//===- CudaCodegen.cpp - CUDA C++ source of one tfc kernel ----------------===//
//
// Checks the body once (kernel rules, types, name), collects what the source
// will need, and hands it to the emitter of its kind. Gather kernels use the
// pointwise emitter: an embedding is a pointwise mapping whose table index
// is data.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

std::string mlir::tfc::cuda::kernelSignature(const KernelInfo &info,
                                             int64_t threads) {
  std::string params;
  auto add = [&](const std::string &param) {
    params += (params.empty() ? "" : ", ") + param;
  };
  // An output written over an input (an update in place) aliases it, so
  // neither pointer of the pair may promise exclusive access.
  auto aliased = [&](unsigned input) {
    return llvm::is_contained(info.inPlace, static_cast<int64_t>(input));
  };
  auto qualifier = [](bool alias) { return alias ? "" : " __restrict__"; };
  for (BlockArgument arg : info.body->getArguments())
    add(fmt::format("const {}*{} in{}", storageType(elementTypeOf(arg)),
                    qualifier(aliased(arg.getArgNumber())),
                    arg.getArgNumber()));
  for (auto [k, out] : llvm::enumerate(info.outputs))
    add(fmt::format("{}*{} out{}", storageType(elementTypeOf(out)),
                    qualifier(k < info.inPlace.size() && info.inPlace[k] >= 0),
                    k));
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}({})", threads,
      info.name, params);
}

void mlir::tfc::cuda::emitGridGuard(KernelWriter &w, int64_t grid) {
  w.line(fmt::format("if (gridDim.x != {}) __trap(); // partials are sized "
                     "for the generated grid",
                     grid));
}

void mlir::tfc::cuda::emitLastBlockElection(KernelWriter &w) {
  w.global("__device__ unsigned int tfc_blocks_done;");
  w.line("__shared__ bool tfc_last_block;");
  w.line("__threadfence();");
  w.line("__syncthreads();");
  w.line("if (threadIdx.x == 0) tfc_last_block = atomicAdd(&tfc_blocks_done, "
         "1u) == gridDim.x - 1;");
  w.line("__syncthreads();");
}

std::string mlir::tfc::cuda::storeOutput(const KernelInfo &info, unsigned k,
                                         StringRef index, StringRef value) {
  Type et = elementTypeOf(info.outputs[k]);
  return fmt::format("out{}[{}] = {};", k, index.str(),
                     storeConversion(et, value));
}

std::string mlir::tfc::cuda::assembleSource(const KernelInfo &info,
                                            const KernelWriter &writer,
                                            int64_t threads,
                                            StringRef summary) {
  std::string out =
      fmt::format("// tfc kernel {}: {}\n", info.name, summary.str());
  out += deviceLibrary(info.needs);
  out += writer.globals();
  out += kernelSignature(info, threads) + " {\n";
  out += writer.body();
  out += "}\n";
  return out;
}

/// Where diagnostics about the body as a whole go.
static Location bodyLoc(Block &body) {
  if (Operation *parent = body.getParentOp())
    return parent->getLoc();
  if (!body.empty())
    return body.front().getLoc();
  return UnknownLoc::get(body.getParent() ? body.getParent()->getContext()
                                          : nullptr);
}

static bool isCIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Checks a value's type is one codegen handles: a static ranked tensor of a
/// tfc element type.
static LogicalResult checkType(Value value, Location loc) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !isSupportedElementType(type.getElementType()))
    return emitError(loc) << "codegen: unsupported type " << value.getType()
                          << " (static ranked tensors of f16, bf16, f32, "
                             "f64, i1, i32, i64, ui8 only)";
  return success();
}

FailureOr<CudaKernel> mlir::tfc::emitCudaKernel(Block &body, KernelKind kind,
                                                StringRef name) {
  Location loc = bodyLoc(body);
  if (!isCIdentifier(name))
    return emitError(loc) << "codegen: kernel name '" << name
                          << "' is not a C identifier";
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>())
    return emitError(loc) << "codegen: kernel body has no terminator";
  Operation *terminator = &body.back();
  if (terminator->getNumOperands() == 0)
    return emitError(terminator->getLoc())
           << "codegen: a kernel needs at least one output";

  if (failed(verifyKernelBody(body, kind,
                              [&]() { return emitError(loc) << "codegen: "; })))
    return failure();

  KernelInfo info;
  info.body = &body;
  info.terminator = terminator;
  info.kind = kind;
  info.name = name.str();
  info.outputs.assign(terminator->operand_begin(), terminator->operand_end());
  // Read by name, as findKernels matches tfcrt.kernel: codegen does not
  // depend on the exec dialect's C++ API.
  Operation *parent = body.getParentOp();
  if (parent)
    if (auto inPlace = parent->getAttrOfType<DenseI64ArrayAttr>("in_place"))
      info.inPlace.assign(inPlace.asArrayRef().begin(),
                          inPlace.asArrayRef().end());
  // The launch schedule: the kernel's own (--tfc-schedule-kernels), else
  // the default target's choice.
  if (parent)
    info.schedule = parent->getAttrOfType<KernelScheduleAttr>("schedule");
  if (info.schedule && info.schedule.getTarget() == KernelTarget::host)
    return emitError(loc) << "codegen: kernel '" << name
                          << "' is scheduled for the host (target = host); "
                             "no CUDA source is generated for it";
  if (!info.schedule)
    info.schedule = chooseKernelSchedule(loc.getContext(), kind, body,
                                         kDefaultKernelTarget);
  if (info.schedule &&
      failed(verifyKernelSchedule(kind, body, info.schedule, [&]() {
        return emitError(loc) << "codegen: ";
      })))
    return failure();

  // Types, 16-bit needs and the index width, from every value in the body.
  int64_t largest = 0;
  auto visit = [&](Value v, Location at) -> LogicalResult {
    if (failed(checkType(v, at)))
      return failure();
    auto type = cast<RankedTensorType>(v.getType());
    Type et = type.getElementType();
    info.needs.f16 |= et.isF16();
    info.needs.bf16 |= et.isBF16();
    largest = std::max(largest, type.getNumElements());
    return success();
  };
  for (BlockArgument arg : body.getArguments())
    if (failed(visit(arg, arg.getLoc())))
      return failure();
  for (Operation &op : body) {
    for (Value result : op.getResults())
      if (failed(visit(result, op.getLoc())))
        return failure();
    // Ops whose element formula lives in common/ScalarOps.h.
    if (auto dropout = dyn_cast<DropoutOp>(op))
      info.needs.scalarOps |= !dropout.getP().isZero();
    info.needs.scalarOps |= isa<GeluOp, GeluGradOp, SiluOp, SiluGradOp,
                                RandomOp, ShiftLeftOp, ShiftRightOp>(op);
  }
  if (kind == KernelKind::row_reduction ||
      kind == KernelKind::column_reduction) {
    for (Operation &op : body.without_terminator())
      for (Value operand : op.getOperands())
        if (cast<RankedTensorType>(operand.getType()).getNumElements() == 0)
          return op.emitError()
                 << "codegen: reductions over empty tensors are not "
                    "supported";
  }
  if (largest >= (int64_t(1) << 31) - 4096)
    info.indexType = "long long";

  FailureOr<CudaKernel> kernel = failure();
  switch (kind) {
  case KernelKind::pointwise:
  case KernelKind::gather:
    kernel = emitPointwiseKernel(info);
    break;
  case KernelKind::row_reduction:
    info.needs.reductions = true;
    kernel = emitRowReductionKernel(info);
    break;
  case KernelKind::column_reduction:
    kernel = emitColumnReductionKernel(info);
    break;
  case KernelKind::multi_tensor:
    kernel = emitMultiTensorKernel(info);
    break;
  case KernelKind::block_quantized:
    kernel = emitBlockQuantizedKernel(info);
    break;
  case KernelKind::scatter:
    kernel = emitScatterKernel(info);
    break;
  case KernelKind::sort:
    kernel = emitSortKernel(info);
    break;
  case KernelKind::gemm:
    return emitError(loc) << "codegen: gemm kernels run on cuBLASLt "
                             "(tfcrt.gemm); there is no CUDA source to emit";
  }
  if (failed(kernel))
    return failure();
  kernel->name = info.name;
  kernel->kind = kind;
  return kernel;
}

SmallVector<KernelSite> mlir::tfc::findKernels(Operation *root) {
  SmallVector<KernelSite> sites;
  unsigned anonymous = 0;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto fusion = dyn_cast<FusionOp>(op)) {
      std::string name;
      if (auto attr = op->getAttrOfType<StringAttr>("kernel_name"))
        name = attr.str();
      else
        name = "fusion" + std::to_string(anonymous++);
      sites.push_back({op, &fusion.getBodyBlock(), fusion.getKind(), name});
      return WalkResult::skip();
    }
    if (op->getName().getStringRef() == "tfcrt.kernel" &&
        op->getNumRegions() == 1 && !op->getRegion(0).empty()) {
      auto kind = op->getAttrOfType<KernelKindAttr>("kind");
      StringAttr name = SymbolTable::getSymbolName(op);
      if (kind && name)
        sites.push_back(
            {op, &op->getRegion(0).front(), kind.getValue(), name.str()});
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return sites;
}
