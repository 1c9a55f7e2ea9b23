//===- TfcGradOps.td - tfc backward ops -----------------------------------===//
//
// Named backward ops: the vector-Jacobian products of the NN and activation
// ops whose hand-written backward beats what autodiff would build from
// smaller ops (a row kernel that reuses the forward's statistics, a pointwise
// derivative without intermediate tensors). Each equals what
// `torch.autograd.grad` of the named PyTorch function computes. Element
// types follow the forward op: dx has x's type, statistics and the loss
// gradient are in accumulationType (f32 for 16-bit activations), and math
// runs in that type.
//
// Kernel roles (see docs/dialect.md, "Backward ops"):
//   - layer_norm_grad / rms_norm_grad are composites: --tfc-decompose splits
//     them into a row kernel for dx (layer_norm_grad_input /
//     rms_norm_grad_input) and column reductions (reduce_sum over the leading
//     dims) for the weight and bias gradients;
//   - softmax_grad, log_softmax_grad, cross_entropy_grad are row reductions;
//   - gelu_grad, silu_grad are pointwise;
//   - embedding_grad is a composite lowered to a one-hot GEMM (deterministic).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_GRAD_OPS_TD
#define TFC_GRAD_OPS_TD

include "dialects/tfc/TfcBase.td"

//===----------------------------------------------------------------------===//
// layer_norm_grad, rms_norm_grad and their dx-only row kernels
//===----------------------------------------------------------------------===//

