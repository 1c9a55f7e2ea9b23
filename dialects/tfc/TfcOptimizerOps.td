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
// launch over all the tensors of a region.
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
                                  ["getKernelRole"]>]> {
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
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
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

#endif // TFC_OPTIMIZER_OPS_TD
