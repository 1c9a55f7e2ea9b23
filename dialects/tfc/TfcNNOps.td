//===- TfcNNOps.td - tfc neural-network ops -------------------------------===//
//
// The model-level building blocks of transformers: embedding, layer_norm,
// rms_norm, softmax, log_softmax, dropout, random, attention and
// cross_entropy. Each
// equals one PyTorch function (named in its description) and is kept whole at
// the graph level because its kernel (a gather, a row reduction, a Philox
// pointwise op) is better than what its decomposition would fuse into, and
// because autodiff has a cheaper hand-written backward for it. Statistics,
// softmax and losses accumulate in accumulationType(): f32 for 16-bit floats.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_NN_OPS_TD
#define TFC_NN_OPS_TD

include "dialects/tfc/TfcBase.td"

//===----------------------------------------------------------------------===//
// Type constraints of this group
//===----------------------------------------------------------------------===//

/// A 2-d static float tensor: embedding tables and [N, C] logits.
def Tfc_FloatMatrix : Type<And<[Tfc_FloatTensor.predicate,
                                HasAnyRankOfPred<[2]>]>,
    "2-d statically shaped tensor of floating-point (f16, bf16, f32, f64) "
    "values", "::mlir::TensorType">;

/// A float tensor of rank >= 2: attention's [..., T, D] operands.
def Tfc_FloatBatchedMatrix : Type<And<[Tfc_FloatTensor.predicate,
                                       HasRankGreaterOrEqualPred<2>]>,
    "statically shaped tensor of rank >= 2 of floating-point (f16, bf16, "
    "f32, f64) values", "::mlir::TensorType">;

/// A 1-d i32/i64 tensor: cross_entropy's class labels.
def Tfc_IndexVector : Type<And<[Tfc_IndexTensor.predicate,
                                HasAnyRankOfPred<[1]>]>,
    "1-d statically shaped tensor of integer index (i32, i64) values",
    "::mlir::TensorType">;


//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

def Tfc_EmbeddingOp : Tfc_Op<"embedding", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "table lookup: one row of the table per index";
  let description = [{
    Gathers rows of a `[V, D]` table: the result has shape `ids.shape + [D]`
    and the table's element type. `ids` may have any rank (0-d gives one
    row). Equals `torch.nn.functional.embedding(ids, table)` (no
    `padding_idx`, no `max_norm`). Every id must lie in `[0, V)`; ids are
    runtime data, so the verifier cannot check it and an id outside that
    range reads an unspecified row (PyTorch raises). Example (token
    embedding of a GPT):
    ```mlir
    %e = tfc.embedding %table, %ids : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatMatrix:$table, Tfc_IndexTensor:$ids);
  let results = (outs Tfc_FloatTensor:$result);
  // The result type is printed although it is inferred, so that IR states
  // the shape it expects and a mismatch is reported by the verifier.
  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` type($table) `,` type($ids) `->`
    type($result)
  }];
  // embedding(table, iota(N)) with N <= V is the first N rows of the table
  // (position embeddings): a slice, which fuses as a view.
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

