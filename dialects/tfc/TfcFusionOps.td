//===- TfcFusionOps.td - tfc's region ops: fusion, checkpoint ------------===//
//
// `tfc.fusion` groups tfc ops into ONE GPU kernel of a given kind; its
// terminator `tfc.yield` returns the kernel's outputs. Unfused compilation
// wraps every op in its own fusion, the fusion pass forms bigger ones, and
// codegen emits one kernel per fusion either way. The rules saying which ops
// may share a kernel of each kind live in TfcKernelRules.h.
//
// `tfc.checkpoint` marks a block of a model whose activations
// `recompute=blocks` recomputes in the backward rather than saving (as
// torch.utils.checkpoint does); --tfc-inline-checkpoints dissolves it before
// anything else runs. Both bind their inputs the same way and end in
// `tfc.yield`.
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
    `gather`, `multi_tensor`, `gemm`, `block_quantized`, `scatter` or `sort`. The operands are the kernel's inputs;
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
      (`adamw8bit`) plus pointwise ops computing its operands;
    * `scatter`: exactly one scatter-add (`embedding_grad`) plus pointwise
      ops computing its rows (`dy`); its ids are a kernel input or a
      constant;
    * `sort`: exactly one `sort` and nothing else (its operand is a kernel
      input; the outputs are its results).

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

def Tfc_CheckpointOp : Tfc_Op<"checkpoint", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "a block of the model to recompute in the backward";
  let description = [{
    Marks the ops of its body as one block for activation recompute
    (`recompute=blocks` of `--tfc-train-pipeline` and `--tfc-lower-to-exec`,
    `--tfc-recompute=mode=blocks`): the backward saves only what flows into
    the block and reruns the block's forward, as `torch.utils.checkpoint`
    does for a module. Without `recompute=blocks` it changes nothing.

    The operands are the block's inputs, bound to the body's arguments as in
    `tfc.fusion` (`%arg = %operand : type`); the region is isolated from
    above and `tfc.yield` returns the results. The body is one block of any
    ops valid in the enclosing function, except another `tfc.checkpoint`.

    The pipelines dissolve every checkpoint first (`--tfc-inline-checkpoints`,
    which records the blocks by the `tfc.param` arguments each one reads), so
    the other passes never see one. Example (one MLP layer as a block):
    ```mlir
    %y = tfc.checkpoint (%a = %x : tensor<8x16xf32>,
                         %w = %w0 : tensor<16x16xf32>) -> tensor<8x16xf32> {
      %h = tfc.matmul %a, %w transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
      %g = tfc.gelu %h approximate tanh : tensor<8x16xf32>
      tfc.yield %g : tensor<8x16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Tfc_Tensor>:$inputs);
  let results = (outs Variadic<Tfc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<FusionBody>($inputs, type($inputs), type($results), $body)
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The single block of the body.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The terminator returning the block's results.
    YieldOp getYield();
  }];
}

def Tfc_YieldOp : Tfc_Op<"yield", [Pure,
    ParentOneOf<["FusionOp", "CheckpointOp"]>, ReturnLike, Terminator]> {
  let summary = "returns the results of a tfc.fusion or tfc.checkpoint";
  let description = [{
    Terminates the body of a `tfc.fusion` or `tfc.checkpoint`; its operands
    become the parent's results and must match their types one to one.
    Example:
    ```mlir
    tfc.yield %y, %mean : tensor<16x128xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfc_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

#endif // TFC_FUSION_OPS_TD
