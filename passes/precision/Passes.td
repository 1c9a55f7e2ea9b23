//===- Passes.td - tfc precision passes -----------------------------------===//
//
// Mixed precision (issue 10): which ops of a model run in 16-bit and which in
// f32, decided on the forward before the train step is built, so that the
// backward --tfc-autodiff derives inherits the same types.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_PRECISION_PASSES_TD
#define TFC_PASSES_PRECISION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcAutoMixedPrecisionPass
    : Pass<"tfc-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Choose each op's precision (bf16/fp16 mixed precision, "
                "TF32 GEMMs) with autocast-style op lists";
  let description = [{
    Rewrites the functions of a graph-level module (a model's forward and
    loss, before `--tfc-build-train-step`) for `precision`:

    | class | ops | bf16 / fp16 |
    |---|---|---|
    | low | tfc.matmul, tfc.attention | f32 operands converted to 16-bit; 16-bit results (f32 accumulation inside the kernels); an additive attention mask clamped to the 16-bit finite range first (+-inf, NaN kept) |
    | f32 | tfc.layer_norm, tfc.rms_norm, tfc.softmax, tfc.log_softmax, tfc.cross_entropy, tfc.reduce_sum, tfc.reduce_mean, tfc.exp, tfc.log, tfc.pow, tfc.rsqrt, and the backward ops tfc.layer_norm_grad, tfc.rms_norm_grad, tfc.layer_norm_grad_input, tfc.rms_norm_grad_input, tfc.softmax_grad, tfc.log_softmax_grad, tfc.cross_entropy_grad | 16-bit operands converted to f32; f32 results |
    | follow | every other op | its operands' storage type: operands of different float types meet at the widest type of the activations; an operand computed from parameters and constants alone (a bias, a scale) is converted to the activations' type instead of widening it |
    | refused | tfc.adamw, tfc.adam, tfc.sgd, tfc.adamw8bit, tfc.fusion | an error: run this pass on the forward, before the train step and the kernels are built |

    Parameters stay f32 in the signature (the master weights): each use of
    one by a 16-bit op reads its own `tfc.convert`, so the gradient that
    `--tfc-autodiff` derives through it is converted back to f32 before
    the gradients of its uses are summed. f64 values are left alone (an
    f64 model is a deliberate choice). A function's results keep their
    types (a `tfc.convert` is added where an op's result type changed), so
    the signature, and with it the runtime's external tensors, never
    changes. The residual stream stays f32 when the embedding is f32: the
    sum of an f32 and a 16-bit activation is f32.

    `precision=tf32` converts nothing: it sets the module attribute
    `tfc.f32_gemm_compute = "tf32"`, and `--tfc-convert-to-exec` gives
    every f32 GEMM `compute_type = "tf32"` (cuBLASLt's
    CUBLAS_COMPUTE_32F_FAST_TF32; the host backend computes them in full
    f32). `precision=f32` changes nothing.

    Example (precision=bf16):
    ```mlir
    %y = tfc.matmul %x, %w transpose_b : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
    // becomes
    %xl = tfc.convert %x : tensor<8x16xf32> -> tensor<8x16xbf16>
    %wl = tfc.convert %w : tensor<4x16xf32> -> tensor<4x16xbf16>
    %y = tfc.matmul %xl, %wl transpose_b : tensor<8x16xbf16>, tensor<4x16xbf16> -> tensor<8x4xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
           "f32 (nothing changes), tf32 (f32 GEMMs on TF32 tensor cores), "
           "bf16 or fp16 (mixed precision: tfc.matmul and tfc.attention in "
           "16-bit; layer_norm, rms_norm, softmax, log_softmax, cross_entropy, "
           "reduce_sum, reduce_mean, exp, log, pow, rsqrt and their gradients in "
           "f32; "
           "every other op in its operands' type, parameters following the "
           "activations; f32 master weights)">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Comma-separated functions to rewrite (default: every function)">,
  ];
}

def TfcWeightCopiesPass : Pass<"tfc-weight-copies", "::mlir::ModuleOp"> {
  let summary = "Keep the 16-bit (and padded) weight copies the forward "
                "reads as state the optimizer writes";
  let description = [{
    After `--tfc-auto-mixed-precision` (and `--tfc-pad-shapes`) the
    forward reads each parameter P through a copy: `tfc.convert` to 16-bit,
    maybe `tfc.pad`, computed from the f32 master weight at every step.
    This pass makes such a copy state that persists across steps, so no
    step computes it from P before its forward: in each function of
    `function` that reads it, the copy becomes an argument
    `{tfc.state = "<P>.<type>"}` (`"<P>.<type>.<shape>"` when padding
    changed its shape), and a function that updates P (`tfc.update`) also
    returns the copy of the new P (`{tfc.update = "<P>.<type>"}`), which
    fusion puts in the optimizer's kernel. A skipped step keeps both.

    It also adds `@refresh_weight_copies(params, copies) -> copies`
    (attribute `tfc.refresh`): the copies computed from the parameters, an
    entry the runtime runs by itself before any other entry whenever a
    parameter was set since it last ran (loading weights, a checkpoint,
    `load_state_dict`), so the copies always equal what the forward would
    have computed: the step is bit-identical to the one without copies.

    Only copies that do real work are kept: a chain from P of converts,
    pads, reshapes and transposes that holds at least one convert or pad,
    read by an op outside such chains. The copies cost their bytes as
    state (2 bytes per parameter in bf16) and save reading P (4 bytes) and
    a launch per copy every step.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"function", "function", "std::string",
           /*default=*/"\"train_step,accumulate_step,apply_step\"",
           "Comma-separated step functions (those missing are skipped)">,
  ];
}

#endif // TFC_PASSES_PRECISION_PASSES_TD