def Tfc_LayerNormOp : Tfc_Op<"layer_norm", [Pure, InferTypeOpAdaptor,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                              ["getKernelRole", "getRowGeometry"]>]> {
  let summary = "layer normalization, also returning mean and rstd";
  let description = [{
    Normalizes `x` over its last `normalized_rank` dimensions (default 1)
    and applies the optional elementwise affine transform:

        y    = (x - mean) * rstd * weight + bias
        mean = mean of x over the normalized dims
        rstd = 1 / sqrt(biased variance of x over the normalized dims + eps)

    `y` equals `torch.nn.functional.layer_norm(x, x.shape[-normalized_rank:],
    weight, bias, eps)`; `(y, mean, rstd)` equals
    `torch.ops.aten.native_layer_norm`, which is why the statistics are
    results: the backward pass reuses them instead of recomputing them.
    `weight` and `bias` are optional and, when present, have exactly the
    shape of the normalized dims; their float type may differ from x's
    (fp32 parameters with bf16 activations). `eps` must be positive
    (default 1e-5). `y` has x's type; `mean` and `rstd` have x's shape with
    the normalized dims set to 1 and element type accumulationType(x) (f32
    for 16-bit x), the precision the kernel computes in. Examples:
    ```mlir
    %y, %mean, %rstd = tfc.layer_norm %x weight %w bias %b eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    // No affine transform, bf16 activations: statistics stay f32.
    %y2, %mean2, %rstd2 = tfc.layer_norm %h : (tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
    // Normalize over the last two dims, like normalized_shape = (4, 32).
    %y3, %mean3, %rstd3 = tfc.layer_norm %z weight %w2 normalized_rank 2 : (tensor<8x4x32xf32>, tensor<4x32xf32>) -> (tensor<8x4x32xf32>, tensor<8x1x1xf32>, tensor<8x1x1xf32>)
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$x,
                       Optional<Tfc_FloatTensor>:$weight,
                       Optional<Tfc_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Tfc_FloatTensor:$y, Tfc_FloatTensor:$mean,
                      Tfc_FloatTensor:$rstd);
  // Defaults (normalized_rank 1, eps 1e-5) are elided when printing.
  let assemblyFormat = [{
    $x (`weight` $weight^)? (`bias` $bias^)?
    (`normalized_rank` $normalized_rank^)? (`eps` $eps^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfc_RmsNormOp : Tfc_Op<"rms_norm", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                              ["getKernelRole", "getRowGeometry"]>]> {
  let summary = "root-mean-square normalization, also returning rstd";
  let description = [{
    Normalizes `x` by its root mean square over the last `normalized_rank`
    dimensions (default 1) and scales by the optional `weight`:

        y    = x * rstd * weight
        rstd = 1 / sqrt(mean of x^2 over the normalized dims + eps)

    `y` equals `torch.nn.functional.rms_norm(x, x.shape[-normalized_rank:],
    weight, eps)` (PyTorch >= 2.4; LLaMA's RMSNorm). `rstd` is a result for
    the backward pass. Unlike PyTorch, whose `eps=None` means the dtype's
    machine epsilon, the default `eps` is 1e-5; frontends pass it
    explicitly. Shape and dtype rules are those of `tfc.layer_norm`:
    `weight` has the shape of the normalized dims and any float type, `rstd`
    has x's shape with the normalized dims set to 1 and element type
    accumulationType(x). Example:
    ```mlir
    %y, %rstd = tfc.rms_norm %x weight %w eps 1.000000e-06 : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$x,
                       Optional<Tfc_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Tfc_FloatTensor:$y, Tfc_FloatTensor:$rstd);
  let assemblyFormat = [{
    $x (`weight` $weight^)? (`normalized_rank` $normalized_rank^)?
    (`eps` $eps^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

class Tfc_SoftmaxBaseOp<string mnemonic, string summaryText>
    : Tfc_Op<mnemonic, [Pure, SameOperandsAndResultType,
        DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                                  ["getKernelRole", "getRowGeometry"]>]> {
  let summary = summaryText;
  let arguments = (ins Tfc_FloatTensor:$x, I64Attr:$dim);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = "$x `dim` $dim attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Tfc_SoftmaxOp : Tfc_SoftmaxBaseOp<"softmax",
                                      "softmax along one dimension"> {
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `dim` (in `[-rank, rank)`,
    negative counts from the back), computed in accumulationType(x) and
    rounded once to x's type. Equals `torch.softmax(x, dim)`. Softmax over
    the last dimension is a row-reduction kernel; over any other dimension
    the op is a composite that lowering transposes or decomposes. Example
    (attention probabilities):
    ```mlir
    %p = tfc.softmax %x dim -1 : tensor<16x4x64x64xf32>
    ```
  }];
}

def Tfc_LogSoftmaxOp : Tfc_SoftmaxBaseOp<"log_softmax",
                                         "log-softmax along one dimension"> {
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `dim` (in `[-rank, rank)`),
    computed in accumulationType(x). Equals `torch.log_softmax(x, dim)`.
    Like `tfc.softmax` it is a row reduction when `dim` is the last
    dimension and a composite otherwise. Example:
    ```mlir
    %l = tfc.log_softmax %x dim 1 : tensor<1024x256xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

def Tfc_DropoutOp : Tfc_Op<"dropout", [Pure, AllTypesMatch<["x", "result"]>,
                                       Tfc_KernelRoleOpInterface,
                                       Tfc_ReadsAtResultIndex]> {
  let summary = "inverted dropout with a counter-based Philox mask";
  let description = [{
    Zeroes each element with probability `p` (`0 <= p < 1`) and scales the
    kept ones by `1 / (1 - p)` (inverted dropout), as
    `torch.nn.functional.dropout(x, p, training=True)`. The mask is a pure
    function of the 0-d i64 operands `seed` and `offset`, which is why the
    op is `Pure` (CSE merges two dropouts of one (x, seed, offset); the
    train-step pass hands each dropout its own offset range):

    - the element at row-major linear index `i` draws Philox4x32-10 with key
      `(lo32(seed), hi32(seed))` and counter `(lo32(c), hi32(c), 0, 0)`,
      `c = offset + i` (mod 2^64), and takes the first output word `r`;
    - it is kept iff `r >= floor(p * 2^32)`, an integer test, so the host
      and the GPU draw bit-identical masks;
    - a kept element is `x * (1 / (1 - p))`, multiplied in
      accumulationType(x) and rounded once to x's type.

    A dropout therefore consumes `numel(x)` counters from `offset`. The
    masks are not PyTorch's (its Philox stream is laid out differently),
    only their distribution is. `p = 0` is the identity. Example:
    ```mlir
    %d = tfc.dropout %x, %seed, %offset p 1.000000e-01 : tensor<16x64x128xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$x, Tfc_I64Scalar:$seed,
                       Tfc_I64Scalar:$offset, F64Attr:$p);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $seed `,` $offset `p` $p attr-dict `:` type($x)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// random
//===----------------------------------------------------------------------===//

def Tfc_RandomOp : Tfc_Op<"random", [Pure, Tfc_KernelRoleOpInterface,
                                     Tfc_SlowPathMath]> {
  let summary = "uniform or standard normal numbers from the Philox stream";
  let description = [{
    A tensor of random numbers drawn from tfc.dropout's counter-based
    Philox stream: the element at row-major linear index `i` draws
    Philox4x32-10 with key `(lo32(seed), hi32(seed))` and counter
    `(lo32(c), hi32(c), 0, 0)`, `c = offset + i` (mod 2^64), giving the
    words `r0, r1, r2, r3`. One counter per element, so a draw consumes
    `numel(result)` counters from `offset`, as a dropout of that shape does.

    - `uniform`: in `[0, 1)` with as many random bits as the result's
      significand, so rounding never reaches 1: `(r0 >> 8) * 2^-24` for f32,
      `(r0 >> 21) * 2^-11` for f16, `(r0 >> 24) * 2^-8` for bf16, and
      `(r0 * 2^21 + (r1 >> 11)) * 2^-53` for f64; exact in the result type,
      so host and GPU draw bit-identical numbers.
    - `normal`: a standard normal sample by Box-Muller,
      `sqrt(-2 ln u1) * cos(2 pi u2)` with `u1 = ((r0 >> 8) + 1) * 2^-24`
      in `(0, 1]` and `u2 = (r1 >> 8) * 2^-24` (f64: 53-bit `u1` from r0, r1
      and `u2` from r2, r3), computed in accumulationType(result) and rounded
      once; host and GPU agree to the last bits of their log, sqrt and cos
      (the slow-path math of the normal draw is why the op is SlowPathMath).

    Pure (a function of seed and offset: CSE merges two draws of one
    (seed, offset, type)); nothing differentiable flows through it. The
    numbers are not PyTorch's (its generator is another stream), only their
    distribution is: the frontend builds torch.rand, randn, randint,
    bernoulli, multinomial, ... on it. Example:
    ```mlir
    %noise = tfc.random %seed, %offset normal : tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = (ins Tfc_I64Scalar:$seed, Tfc_I64Scalar:$offset,
                       Tfc_RandomDistributionAttr:$distribution);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `,` $offset `` $distribution attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

def Tfc_AttentionOp : Tfc_Op<"attention", [Pure, InferTypeOpAdaptor,
    AttrSizedOperandSegments, AllElementTypesMatch<["q", "k", "v"]>,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "scaled dot-product attention (composite)";
  let description = [{
    `softmax(q @ k^T * scale + mask) @ v` with `q: [..., T, D]`,
    `k: [..., S, D]`, `v: [..., S, Dv]` and result `[..., T, Dv]`. The
    batch dimensions `...` (e.g. batch and heads) are equal in all three
    operands (no broadcasting) and the operands share one float type, which
    the result has. Equals
    `torch.nn.functional.scaled_dot_product_attention(q, k, v,
    dropout_p=p, is_causal=causal, scale=scale)`:

    - `scale` defaults to `1 / sqrt(D)`; it must be positive and finite.
    - `causal` masks with PyTorch's top-left aligned lower triangle: query
      `t` sees keys `s <= t` (`torch.ones(T, S).tril()`), for any T and S.
      With `T < S` this is not the bottom-right alignment of a KV cache;
      no row is ever fully masked, since key 0 is always visible.
    - `mask %m` (optional) is PyTorch's `attn_mask`: numpy-broadcastable
      to the scores `[..., T, S]`; a float mask (q's element type) is added
      to the scaled scores, an i1 mask keeps the scores where it is true and
      masks the others with -inf (`[B, 1, 1, S]` padding masks, `[T, S]`
      causal or ALiBi biases). It may be combined with `causal` (both
      apply). A fully masked row is NaN, as in PyTorch. An additive mask
      gets a gradient (the scores' gradient summed over its broadcast
      dims), so a learned bias trains; an i1 mask has none.
    - `dropout p seed %s offset %o` applies `tfc.dropout` semantics to the
      `[..., T, S]` probabilities (Philox counter `offset + i` for their
      row-major index `i`, kept values scaled by `1 / (1 - p)`), with
      `0 <= p < 1`; the 0-d i64 `seed` and `offset` are present exactly
      when `dropout` is.

    Scores, softmax and the weighted sum accumulate in
    accumulationType(q). The op is a composite: lowering decomposes it
    into gemm and row-reduction kernels (or a fused attention kernel);
    it exists so that autodiff and the precision pass see attention whole.
    Examples:
    ```mlir
    %o = tfc.attention %q, %k, %v causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
    %o2 = tfc.attention %q, %k, %v causal scale 2.500000e-01 dropout 1.000000e-01 seed %seed offset %offset : tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16> -> tensor<16x4x64x32xbf16>
    %o3 = tfc.attention %q, %k, %v mask %pad : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x1x1x64xi1> -> tensor<16x4x64x32xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatBatchedMatrix:$q, Tfc_FloatBatchedMatrix:$k,
                       Tfc_FloatBatchedMatrix:$v,
                       Optional<Tfc_Tensor>:$mask,
                       Optional<Tfc_I64Scalar>:$seed,
                       Optional<Tfc_I64Scalar>:$offset,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$scale,
                       OptionalAttr<F64Attr>:$dropout);
  let results = (outs Tfc_FloatBatchedMatrix:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`causal` $causal^)? (`mask` $mask^)? (`scale` $scale^)?
    (`dropout` $dropout^ `seed` $seed `offset` $offset)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) (`,` type($mask)^)?
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scale applied to q @ k^T: the `scale` attribute or 1/sqrt(D).
    double getEffectiveScale();
    /// Builds, before this op, the masked scores softmax reads:
    /// `q @ k^T * scale` in accumulationType(q), then the causal mask
    /// (-inf above the top-left diagonal) and the `mask` operand (added,
    /// or -inf where an i1 mask is false). The decomposition and the VJP
    /// both start from it, so the forward is spelled once.
    ::mlir::Value buildScores(::mlir::OpBuilder &builder);
  }];
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

def Tfc_CrossEntropyOp : Tfc_Op<"cross_entropy", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "softmax cross-entropy loss of [N, C] logits";
  let description = [{
    The loss of `torch.nn.functional.cross_entropy(logits, labels,
    ignore_index=ignore_index, label_smoothing=label_smoothing,
    reduction=reduction)` for logits `[N, C]` and integer class labels
    `[N]`. Per row `n` with `labels[n] != ignore_index`, with
    `lp = log_softmax(logits[n])` and `e = label_smoothing`:

        loss[n] = -(1 - e) * lp[labels[n]] - (e / C) * sum_c lp[c]

    Rows whose label is `ignore_index` (default -100) contribute nothing.
    `reduction mean` (the default) divides the sum by the number of rows not
    ignored (NaN when all are, as in PyTorch); `reduction sum` does not
    divide. `label_smoothing` lies in `[0, 1]` (default 0). Labels other
    than `ignore_index` must lie in `[0, C)`; they are runtime data, so
    that is not verified. The result is a 0-d tensor of
    accumulationType(logits) (f32 for 16-bit logits): the loss is computed
    in that precision and not rounded back. Defaults are elided when
    printing. Examples:
    ```mlir
    %loss = tfc.cross_entropy %logits, %labels : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
    %loss2 = tfc.cross_entropy %logits2, %labels2 ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<8x10xbf16>, tensor<8xi32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Tfc_FloatMatrix:$logits, Tfc_IndexVector:$labels,
      DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
      DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
      DefaultValuedAttr<Tfc_LossReductionAttr,
                        "::mlir::tfc::LossReduction::mean">:$reduction);
  let results = (outs 0DTensorOf<[Tfc_Float]>:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`ignore_index` $ignore_index^)?
    (`label_smoothing` $label_smoothing^)? (`reduction` `` $reduction^)?
    attr-dict `:` type($logits) `,` type($labels) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TFC_NN_OPS_TD
