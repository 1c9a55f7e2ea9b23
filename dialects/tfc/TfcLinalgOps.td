//===- TfcLinalgOps.td - tfc matmul ---------------------------------------===//
//
// Matrix products. They run on cuBLASLt (kernel kind gemm), so the op mirrors
// what a cuBLASLt matmul expresses: optional transposes of either operand,
// broadcast batch dimensions, and an fp32 output for 16-bit inputs (tensor
// cores accumulate in fp32; keeping that result avoids a rounding step).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_LINALG_OPS_TD
#define TFC_LINALG_OPS_TD

include "dialects/tfc/TfcBase.td"

def Tfc_MatmulOp : Tfc_Op<"matmul", [Pure,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "batched matrix product with optional transposes";
  let description = [{
    `op(a) @ op(b)` where `op` transposes the last two dimensions when
    `transpose_a` / `transpose_b` is set. Both operands have rank >= 2 and
    one floating-point element type. The last two dimensions of each operand
    are the matrix: after the transposes `a` is `M x K` and `b` is `K x N`.
    The leading dimensions are batch dimensions and broadcast numpy-style as
    in `torch.matmul`, so a rank-2 weight against rank-3 activations is a
    linear layer. The result has shape `broadcast(batch(a), batch(b)) x M x
    N`; its element type is the operands', or f32 when the operands are f16
    or bf16 (the fp32 accumulator kept as the output). Examples:
    ```mlir
    // Linear layer y = x W^T with a PyTorch-layout weight [out, in].
    %y = tfc.matmul %x, %w transpose_b
        : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
    // Attention scores q k^T in bf16 with an fp32 result.
    %s = tfc.matmul %q, %k transpose_b
        : tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16> -> tensor<16x4x64x64xf32>
    // Weight gradient dW = x^T dy.
    %dw = tfc.matmul %a, %b transpose_a
        : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$a, Tfc_FloatTensor:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  // The result type is not inferred: 16-bit operands may produce their own
  // type or f32, so the IR states it and the verifier checks it.
  let hasVerifier = 1;
}

#endif // TFC_LINALG_OPS_TD
