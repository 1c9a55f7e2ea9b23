//===- BlockQuantizedKernel.cpp - block-wise quantized optimizer kernels --===//
//
// tfc.adamw8bit: one thread block per quantization block, one thread per
// element (blockDim = block_size). Each thread decodes its two moments
// (map[code] * absmax, the maps being __constant__ tables printed from
// common/QuantMap.h), runs the shared AdamW element update
// (emitAdamElement, the multi_tensor kernels' formula) and writes the new
// parameter; a block all-reduce (warp shuffles, then one value per warp in
// shared memory) gives the new absmax of each moment; then every thread
// encodes its moments with tfc_quantize, the binary search quant::encode
// runs on the host. Threads past the end of the tensor take part in the
// reductions with 0, which leaves a max of absolute values unchanged.
//
// The absmax is read before the first barrier of the reduction and written
// after it, so updating the state in place is safe.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcOps.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

FailureOr<CudaKernel>
mlir::tfc::cuda::emitBlockQuantizedKernel(KernelInfo &info) {
  auto op = findKernelOp<AdamW8bitOp>(info);
  if (!op)
    return emitError(info.terminator->getLoc())
           << "codegen: a block_quantized kernel needs a tfc.adamw8bit op";
  // The block loop computes all five results of the op at once, so every
  // output must be one of them (pointwise ops may only feed its operands).
  SmallVector<unsigned> resultOf;
  for (Value out : info.outputs) {
    auto result = dyn_cast<OpResult>(out);
    if (!result || result.getOwner() != op)
      return op.emitError() << "codegen: every output of a block_quantized "
                               "kernel must be a result of its adamw8bit op";
    resultOf.push_back(result.getResultNumber());
  }

  info.needs.reductions = true;
  info.needs.quantMaps = true;
  KernelWriter w;
  ValueEmitter ve(w, *info.body, info.indexType);
  ve.anchorHook = [&](OpResult r, ArrayRef<IndexExpr>) -> FailureOr<CExpr> {
    return r.getOwner()->emitError()
           << "codegen: a block_quantized kernel cannot read its own "
              "update's results";
  };
  const std::string &idx = info.indexType;
  int64_t blockSize = op.getBlockSize();
  ArrayRef<int64_t> shape = shapeOf(op.getParam());
  int64_t n = numElements(shape);
  int64_t blocks = std::max<int64_t>(1, ceilDivide(n, blockSize));

  AdamParams params{true,
                    op.getBeta1().convertToDouble(),
                    op.getBeta2().convertToDouble(),
                    op.getEps().convertToDouble(),
                    op.getWeightDecay().convertToDouble(),
                    Float32Type::get(op.getContext())};
  FailureOr<AdamScalars> scalars =
      emitAdamScalars(ve, params, op.getLr(), op.getStep());
  if (failed(scalars))
    return failure();

  // The block's scales (in bounds for every thread of the grid).
  w.line(fmt::format("const {0} blk = ({0})blockIdx.x;", idx));
  int blkVar = w.addVar("blk", blocks, 0);
  SmallVector<IndexExpr> blkCoords{IndexExpr::variable(w.vars(), blkVar)};
  FailureOr<CExpr> absM = ve.emit(op.getExpAvgAbsmax(), blkCoords);
  FailureOr<CExpr> absV = ve.emit(op.getExpAvgSqAbsmax(), blkCoords);
  if (failed(absM) || failed(absV))
    return failure();
  w.line(fmt::format("const {0} i0 = blk * {1} + ({0})threadIdx.x;", idx,
                     blockSize));
  w.line("float qm = 0.0f, qv = 0.0f;");

  // Decode, update and store the parameter: only threads inside the tensor
  // read anything indexed by the element.
  w.push(fmt::format("if (i0 < {}) {{", n), "}");
  w.line(fmt::format("const {} i = i0;", idx));
  int var = w.addVar("i", n, w.depth());
  SmallVector<IndexExpr> coords =
      ve.coordsOf(IndexExpr::variable(w.vars(), var), shape);
  FailureOr<CExpr> p = ve.emit(op.getParam(), coords);
  FailureOr<CExpr> g = ve.emit(op.getGrad(), coords);
  FailureOr<CExpr> codeM = ve.emit(op.getExpAvg(), coords);
  FailureOr<CExpr> codeV = ve.emit(op.getExpAvgSq(), coords);
  if (failed(p) || failed(g) || failed(codeM) || failed(codeV))
    return failure();
  int el = w.depth();
  CExpr m = w.declare(
      el, "float",
      fmt::format("tfc_qmap_signed[{}] * {}", codeM->code, absM->code));
  CExpr v = w.declare(
      el, "float",
      fmt::format("tfc_qmap_unsigned[{}] * {}", codeV->code, absV->code));
  AdamElement e = emitAdamElement(w, params, *scalars, *p, *g, m, v);
  for (auto [k, r] : llvm::enumerate(resultOf))
    if (r == 0)
      w.line(storeOutput(info, k, "i", e.param.code));
  w.line(fmt::format("qm = {};", e.expAvg.code));
  w.line(fmt::format("qv = {};", e.expAvgSq.code));
  w.pop();

  // New scales, then the codes.
  w.line("__shared__ float shm[32];");
  w.line("const float am = tfc_block_allreduce(fabsf(qm), tfc_absmax_op(), "
         "shm);");
  w.line("const float av = tfc_block_allreduce(fabsf(qv), tfc_absmax_op(), "
         "shm);");
  w.push("if (threadIdx.x == 0) {", "}");
  for (auto [k, r] : llvm::enumerate(resultOf))
    if (r == 2 || r == 4)
      w.line(storeOutput(info, k, "blk", r == 2 ? "am" : "av"));
  w.pop();
  w.push(fmt::format("if (i0 < {}) {{", n), "}");
  for (auto [k, r] : llvm::enumerate(resultOf)) {
    if (r == 1)
      w.line(storeOutput(info, k, "i0",
                         "tfc_quantize(tfc_qmap_signed, am > 0.0f ? qm / am "
                         ": 0.0f)"));
    if (r == 3)
      w.line(storeOutput(info, k, "i0",
                         "tfc_quantize(tfc_qmap_unsigned, av > 0.0f ? qv / "
                         "av : 0.0f)"));
  }
  w.pop();

  CudaKernel kernel;
  kernel.grid = {blocks, 1, 1};
  kernel.block = {blockSize, 1, 1};
  std::string summary =
      fmt::format("block_quantized adamw8bit over {} elements, {} blocks of {}",
                  n, blocks, blockSize);
  kernel.source = assembleSource(info, w, blockSize, summary);
  return kernel;
}
