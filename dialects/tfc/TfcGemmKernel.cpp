//===- TfcGemmKernel.cpp - what a gemm kernel may hold --------------------===//

#include "dialects/tfc/TfcGemmKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
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

Value GemmKernelOps::activationInput() {
  return biasAdd ? biasAdd.getResult() : matmul.getResult();
}

Value GemmKernelOps::result() {
  if (geluGrad)
    return geluGrad.getResult();
  return activation ? activation->getResult(0) : activationInput();
}

FailureOr<GemmKernelOps>
mlir::tfc::matchGemmKernel(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                           function_ref<InFlightDiagnostic()> emitError) {
  auto fail = [&](const Twine &message,
                  Operation *culprit = nullptr) -> FailureOr<GemmKernelOps> {
    if (emitError) {
      InFlightDiagnostic diag = emitError();
      diag << "a gemm kernel holds one tfc.matmul and optionally the "
              "epilogue cuBLASLt fuses (a row bias add, then ReLU or GELU's "
              "tanh form): "
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

  // The epilogue: an optional bias add, then an optional activation.
  ArrayRef<Operation *> epilogue = ops.drop_front();
  Value product = kernel.matmul.getResult();
  auto productType = cast<RankedTensorType>(product.getType());
  int64_t n = productType.getShape().back();
  if (!epilogue.empty()) {
    Type element = productType.getElementType();
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return fail("cuBLASLt fuses epilogues of f32, f16 and bf16 GEMMs "
                  "only",
                  epilogue.front());
    if (!isSingleGemm(kernel.matmul))
      return fail("an epilogue needs a single GEMM (batch 1)", kernel.matmul);
  }
  if (!epilogue.empty() && isa<GeluGradOp>(epilogue.front())) {
    // The backward epilogue: dgelu of the product, then its column sum.
    kernel.geluGrad = cast<GeluGradOp>(epilogue.front());
    GeluGradOp geluGrad = kernel.geluGrad;
    if (geluGrad.getDy() != product || inside(geluGrad.getX()) ||
        geluGrad.getApproximate() != GeluApproximation::tanh)
      return fail("a tfc.gelu_grad epilogue takes the product as dy and the "
                  "stored GELU input (tanh form) from outside",
                  geluGrad);
    if (n % 8 != 0)
      return fail("reading the GELU input (cuBLASLt's aux matrix) needs n "
                  "to be a multiple of 8",
                  geluGrad);
    if (epilogue.size() > 1) {
      auto sum = dyn_cast<ReduceSumOp>(epilogue[1]);
      SmallVector<int64_t> rows =
          llvm::to_vector(llvm::seq<int64_t>(0, productType.getRank() - 1));
      if (!sum || sum.getX() != geluGrad.getResult() || sum.getKeepdim() ||
          sum.getNormalizedDims() != rows)
        return fail("only a tfc.reduce_sum of the GELU gradient over every "
                    "dim but the last (the bias gradient) may follow it",
                    epilogue[1]);
      kernel.biasGrad = sum;
    }
    if (epilogue.size() > 2)
      return fail("'" + epilogue[2]->getName().getStringRef() +
                      "' follows a full epilogue",
                  epilogue[2]);
    if (!product.hasOneUse())
      return fail("'tfc.matmul' is read by more than the next epilogue op",
                  kernel.matmul);
    SmallVector<Value> expected{geluGrad.getResult()};
    if (kernel.biasGrad)
      expected.push_back(kernel.biasGrad.getResult());
    if (outputs.size() != expected.size() ||
        !llvm::all_of(expected, [&](Value v) {
          return llvm::is_contained(outputs, v);
        }))
      return fail("a backward epilogue yields the GELU gradient and, when "
                  "it sums it, the bias gradient");
    return kernel;
  }
  if (!epilogue.empty()) {
    if (auto add = dyn_cast<AddOp>(epilogue.front())) {
      kernel.biasAdd = add;
      Value lhs = add.getLhs(), rhs = add.getRhs();
      kernel.bias = lhs == product ? rhs : lhs;
      auto biasType = cast<RankedTensorType>(kernel.bias.getType());
      bool isRow = biasType.getRank() >= 1 &&
                   biasType.getShape().back() == n &&
                   biasType.getNumElements() == n;
      if ((lhs != product && rhs != product) || inside(kernel.bias) ||
          !isRow || add.getType() != productType)
        return fail("the tfc.add must add a row of n = " + Twine(n) +
                        " elements from outside the kernel to the product",
                    add);
      epilogue = epilogue.drop_front();
    }
  }
  if (!epilogue.empty()) {
    Operation *op = epilogue.front();
    auto gelu = dyn_cast<GeluOp>(op);
    bool isGelu = gelu && gelu.getApproximate() == GeluApproximation::tanh;
    if (!isGelu && !isa<ReluOp>(op))
      return fail("'" + op->getName().getStringRef() +
                      "' is not an epilogue op (a row bias add, then "
                      "tfc.relu or tfc.gelu approximate tanh: cuBLASLt's "
                      "GELU is the tanh form)",
                  op);
    if (op->getOperand(0) != kernel.activationInput())
      return fail("the activation must read the " +
                      Twine(kernel.biasAdd ? "bias add" : "product"),
                  op);
    kernel.activation = op;
    kernel.activationKind =
        isGelu ? GemmActivation::gelu : GemmActivation::relu;
    epilogue = epilogue.drop_front();
  }
  if (!epilogue.empty())
    return fail("'" + epilogue.front()->getName().getStringRef() +
                    "' follows a full epilogue",
                epilogue.front());

  // Each op feeds only the next one (a GELU's input may also be yielded
  // next to its result); the last one is the stored result.
  Value result = kernel.result();
  for (auto [index, op] : llvm::enumerate(ops)) {
    Value value = op->getResult(0);
    if (value == result)
      break;
    for (Operation *user : value.getUsers()) {
      bool isNext = user == ops[index + 1];
      bool isStoredGeluInput =
          kernel.activationKind == GemmActivation::gelu &&
          value == kernel.activationInput() &&
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
    if (kernel.activationKind != GemmActivation::gelu ||
        output != kernel.activationInput())
      return fail("it yields only its result and a GELU's input");
    kernel.storesActivationInput = true;
  }
  if (kernel.storesActivationInput && n % 8 != 0)
    return fail("storing the GELU input (cuBLASLt's aux matrix) needs n to "
                "be a multiple of 8",
                kernel.activation);
  return kernel;
}
