//===- TfcInterfaces.td - tfc op interfaces ------------------------------===//
//
// Interfaces shared by tfc ops. The kernel-role interface tells fusion (and
// the tfc.fusion verifier) which kernel kind an op can live in. The
// differentiation interface comes with the training ops.
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

#endif // TFC_INTERFACES_TD