def Tfc_LayerNormGradOp : Tfc_Op<"layer_norm_grad", [Pure, InferTypeOpAdaptor,
    AllTypesMatch<["dy", "x"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "backward of layer_norm: dx, and dweight/dbias with a weight";
  let description = [{
    Given the upstream gradient `dy` of `tfc.layer_norm`'s `y`, its input
    `x` and its statistics `mean` and `rstd`, computes (over the last
    `normalized_rank` dims, default 1, with `xhat = (x - mean) * rstd`,
    `g = dy * weight` or `dy` without weight, `N` the normalized size):

        dx      = rstd * (g - mean(g) - xhat * mean(g * xhat))
        dweight = sum of dy * xhat over the non-normalized dims
        dbias   = sum of dy over the non-normalized dims

    as `torch.ops.aten.native_layer_norm_backward`. With `weight` the
    results are `(dx, dweight, dbias)`, without it `(dx)` alone (a layer
    norm without affine parameters has nothing else to train; a layer norm
    with a weight but no bias simply leaves dbias unused). `dy` has x's
    type, `mean` and `rstd` have the forward's statistics type (x's shape
    with the normalized dims set to 1, element type accumulationType(x)),
    `weight` has the normalized dims' shape and any float type; dx has x's
    type and dweight/dbias the weight's. The op is a composite:
    --tfc-decompose turns it into `tfc.layer_norm_grad_input` (a row
    kernel) and column reductions. Examples:
    ```mlir
    %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %mean, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>)
    %dx2 = tfc.layer_norm_grad %dy2, %x2, %mean2, %rstd2 normalized_rank 2 : (tensor<8x4x32xbf16>, tensor<8x4x32xbf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) -> tensor<8x4x32xbf16>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x,
                       Tfc_FloatTensor:$mean, Tfc_FloatTensor:$rstd,
                       Optional<Tfc_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  // dweight and dbias when a weight is given, nothing otherwise.
  let results = (outs Tfc_FloatTensor:$dx,
                      Variadic<Tfc_FloatTensor>:$param_grads);
  let assemblyFormat = [{
    $dy `,` $x `,` $mean `,` $rstd (`weight` $weight^)?
    (`normalized_rank` $normalized_rank^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The weight gradient, or null without a weight.
    ::mlir::Value getDweight() {
      return getParamGrads().empty() ? ::mlir::Value() : getParamGrads()[0];
    }
    /// The bias gradient, or null without a weight.
    ::mlir::Value getDbias() {
      return getParamGrads().size() < 2 ? ::mlir::Value() : getParamGrads()[1];
    }
  }];
}

def Tfc_RmsNormGradOp : Tfc_Op<"rms_norm_grad", [Pure, InferTypeOpAdaptor,
    AllTypesMatch<["dy", "x"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "backward of rms_norm: dx, and dweight with a weight";
  let description = [{
    Given the upstream gradient `dy` of `tfc.rms_norm`'s `y`, its input `x`
    and its statistic `rstd`, computes (over the last `normalized_rank` dims,
    with `xhat = x * rstd` and `g = dy * weight`, or `dy` without weight):

        dx      = rstd * (g - xhat * mean(g * xhat))
        dweight = sum of dy * xhat over the non-normalized dims

    which is `torch.autograd.grad` of `torch.nn.functional.rms_norm`. The
    results are `(dx, dweight)` with a weight and `(dx)` without; types
    follow `tfc.layer_norm_grad`. A composite: --tfc-decompose emits
    `tfc.rms_norm_grad_input` and a column reduction. Example:
    ```mlir
    %dx, %dw = tfc.rms_norm_grad %dy, %x, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>)
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x,
                       Tfc_FloatTensor:$rstd,
                       Optional<Tfc_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Tfc_FloatTensor:$dx,
                      Variadic<Tfc_FloatTensor>:$param_grads);
  let assemblyFormat = [{
    $dy `,` $x `,` $rstd (`weight` $weight^)?
    (`normalized_rank` $normalized_rank^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The weight gradient, or null without a weight.
    ::mlir::Value getDweight() {
      return getParamGrads().empty() ? ::mlir::Value() : getParamGrads()[0];
    }
  }];
}

def Tfc_LayerNormGradInputOp : Tfc_Op<"layer_norm_grad_input", [Pure,
    AllTypesMatch<["dy", "x", "dx"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                              ["getKernelRole", "getRowGeometry"]>]> {
  let summary = "the dx part of layer_norm_grad (a row reduction)";
  let description = [{
    `dx` of `tfc.layer_norm_grad` alone: one row kernel per normalized row,
    with the two row means `mean(g)` and `mean(g * xhat)` computed in
    accumulationType(x). Operand rules are those of `tfc.layer_norm_grad`.
    --tfc-decompose produces it; autodiff emits `tfc.layer_norm_grad`.
    Example:
    ```mlir
    %dx = tfc.layer_norm_grad_input %dy, %x, %mean, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> tensor<16x64x128xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x,
                       Tfc_FloatTensor:$mean, Tfc_FloatTensor:$rstd,
                       Optional<Tfc_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Tfc_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `,` $x `,` $mean `,` $rstd (`weight` $weight^)?
    (`normalized_rank` $normalized_rank^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfc_RmsNormGradInputOp : Tfc_Op<"rms_norm_grad_input", [Pure,
    AllTypesMatch<["dy", "x", "dx"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                              ["getKernelRole", "getRowGeometry"]>]> {
  let summary = "the dx part of rms_norm_grad (a row reduction)";
  let description = [{
    `dx` of `tfc.rms_norm_grad` alone, one row kernel per normalized row
    (one row mean, `mean(g * xhat)`). Produced by --tfc-decompose. Example:
    ```mlir
    %dx = tfc.rms_norm_grad_input %dy, %x, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> tensor<16x64x128xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x,
                       Tfc_FloatTensor:$rstd,
                       Optional<Tfc_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Tfc_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `,` $x `,` $rstd (`weight` $weight^)?
    (`normalized_rank` $normalized_rank^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// softmax_grad, log_softmax_grad
//===----------------------------------------------------------------------===//

class Tfc_SoftmaxGradBaseOp<string mnemonic, string summaryText>
    : Tfc_Op<mnemonic, [Pure, SameOperandsAndResultType,
        DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                                  ["getKernelRole", "getRowGeometry"]>]> {
  let summary = summaryText;
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$y, I64Attr:$dim);
  let results = (outs Tfc_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $y `dim` $dim attr-dict `:` type($dx)";
  let hasVerifier = 1;
}

def Tfc_SoftmaxGradOp : Tfc_SoftmaxGradBaseOp<"softmax_grad",
                                              "backward of softmax"> {
  let description = [{
    `dx = y * (dy - sum(dy * y))` along `dim` (in `[-rank, rank)`), where
    `y` is the forward `tfc.softmax`'s output: the backward reuses the
    probabilities instead of recomputing them, as
    `torch.ops.aten._softmax_backward_data`. `dy`, `y` and `dx` share one
    type; the sum is accumulated in accumulationType. A row reduction over
    the last dim; lowering transposes any other dim. Example:
    ```mlir
    %dx = tfc.softmax_grad %dy, %y dim -1 : tensor<16x4x64x64xf32>
    ```
  }];
}

def Tfc_LogSoftmaxGradOp : Tfc_SoftmaxGradBaseOp<"log_softmax_grad",
                                                 "backward of log_softmax"> {
  let description = [{
    `dx = dy - exp(y) * sum(dy)` along `dim`, where `y` is the forward
    `tfc.log_softmax`'s output, as
    `torch.ops.aten._log_softmax_backward_data`. Types and kernel role as
    `tfc.softmax_grad`. Example:
    ```mlir
    %dx = tfc.log_softmax_grad %dy, %y dim -1 : tensor<1024x256xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// gelu_grad, silu_grad
//===----------------------------------------------------------------------===//

def Tfc_GeluGradOp : Tfc_Op<"gelu_grad", [Pure, SameOperandsAndResultType,
    Tfc_KernelRoleOpInterface, Tfc_ElementLocal, Tfc_KeepsZeros,
    Tfc_SlowPathMath]> {
  let summary = "backward of gelu: dy * gelu'(x)";
  let description = [{
    `dy * d gelu(x) / dx` for the forward `tfc.gelu` with the same
    `approximate` (default `none`, the erf form; `tanh`, GPT-2's form),
    computed in accumulationType and rounded once, with the formulas of
    PyTorch's `gelu_backward`:

        none: Phi(x) + x * exp(-x^2 / 2) / sqrt(2 pi)
        tanh: 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2),
              t = tanh(sqrt(2/pi) (x + 0.044715 x^3))

    Pointwise; `dy`, `x` and `dx` share one type. Example:
    ```mlir
    %dx = tfc.gelu_grad %dy, %x approximate tanh : tensor<16x64x512xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x,
      DefaultValuedAttr<Tfc_GeluApproximationAttr,
                        "::mlir::tfc::GeluApproximation::none">:$approximate);
  let results = (outs Tfc_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `,` $x (`approximate` `` $approximate^)? attr-dict `:` type($dx)
  }];
}

def Tfc_SiluGradOp : Tfc_Op<"silu_grad", [Pure, SameOperandsAndResultType,
    Tfc_KernelRoleOpInterface, Tfc_ElementLocal, Tfc_KeepsZeros,
    Tfc_SlowPathMath]> {
  let summary = "backward of silu: dy * silu'(x)";
  let description = [{
    `dy * s * (1 + x * (1 - s))` with `s = sigmoid(x)`, PyTorch's
    `silu_backward`, computed in accumulationType and rounded once.
    Pointwise; `dy`, `x` and `dx` share one type. Example:
    ```mlir
    %dx = tfc.silu_grad %dy, %x : tensor<16x64x512xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_FloatTensor:$x);
  let results = (outs Tfc_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $x attr-dict `:` type($dx)";
}

//===----------------------------------------------------------------------===//
// cross_entropy_grad
//===----------------------------------------------------------------------===//

def Tfc_CrossEntropyGradOp : Tfc_Op<"cross_entropy_grad", [Pure,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                              ["getKernelRole", "getRowGeometry"]>]> {
  let summary = "backward of cross_entropy with respect to the logits";
  let description = [{
    The gradient of `tfc.cross_entropy`'s loss (same attributes, same
    defaults: `ignore_index` -100, `label_smoothing` 0, `reduction` mean)
    with respect to its `[N, C]` logits, scaled by the 0-d upstream
    gradient `dloss` (accumulationType(logits)). With `p = softmax(logits[n])`
    and `e = label_smoothing`, a row whose label is not ignored gets

        dlogits[n, c] = dloss * s * (p[c] - (1 - e) * [c == labels[n]] - e / C)

    and an ignored row zeros; `s` is 1 for `reduction sum` and 1 / (number
    of rows not ignored) for `reduction mean` (NaN when all rows are
    ignored, as PyTorch). The softmax is recomputed in the row kernel
    (cheaper than storing `[N, C]` probabilities). The result has the
    logits' type. Example:
    ```mlir
    %dlogits = tfc.cross_entropy_grad %dloss, %logits, %labels ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<f32>, tensor<8x10xbf16>, tensor<8xi64> -> tensor<8x10xbf16>
    ```
  }];
  let arguments = (ins 0DTensorOf<[Tfc_Float]>:$dloss,
      StaticShapeTensorOf<[Tfc_Float]>:$logits,
      StaticShapeTensorOf<[Tfc_Index]>:$labels,
      DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
      DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
      DefaultValuedAttr<Tfc_LossReductionAttr,
                        "::mlir::tfc::LossReduction::mean">:$reduction);
  let results = (outs Tfc_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $dloss `,` $logits `,` $labels (`ignore_index` $ignore_index^)?
    (`label_smoothing` $label_smoothing^)? (`reduction` `` $reduction^)?
    attr-dict `:` type($dloss) `,` type($logits) `,` type($labels) `->`
    type($dlogits)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// embedding_grad
//===----------------------------------------------------------------------===//

def Tfc_EmbeddingGradOp : Tfc_Op<"embedding_grad", [Pure,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "backward of embedding: scatter-add of dy rows into the table";
  let description = [{
    `dtable[v] = sum of dy[i] over the positions i with ids[i] == v`, the
    table gradient of `tfc.embedding` (`torch.nn.functional.embedding`'s
    backward, dense). `dy` has shape `ids.shape + [D]`; the result is
    `[V, D]` with dy's element type, V taken from the result type (the
    table's row count). Ids outside `[0, V)` contribute nothing. The op is
    a `scatter` kernel of its own: each table row sums its dy rows in
    increasing position order in the accumulation type (fp32 for 16-bit
    dy) and is rounded once, deterministic, with no float atomics, and the
    same bits on every backend. Canonicalization turns a 1-D `iota` of ids
    (a position embedding) into a `pad` of dy and an empty scatter into
    zeros. Example:
    ```mlir
    %dtable = tfc.embedding_grad %dy, %ids : tensor<16x64x128xf32>, tensor<16x64xi64> -> tensor<256x128xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$dy, Tfc_IndexTensor:$ids);
  let results = (outs Tfc_FloatTensor:$dtable);
  let assemblyFormat = [{
    $dy `,` $ids attr-dict `:` type($dy) `,` type($ids) `->` type($dtable)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

#endif // TFC_GRAD_OPS_TD
