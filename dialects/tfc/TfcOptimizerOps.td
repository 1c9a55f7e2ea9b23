//===- TfcOptimizerOps.td - tfc optimizer update ops ----------------------===//
//
// One op per optimizer step of ONE parameter tensor with its state: tfc.adamw,
// tfc.adam, tfc.sgd. Each equals the corresponding torch.optim optimizer's
// single-tensor (foreach=False) step, operation by operation, so a tfc
// training step and a PyTorch one agree to rounding.
//
// Hyper-parameters that change while training runs (the learning rate, the
// step count) are 0-d tensor OPERANDS: a schedule or a loss-scaler skip
// changes data, never the compiled program. Fixed ones (betas, eps, weight
// decay, momentum, nesterov, maximize) are attributes. The ops have the
// kernel role MultiTensor: codegen emits them in multi_tensor kernels, one
// launch over all the tensors of a region. tfc.adamw8bit is the exception:
// a quantization block (decode, update, block max, encode) is its unit of
// work, so it has its own role and kernel kind, BlockQuantized.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_OPTIMIZER_OPS_TD
#define TFC_OPTIMIZER_OPS_TD

include "dialects/tfc/TfcBase.td"

/// The learning rate: a 0-d float tensor (f32 normally; its value is read as
/// a double on the host side of the formula, as torch reads a Python float).
def Tfc_LearningRate : 0DTensorOf<[Tfc_Float]>;

class Tfc_AdamFamilyOp<string mnemonic, string torchName, string wdDefault,
                       string wdDoc, string example>
    : Tfc_Op<mnemonic, [Pure,
        AllTypesMatch<["param", "exp_avg", "exp_avg_sq", "param_out",
                       "exp_avg_out", "exp_avg_sq_out"]>,
        DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                                  ["getKernelRole"]>,
        Tfc_ReadsAtResultIndex]> {
  let summary = "one " # torchName # " step of a parameter tensor";
  let description = [{
    Updates `param` with gradient `grad` and the first/second moment
    estimates `exp_avg`/`exp_avg_sq` exactly as `}] # torchName # [{`
    (foreach=False, amsgrad=False) does in one `step()`, returning the new
    parameter and moments. `step` is the step count AFTER the increment
    (1 on the first update), as torch's `state['step']` after `step_t += 1`;
    `lr` is the learning rate. Both are runtime 0-d tensors so that a
    schedule never recompiles. With t = step, in the compute type of
    `param` (f32 for 16-bit and f32 parameters, f64 for f64), scalars
    formed in double as torch forms Python floats:

        g     = maximize ? -grad : grad
}] # wdDoc # [{
        m     = m * beta1 + (1 - beta1) * g
        v     = v * beta2 + ((1 - beta2) * g) * g
        denom = sqrt(v) / sqrt(1 - beta2^t) + eps
        p     = p + (-(lr / (1 - beta1^t)) * m) / denom

    `grad` has param's shape and any float type (16-bit gradients of fp32
    master weights); `exp_avg`/`exp_avg_sq` have exactly param's type.
    `beta1`, `beta2` lie in [0, 1); `eps` and `weight_decay` are
    non-negative and finite. A step below 1 divides by zero (torch never
    passes one). Example:
    ```mlir
}] # example # [{
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$param, Tfc_FloatTensor:$grad,
                       Tfc_FloatTensor:$exp_avg, Tfc_FloatTensor:$exp_avg_sq,
                       Tfc_LearningRate:$lr, Tfc_I64Scalar:$step,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       DefaultValuedAttr<F64Attr, wdDefault>:$weight_decay,
                       UnitAttr:$maximize);
  let results = (outs Tfc_FloatTensor:$param_out, Tfc_FloatTensor:$exp_avg_out,
                      Tfc_FloatTensor:$exp_avg_sq_out);
  // Defaults are elided; the types are param's, grad's and lr's (the moments
  // and results have param's type, the step is always tensor<i64>).
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $lr `,` $step
    (`beta1` $beta1^)? (`beta2` $beta2^)? (`eps` $eps^)?
    (`weight_decay` $weight_decay^)? (`maximize` $maximize^)?
    attr-dict `:` type($param) `,` type($grad) `,` type($lr)
  }];
  let hasVerifier = 1;
}

def Tfc_AdamWOp : Tfc_AdamFamilyOp<"adamw", "torch.optim.AdamW", "1e-2", [{
        p     = p * (1 - lr * weight_decay)      (decoupled weight decay)}],
    [{    %p2, %m2, %v2 = tfc.adamw %p, %g, %m, %v, %lr, %step beta2 9.500000e-01 weight_decay 1.000000e-01 : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>}]>;

def Tfc_AdamOp : Tfc_AdamFamilyOp<"adam", "torch.optim.Adam", "0.0", [{
        g     = g + weight_decay * p             (L2 penalty, if weight_decay != 0)}],
    [{    %p2, %m2, %v2 = tfc.adam %p, %g, %m, %v, %lr, %step eps 1.000000e-06 : tensor<128xf32>, tensor<128xf32>, tensor<f32>}]>;

def Tfc_SgdOp : Tfc_Op<"sgd", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>,
    Tfc_ReadsAtResultIndex]> {
  let summary = "one torch.optim.SGD step of a parameter tensor";
  let description = [{
    Updates `param` with gradient `grad` exactly as `torch.optim.SGD`
    (foreach=False) does in one `step()`:

        d = maximize ? -grad : grad
        d = d + weight_decay * p                 (if weight_decay != 0)
        if momentum != 0:
          buf = step == 1 ? d : buf * momentum + (1 - dampening) * d
          d   = nesterov ? d + momentum * buf : buf
        p = p + (-lr) * d

    `momentum_buffer` is present (and then also returned, updated) exactly
    when `momentum` is not 0. torch creates the buffer as a copy of `d` on
    the first step; here the first step is the one whose `step` operand
    (the step count after the increment, a runtime 0-d tensor like `lr`)
    equals 1, and the buffer's incoming contents are ignored then. A step
    that a loss scaler skips does not advance the count, so the next real
    step still initializes the buffer. `grad` has param's shape and any
    float type; the buffer has exactly param's type. `momentum`,
    `dampening` and `weight_decay` are non-negative and finite; `nesterov`
    needs momentum > 0 and dampening 0 (torch's rule). Math is in param's
    compute type (f32, f64 for f64). Examples:
    ```mlir
    %p2, %b2 = tfc.sgd %p, %g, %lr, %step momentum_buffer(%b : tensor<64x32xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-04 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
    // Plain SGD: no momentum, no buffer.
    %q2 = tfc.sgd %q, %h, %lr, %step : tensor<64xf32>, tensor<64xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$param, Tfc_FloatTensor:$grad,
                       Tfc_LearningRate:$lr, Tfc_I64Scalar:$step,
                       Optional<Tfc_FloatTensor>:$momentum_buffer,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$nesterov, UnitAttr:$maximize);
  let results = (outs Tfc_FloatTensor:$param_out,
                      Optional<Tfc_FloatTensor>:$momentum_buffer_out);
  let assemblyFormat = [{
    $param `,` $grad `,` $lr `,` $step
    (`momentum_buffer` `(` $momentum_buffer^ `:` type($momentum_buffer) `)`)?
    (`momentum` $momentum^)?
    (`dampening` $dampening^)? (`nesterov` $nesterov^)?
    (`weight_decay` $weight_decay^)? (`maximize` $maximize^)?
    attr-dict `:` type($param) `,` type($grad) `,` type($lr)
  }];
  let hasVerifier = 1;
}

