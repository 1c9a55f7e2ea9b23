//===- Passes.td - tfc layout passes --------------------------------------===//
//
// Shapes the hardware wants, exact to the model (issue 10). Runs on the
// forward, after --tfc-auto-mixed-precision (the multiples depend on the
// element type) and before the train step is built, so the backward that
// --tfc-autodiff derives computes on the same padded shapes.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_LAYOUT_PASSES_TD
#define TFC_PASSES_LAYOUT_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcPadShapesPass : Pass<"tfc-pad-shapes", "::mlir::ModuleOp"> {
  let summary = "Pad GEMM dimensions to tensor-core multiples, exactly";
  let description = [{
    Pads the M, N and K dimensions of every `tfc.matmul` to the multiples
    `pad` asks for, inside the program only: the GEMM reads zero-padded
    copies of its operands (`tfc.pad`, zeros) and its result is cut back
    to the model's shape (`tfc.slice`), so every value the model sees, and
    every parameter, input and output of the function, keeps its shape.
    Zeros added along K contribute exact zero products; rows and columns
    added along M and N are dropped; the backward (the VJPs of pad and
    slice are slice and pad) is exact the same way, so the only numerical
    difference is the summation order a padded GEMM may choose. A linear
    layer (rank-2 weight, activations of higher rank) is flattened first,
    so its M is batch x sequence.

    Pointwise ops reading a cut-back GEMM result are moved before the cut
    (their other operands padded: a bias with zeros), so a GEMM keeps its
    bias and activation epilogues; the padded lanes they compute are
    dropped by the cut.

    `pad`: `auto` (default) pads what the target's tensor cores want for
    the GEMM's operand type; `none` pads nothing; an integer N (1 to 4096)
    pads M, N and K of every GEMM to multiples of N in any precision (tests,
    experiments). `auto`:

    | target | operands | M, N, K | vocabulary |
    |---|---|---|---|
    | sm_80, sm_90 | f16, bf16 | 8 | 64 |
    | sm_80, sm_90 | f32 on TF32 tensor cores (precision=tf32) | 4 | 64 |
    | sm_80, sm_90 | f32, f64 | 1 (CUDA cores: nothing to gain) | 1 |
    | host | any | 1 (OpenBLAS has no tile sizes to meet) | 1 |

    The vocabulary is the N of a GEMM whose result becomes the logits of a
    `tfc.cross_entropy` (through reshapes, converts and bias adds); 64 is
    the multiple the NVIDIA and Hugging Face guides advise for it.

    Each padded `tfc.matmul` carries `tfc.pad_from = [M, N, K]`, its
    dimensions before padding; `--tfc-kernel-report` lists them with the
    extra bytes.

    Example (pad=8):
    ```mlir
    %y = tfc.matmul %x, %w transpose_b : tensor<7x100xbf16>, tensor<300x100xbf16> -> tensor<7x300xbf16>
    // becomes
    %xp = tfc.pad %x low [0, 0] high [1, 4] value 0.0 : tensor<7x100xbf16> -> tensor<8x104xbf16>
    %wp = tfc.pad %w low [0, 0] high [4, 4] value 0.0 : tensor<300x100xbf16> -> tensor<304x104xbf16>
    %yp = tfc.matmul %xp, %wp transpose_b {tfc.pad_from = array<i64: 7, 300, 100>} : tensor<8x104xbf16>, tensor<304x104xbf16> -> tensor<8x304xbf16>
    %y = tfc.slice %yp [0, 0] to [7, 300] : tensor<8x304xbf16> -> tensor<7x300xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"pad", "pad", "std::string", /*default=*/"\"auto\"",
           "auto (what the target's tensor cores want: 8 for 16-bit "
           "GEMMs and 64 for the vocabulary on sm_80/sm_90, 4 for TF32, "
           "nothing for f32 and on the host), none, or N (every GEMM "
           "dimension to a multiple of N)">,
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "The machine the multiples are for: sm_80, sm_90 or host">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Comma-separated functions to pad (default: every function)">,
  ];
}

#endif // TFC_PASSES_LAYOUT_PASSES_TD
