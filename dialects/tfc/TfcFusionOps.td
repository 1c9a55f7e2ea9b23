//===- TfcFusionOps.td - tfc.fusion, the kernel region op ---------------===//
//
// `tfc.fusion` groups tfc ops into ONE GPU kernel of a given kind; its
// terminator `tfc.yield` returns the kernel's outputs. Unfused compilation
// wraps every op in its own fusion, the fusion pass forms bigger ones, and
// codegen emits one kernel per fusion either way. The rules saying which ops
// may share a kernel of each kind live in TfcKernelRules.h.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_FUSION_OPS_TD
#define TFC_FUSION_OPS_TD

include "dialects/tfc/TfcBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Tfc_FusionOp : Tfc_Op<"fusion", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "a group of tfc ops that codegen emits as one kernel";
  let description = [{
    The body is one block of tfc ops that codegen turns into a single GPU
    kernel (and a single host program) of kind `kind`, one of the kernel
    kinds of DESIGN.md: `pointwise`, `row_reduction`, `column_reduction`,
    `gather`, `multi_tensor`, `gemm` or `block_quantized`. The operands are the kernel's inputs;
    the region is isolated from above and its block arguments stand for the
    operands one to one. `tfc.yield` returns the kernel's outputs, which are
    the fusion's results (at least one).

    The verifier checks that the body can form one kernel of its kind: every
    op is a tfc op with a kernel role (no nested fusions, no ops of other
    dialects, no composite ops such as attention, which lowering decomposes
    first), and

    * `pointwise`: all ops are pointwise;
    * `multi_tensor`: optimizer updates (`adamw`, `adam`, `sgd`; any number)
      and pointwise ops;
    * `row_reduction`: at least one row reduction, all of them over the same
      rows (number of rows and row length), the other ops pointwise;
    * `column_reduction`: at least one column reduction, the others pointwise;
    * `gather`: exactly one gather op, the others pointwise;
    * `gemm`: exactly one gemm op plus the epilogue cuBLASLt fuses (a bias
      row, ReLU, GELU tanh, GELU gradient, bias gradient; TfcGemmKernel.h);
    * `block_quantized`: exactly one update of block-wise quantized state
      (`adamw8bit`) plus pointwise ops computing its operands.

    In the assembly form each block argument is bound to its operand as
    `%arg = %operand : type`. Example (bias add + GELU):
    ```mlir
    %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>,
                               %c = %b : tensor<8xf32>) -> tensor<4x8xf32> {
      %0 = tfc.add %a, %c : tensor<4x8xf32>, tensor<8xf32>
      %1 = tfc.gelu %0 approximate tanh : tensor<4x8xf32>
      tfc.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Tfc_KernelKindAttr:$kind,
                       Variadic<Tfc_Tensor>:$inputs);
  let results = (outs Variadic<Tfc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `` $kind custom<FusionBody>($inputs, type($inputs), type($results), $body)
    attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The single block of the body.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The terminator returning the kernel's outputs.
    YieldOp getYield();
  }];
}

def Tfc_YieldOp : Tfc_Op<"yield", [Pure, HasParent<"FusionOp">, ReturnLike,
                                   Terminator]> {
  let summary = "returns the outputs of a tfc.fusion kernel";
  let description = [{
    Terminates the body of a `tfc.fusion`; its operands become the fusion's
    results and must match their types one to one. Example:
    ```mlir
    tfc.yield %y, %mean : tensor<16x128xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfc_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

#endif // TFC_FUSION_OPS_TD