/// The codes of 8-bit quantized optimizer state: one unsigned byte each.
def Tfc_CodeTensor : StaticShapeTensorOf<[UI8]>;
/// Per-block scales of quantized state: a 1-d f32 tensor.
def Tfc_AbsmaxTensor : 1DTensorOf<[F32]>;

def Tfc_AdamW8bitOp : Tfc_Op<"adamw8bit", [Pure,
    AllTypesMatch<["param", "param_out"]>,
    AllTypesMatch<["exp_avg", "exp_avg_sq", "exp_avg_out", "exp_avg_sq_out"]>,
    AllTypesMatch<["exp_avg_absmax", "exp_avg_sq_absmax", "exp_avg_absmax_out",
                   "exp_avg_sq_absmax_out"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "one AdamW step with block-wise 8-bit quantized moments";
  let description = [{
    AdamW with its two moments stored as 8-bit codes, as bitsandbytes'
    blockwise 8-bit optimizers do (Dettmers et al. 2021, "8-bit Optimizers
    via Block-wise Quantization"). `exp_avg` and `exp_avg_sq` hold one ui8
    code per element of `param`: an index into a 256-entry dynamic tree
    quantization map (signed for exp_avg, unsigned for exp_avg_sq;
    common/QuantMap.h builds both and documents them).
    `exp_avg_absmax` / `exp_avg_sq_absmax` hold one f32 scale per block of
    `block_size` consecutive elements (row-major), ceil(numel / block_size)
    of them. For each block:

        m, v  = map_s[code_m] * absmax_m, map_u[code_v] * absmax_v
        p, m, v = the tfc.adamw update of the block's elements, in f32,
                  with the same formula and operation order
        absmax_m, absmax_v = max |m|, max |v| over the block
        code_m, code_v = index of the map entry nearest to m / absmax_m
                         (resp. v / absmax_v); 0 / 0 counts as 0; ties go
                         to the lower entry

    All-zero state (codes 0, absmax 0) decodes to zero moments, so a
    zero-filled state buffer is the correct start. `param` is f32; `grad`
    has its shape and any float type; `lr` and `step` are as for
    tfc.adamw. `block_size` is a power of two in [32, 1024] (one GPU thread
    block per quantization block); the state costs 2 + 8 / block_size bytes
    per parameter instead of 8. Example:
    ```mlir
    %p2, %m2, %ma2, %v2, %va2 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %step weight_decay 1.000000e-01 : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<32xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$param, Tfc_FloatTensor:$grad,
                       Tfc_CodeTensor:$exp_avg, Tfc_AbsmaxTensor:$exp_avg_absmax,
                       Tfc_CodeTensor:$exp_avg_sq,
                       Tfc_AbsmaxTensor:$exp_avg_sq_absmax,
                       Tfc_LearningRate:$lr, Tfc_I64Scalar:$step,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "1e-2">:$weight_decay,
                       DefaultValuedAttr<I64Attr, "256">:$block_size);
  let results = (outs Tfc_FloatTensor:$param_out, Tfc_CodeTensor:$exp_avg_out,
                      Tfc_AbsmaxTensor:$exp_avg_absmax_out,
                      Tfc_CodeTensor:$exp_avg_sq_out,
                      Tfc_AbsmaxTensor:$exp_avg_sq_absmax_out);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_absmax `,` $exp_avg_sq `,`
    $exp_avg_sq_absmax `,` $lr `,` $step
    (`beta1` $beta1^)? (`beta2` $beta2^)? (`eps` $eps^)?
    (`weight_decay` $weight_decay^)? (`block_size` $block_size^)?
    attr-dict `:` type($param) `,` type($grad) `,` type($exp_avg) `,`
    type($exp_avg_absmax) `,` type($lr)
  }];
  let hasVerifier = 1;
}

#endif // TFC_OPTIMIZER_OPS_TD
