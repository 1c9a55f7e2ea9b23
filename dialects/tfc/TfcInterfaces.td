//===- TfcInterfaces.td - tfc op interfaces ------------------------------===//
//
// Interfaces shared by tfc ops. The kernel-role interface tells fusion (and
// the tfc.fusion verifier) which kernel kind an op can live in. The
// differentiation interface gives --tfc-autodiff each op's vector-Jacobian
// product.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_INTERFACES_TD
#define TFC_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tfc_KernelRoleOpInterface : OpInterface<"KernelRoleOpInterface"> {
  let cppNamespace = "::mlir::tfc";
  let description = [{
    Classifies an op by the kernel it needs: pointwise (each output element
    is computed from input elements at index-computable positions), row or
    column reduction, gather, gemm, or composite (an op that lowering
    decomposes before regions are formed). A `tfc.fusion` region of kind K
    accepts pointwise ops plus the ops whose role is K (see
    TfcKernelRules.cpp for the exact rules).
  }];
  let methods = [
    InterfaceMethod<"The role of this op in a kernel.",
      "::mlir::tfc::KernelRole", "getKernelRole", (ins), [{}],
      /*defaultImplementation=*/[{ return ::mlir::tfc::KernelRole::Pointwise; }]>,
    InterfaceMethod<[{
        For row reductions: the number of independent rows and the length
        of each row. The default reads operand 0 and reduces its last
        dimension.
      }],
      "::mlir::tfc::RowGeometry", "getRowGeometry", (ins), [{}],
      /*defaultImplementation=*/[{
        return ::mlir::tfc::rowGeometryOf(
            ::llvm::cast<::mlir::ShapedType>($_op->getOperand(0).getType()),
            /*firstReducedDim=*/-1);
      }]>,
  ];
}

def Tfc_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::tfc";
  let description = [{
    An op that reverse-mode differentiation (--tfc-autodiff) can pass
    through: it builds its vector-Jacobian product. Given the cotangents of
    the op's results (a null Value stands for a zero cotangent, e.g. of
    layer_norm's statistics, which only the backward reads), `buildVjp`
    creates ops at the builder's insertion point computing the cotangent of
    every operand, each with exactly that operand's type; it returns a null
    Value for operands that are not differentiable (integer ids and labels,
    dropout seeds and offsets, select conditions) and fails, with a
    diagnostic on the op, when it cannot differentiate this instance. The
    implementations are external models in TfcVjps.cpp / TfcNNVjps.cpp,
    attached when the dialect is loaded.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the cotangents of the operands from `resultCotangents` (one
        per result, null = zero; not all null).
      }],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>", "buildVjp",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultCotangents)>,
  ];
}

#endif // TFC_INTERFACES_TD
