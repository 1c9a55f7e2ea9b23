//===- TfcGemmKernel.cpp - what a gemm kernel may hold --------------------===//

#include "dialects/tfc/TfcGemmKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::tfc;

bool mlir::tfc::isSingleGemm(MatmulOp matmul) {
  auto batchOf = [](Value value) {
    ArrayRef<int64_t> shape = cast<ShapedType>(value.getType()).getShape();
    return ShapedType::getNumElements(shape.drop_back(2));
  };
  return batchOf(matmul.getResult()) == 1 ||
         (batchOf(matmul.getB()) == 1 && !matmul.getTransposeA());
}

Value GemmKernelOps::result() {
  if (gelu)
    return gelu.getResult();
  if (biasAdd)
    return biasAdd.getResult();
  return matmul.getResult();
}

FailureOr<GemmKernelOps>
mlir::tfc::matchGemmKernel(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                           function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&](const Twine &message,
                  Operation *culprit = nullptr) -> FailureOr<GemmKernelOps> {
    if (emitError) {
      InFlightDiagnostic diag = emitError();
      diag << "a gemm kernel holds one tfc.matmul and optionally the "
              "epilogue cuBLASLt fuses (a row bias add, then GELU's tanh "
              "form): "
           << message;
      if (culprit)
        diag.attachNote(culprit->getLoc()) << "'" << culprit->getName()
                                           << "' here";
    }
    return failure();
  };
  auto inside = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return def && llvm::is_contained(ops, def);
  };

  GemmKernelOps kernel;
  kernel.matmul = ops.empty() ? MatmulOp() : dyn_cast<MatmulOp>(ops.front());
  if (!kernel.matmul)
    return fail("its first op must be the tfc.matmul",
                ops.empty() ? nullptr : ops.front());
  if (inside(kernel.matmul.getA()) || inside(kernel.matmul.getB()))
    return fail("GEMM prologues are not supported", kernel.matmul);

  // The epilogue: at most a bias add, then a GELU.
  ArrayRef<Operation *> epilogue = ops.drop_front();
  if (epilogue.size() > 2)
    return fail("'" + epilogue[2]->getName().getStringRef() +
                    "' follows a full epilogue",
                epilogue[2]);
  Value product = kernel.matmul.getResult();
  if (!epilogue.empty()) {
    kernel.biasAdd = dyn_cast<AddOp>(epilogue[0]);
    if (!kernel.biasAdd)
      return fail("'" + epilogue[0]->getName().getStringRef() +
                      "' is not a bias add",
                  epilogue[0]);
    Value lhs = kernel.biasAdd.getLhs(), rhs = kernel.biasAdd.getRhs();
    kernel.bias = lhs == product ? rhs : lhs;
    auto productType = cast<RankedTensorType>(product.getType());
    auto biasType = cast<RankedTensorType>(kernel.bias.getType());
    int64_t n = productType.getShape().back();
    bool isRow = biasType.getRank() >= 1 && biasType.getShape().back() == n &&
                 biasType.getNumElements() == n;
    if ((lhs != product && rhs != product) || inside(kernel.bias) || !isRow ||
        kernel.biasAdd.getType() != productType)
      return fail("the tfc.add must add a row of n = " + Twine(n) +
                      " elements from outside the kernel to the product",
                  kernel.biasAdd);
    Type element = productType.getElementType();
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return fail("cuBLASLt fuses epilogues of f32, f16 and bf16 GEMMs "
                  "only",
                  kernel.biasAdd);
    if (!isSingleGemm(kernel.matmul))
      return fail("an epilogue needs a single GEMM (batch 1)", kernel.matmul);
  }
  if (epilogue.size() == 2) {
    kernel.gelu = dyn_cast<GeluOp>(epilogue[1]);
    if (!kernel.gelu || kernel.gelu.getX() != kernel.biasAdd.getResult() ||
        kernel.gelu.getApproximate() != GeluApproximation::tanh)
      return fail("only tfc.gelu approximate tanh of the bias add may follow "
                  "it (cuBLASLt's GELU is the tanh form)",
                  epilogue[1]);
  }

  // Each op feeds only the next one (the bias add may also be yielded next
  // to GELU's result); the last one is the stored result.
  Value result = kernel.result();
  for (auto [index, op] : llvm::enumerate(ops)) {
    Value value = op->getResult(0);
    if (value == result)
      break;
    for (Operation *user : value.getUsers()) {
      bool isNext = user == ops[index + 1];
      bool isStoredGeluInput = op == kernel.biasAdd.getOperation() &&
                               user->hasTrait<OpTrait::IsTerminator>();
      if (!isNext && !isStoredGeluInput)
        return fail("'" + op->getName().getStringRef() +
                        "' is read by more than the next epilogue op",
                    op);
    }
  }
  if (!llvm::is_contained(outputs, result))
    return fail("the kernel must yield its last op's result");
  for (Value output : outputs) {
    if (output == result)
      continue;
    if (!kernel.gelu || output != kernel.biasAdd.getResult())
      return fail("it yields only its result and the GELU input");
    kernel.storesGeluInput = true;
  }
  if (kernel.storesGeluInput &&
      cast<ShapedType>(result.getType()).getShape().back() % 8 != 0)
    return fail("storing the GELU input (cuBLASLt's aux matrix) needs n to "
                "be a multiple of 8",
                kernel.gelu);
  return kernel;
}
