//===- TfcElementwiseOps.td - tfc elementwise ops -------------------------===//
//
// Pointwise math, comparisons, select, dtype conversion and constants. Binary
// ops broadcast numpy-style (shapes aligned at the back; each pair of sizes
// equal or one of them 1); element types never promote implicitly: mixing
// dtypes needs an explicit tfc.convert.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_ELEMENTWISE_OPS_TD
#define TFC_ELEMENTWISE_OPS_TD

include "dialects/tfc/TfcBase.td"

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

class Tfc_UnaryOp<string mnemonic, Type tensorType, string formula,
                  list<Trait> traits = []>
    : Tfc_Op<mnemonic, traits # [Pure, SameOperandsAndResultType,
                                 Tfc_KernelRoleOpInterface]> {
  let summary = "elementwise " # formula;
  let arguments = (ins tensorType:$x);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Tfc_NegOp : Tfc_UnaryOp<"neg", Tfc_NumericTensor, "-x",
    [Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Negates each element. Example:
    ```mlir
    %y = tfc.neg %x : tensor<4x8xf32>
    ```
  }];
}

def Tfc_AbsOp : Tfc_UnaryOp<"abs", Tfc_NumericTensor, "|x|",
    [Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Absolute value of each element. Example:
    ```mlir
    %y = tfc.abs %x : tensor<4x8xbf16>
    ```
  }];
}

def Tfc_ExpOp : Tfc_UnaryOp<"exp", Tfc_FloatTensor, "e^x",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Natural exponential of each element. Example:
    ```mlir
    %y = tfc.exp %x : tensor<16xf32>
    ```
  }];
}

def Tfc_LogOp : Tfc_UnaryOp<"log", Tfc_FloatTensor, "ln(x)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Natural logarithm of each element (-inf at 0, NaN below). Example:
    ```mlir
    %y = tfc.log %x : tensor<16xf32>
    ```
  }];
}

def Tfc_SqrtOp : Tfc_UnaryOp<"sqrt", Tfc_FloatTensor, "sqrt(x)",
    [Tfc_ElementLocal, Tfc_KeepsZeros, Tfc_SlowPathMath]> {
  let description = [{
    Square root of each element. Example:
    ```mlir
    %y = tfc.sqrt %x : tensor<16xf32>
    ```
  }];
}

def Tfc_RsqrtOp : Tfc_UnaryOp<"rsqrt", Tfc_FloatTensor, "1/sqrt(x)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Reciprocal square root of each element. Example:
    ```mlir
    %y = tfc.rsqrt %x : tensor<16xf32>
    ```
  }];
}

def Tfc_CosOp : Tfc_UnaryOp<"cos", Tfc_FloatTensor, "cos(x)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Cosine of each element (radians). Learning-rate schedules (cosine
    decay computed on the device) and rotary embeddings use it. Example:
    ```mlir
    %y = tfc.cos %x : tensor<16xf32>
    ```
  }];
}

def Tfc_SinOp : Tfc_UnaryOp<"sin", Tfc_FloatTensor, "sin(x)",
    [Tfc_ElementLocal, Tfc_KeepsZeros, Tfc_SlowPathMath]> {
  let description = [{
    Sine of each element (radians). Example:
    ```mlir
    %y = tfc.sin %x : tensor<16xf32>
    ```
  }];
}

def Tfc_TanhOp : Tfc_UnaryOp<"tanh", Tfc_FloatTensor, "tanh(x)",
    [Tfc_ElementLocal, Tfc_KeepsZeros, Tfc_SlowPathMath]> {
  let description = [{
    Hyperbolic tangent of each element. Example:
    ```mlir
    %y = tfc.tanh %x : tensor<16xf32>
    ```
  }];
}

// Slow-path math as gelu's erf form, whose CUDA code is the same erff.
def Tfc_ErfOp : Tfc_UnaryOp<"erf", Tfc_FloatTensor, "erf(x)",
    [Tfc_ElementLocal, Tfc_KeepsZeros, Tfc_SlowPathMath]> {
  let description = [{
    The Gauss error function `2/sqrt(pi) * integral_0^x exp(-t^2) dt` of
    each element, as `torch.erf` (+-1 at +-inf, -0 at -0); its gradient is
    `2/sqrt(pi) * exp(-x^2)`. The exact GELU is `tfc.gelu`, not built from
    it. Example:
    ```mlir
    %y = tfc.erf %x : tensor<16xf32>
    ```
  }];
}

def Tfc_SigmoidOp : Tfc_UnaryOp<"sigmoid", Tfc_FloatTensor, "1/(1+e^-x)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Logistic sigmoid of each element. Example:
    ```mlir
    %y = tfc.sigmoid %x : tensor<16xf32>
    ```
  }];
}

def Tfc_ReluOp : Tfc_UnaryOp<"relu", Tfc_FloatTensor, "max(x, 0)",
    [Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Rectified linear unit, `max(x, 0)` (NaN propagates). Example:
    ```mlir
    %y = tfc.relu %x : tensor<32x128xf32>
    ```
  }];
}

def Tfc_SiluOp : Tfc_UnaryOp<"silu", Tfc_FloatTensor, "x*sigmoid(x)",
    [Tfc_ElementLocal, Tfc_KeepsZeros, Tfc_SlowPathMath]> {
  let description = [{
    Sigmoid linear unit (swish), `x * sigmoid(x)`. Example:
    ```mlir
    %y = tfc.silu %x : tensor<32x128xf32>
    ```
  }];
}

def Tfc_GeluOp : Tfc_Op<"gelu", [Pure, SameOperandsAndResultType,
    Tfc_KernelRoleOpInterface, Tfc_ElementLocal, Tfc_KeepsZeros,
    Tfc_SlowPathMath]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` with `Phi` the standard normal CDF. `approximate = none`
    (the default) uses the exact erf form, `approximate = tanh` the form
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` of GPT-2 (and of
    cuBLASLt's GELU epilogue). Both equal torch.nn.functional.gelu with the
    same `approximate` argument. Example:
    ```mlir
    %y = tfc.gelu %x approximate tanh : tensor<16x64x512xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$x,
      DefaultValuedAttr<Tfc_GeluApproximationAttr,
                        "::mlir::tfc::GeluApproximation::none">:$approximate);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = "$x (`approximate` `` $approximate^)? attr-dict `:` type($x)";
}

def Tfc_PowOp : Tfc_Op<"pow", [Pure, SameOperandsAndResultType,
                               Tfc_KernelRoleOpInterface, Tfc_ElementLocal]> {
  let summary = "elementwise power with a scalar exponent";
  let description = [{
    Raises each element to a compile-time scalar exponent, as `torch.pow(x,
    exponent)` with a Python float exponent. Example:
    ```mlir
    %y = tfc.pow %x, 3.000000e+00 : tensor<16xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$x, F64Attr:$exponent);
  let results = (outs Tfc_FloatTensor:$result);
  let assemblyFormat = "$x `,` $exponent attr-dict `:` type($x)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary ops (numpy-style broadcasting)
//===----------------------------------------------------------------------===//

class Tfc_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Tfc_Op<mnemonic, traits # [Pure, SameOperandsElementType,
                                 InferTypeOpAdaptor,
                                 Tfc_KernelRoleOpInterface]> {
  let summary = "elementwise " # formula # " with broadcasting";
  let arguments = (ins Tfc_NumericTensor:$lhs, Tfc_NumericTensor:$rhs);
  let results = (outs Tfc_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
  // The broadcast shape with lhs's element type, for every binary op here.
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return inferBroadcastType(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          ::mlir::getElementTypeOrSelf(adaptor.getLhs().getType()), inferred);
    }
  }];
}

def Tfc_AddOp : Tfc_BinaryOp<"add", "lhs + rhs",
    [Commutative, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Adds two tensors of one element type; shapes broadcast numpy-style and
    the result has the broadcast shape. Example (bias add):
    ```mlir
    %y = tfc.add %x, %b : tensor<16x64x128xf32>, tensor<128xf32>
    ```
  }];
}

def Tfc_SubOp : Tfc_BinaryOp<"sub", "lhs - rhs",
    [Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Subtracts `rhs` from `lhs` with broadcasting. Example:
    ```mlir
    %y = tfc.sub %x, %m : tensor<8x32xf32>, tensor<8x1xf32>
    ```
  }];
}

def Tfc_MulOp : Tfc_BinaryOp<"mul", "lhs * rhs",
    [Commutative, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Multiplies two tensors with broadcasting. Example:
    ```mlir
    %y = tfc.mul %x, %s : tensor<8x32xf32>, tensor<f32>
    ```
  }];
  let hasCanonicalizer = 1;
}

def Tfc_DivOp : Tfc_BinaryOp<"div", "lhs / rhs",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    Divides `lhs` by `rhs` with broadcasting (IEEE division for floats,
    truncating division for integers). Example:
    ```mlir
    %y = tfc.div %x, %n : tensor<8x32xf32>, tensor<8x1xf32>
    ```
  }];
}

def Tfc_MaximumOp : Tfc_BinaryOp<"maximum", "max(lhs, rhs)",
    [Commutative, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Elementwise maximum with broadcasting; NaN propagates as in
    torch.maximum. Example:
    ```mlir
    %y = tfc.maximum %x, %zero : tensor<8x32xf32>, tensor<f32>
    ```
  }];
}

def Tfc_MinimumOp : Tfc_BinaryOp<"minimum", "min(lhs, rhs)",
    [Commutative, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let description = [{
    Elementwise minimum with broadcasting; NaN propagates as in
    torch.minimum. Example:
    ```mlir
    %y = tfc.minimum %x, %clip : tensor<8x32xf32>, tensor<f32>
    ```
  }];
}

// Not Tfc_KeepsZeros: atan2(+0, +0) = +0, but atan2(+-0, -0) = +-pi.
def Tfc_Atan2Op : Tfc_BinaryOp<"atan2", "atan2(lhs, rhs)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    The angle of the point (`rhs`, `lhs`) in radians, in [-pi, pi]:
    `atan2(y, x)` with `y = lhs` first, as C's `atan2` and
    `torch.atan2(input, other)`, with broadcasting; floats only. The signs
    of zeros and infinities follow C: `atan2(+-0, +0) = +-0`,
    `atan2(+-0, -0) = +-pi`, `atan2(+-inf, +inf) = +-pi/4`. The gradient is
    torch's: `x / (x^2 + y^2)` for `lhs`, `-y / (x^2 + y^2)` for `rhs`
    (NaN at the origin). The frontend writes atan, asin and acos with it.
    Example:
    ```mlir
    %angle = tfc.atan2 %y, %x : tensor<8x32xf32>, tensor<8x32xf32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$lhs, Tfc_FloatTensor:$rhs);
  let results = (outs Tfc_FloatTensor:$result);
}

// Not Tfc_KeepsZeros: fmod(+-0, y) = +-0 for y != 0, but fmod(0, 0) = NaN.
def Tfc_FmodOp : Tfc_BinaryOp<"fmod", "fmod(lhs, rhs)",
    [Tfc_ElementLocal, Tfc_SlowPathMath]> {
  let description = [{
    The remainder of `lhs / rhs` truncated toward zero, exactly, as C's
    `fmod` and `torch.fmod(input, other)`: `lhs - n * rhs` with
    `n = trunc(lhs / rhs)` taken in exact arithmetic, so the result has
    `lhs`'s sign (a zero result too) and is smaller than `|rhs|`; with
    broadcasting, floats only. `fmod(x, +-0)` and `fmod(+-inf, y)` are NaN,
    `fmod(x, +-inf) = x` for finite `x`. The gradient is torch's: `g` for
    `lhs`, `-g * trunc(lhs / rhs)` for `rhs` (the quotient rounded, then
    truncated, as torch's `div(rounding_mode="trunc")`). The frontend
    writes torch's fmod, remainder and floor division of floats with it.
    Example:
    ```mlir
    %r = tfc.fmod %x, %m : tensor<8x32xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Tfc_FloatTensor:$lhs, Tfc_FloatTensor:$rhs);
  let results = (outs Tfc_FloatTensor:$result);
}

// Bitwise ops on the two's-complement bits of signless integers (i1, i32,
// i64); no gradient (integer values are never active in autodiff).
class Tfc_BitwiseBinaryOp<string mnemonic, string formula>
    : Tfc_BinaryOp<mnemonic, formula,
                   [Commutative, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let arguments = (ins Tfc_IntTensor:$lhs, Tfc_IntTensor:$rhs);
  let results = (outs Tfc_IntTensor:$result);
}

def Tfc_BitwiseAndOp : Tfc_BitwiseBinaryOp<"bitwise_and", "lhs & rhs"> {
  let description = [{
    The bitwise and of two integer tensors of one element type (i1, i32,
    i64; logical and on i1), with broadcasting, as `torch.bitwise_and`.
    Integers only; no gradient. Example (a hash bucket, a parity mask):
    ```mlir
    %bucket = tfc.bitwise_and %h, %mask : tensor<8x32xi64>, tensor<i64>
    ```
  }];
}

def Tfc_BitwiseOrOp : Tfc_BitwiseBinaryOp<"bitwise_or", "lhs | rhs"> {
  let description = [{
    The bitwise or of two integer tensors of one element type (i1, i32,
    i64; logical or on i1), with broadcasting, as `torch.bitwise_or`.
    Integers only; no gradient. Example:
    ```mlir
    %y = tfc.bitwise_or %x, %bits : tensor<8x32xi32>, tensor<32xi32>
    ```
  }];
}

def Tfc_BitwiseXorOp : Tfc_BitwiseBinaryOp<"bitwise_xor", "lhs ^ rhs"> {
  let description = [{
    The bitwise exclusive or of two integer tensors of one element type
    (i1, i32, i64; `!=` on i1), with broadcasting, as `torch.bitwise_xor`.
    Integers only; no gradient. Example (a spatial hash):
    ```mlir
    %h = tfc.bitwise_xor %hx, %hy : tensor<4096xi64>, tensor<4096xi64>
    ```
  }];
}

// Not Tfc_KeepsZeros: ~0 = -1 (true on i1).
def Tfc_BitwiseNotOp : Tfc_UnaryOp<"bitwise_not", Tfc_IntTensor, "~x",
    [Tfc_ElementLocal]> {
  let description = [{
    Flips every bit of each element of an integer tensor, as
    `torch.bitwise_not`: `~x = -x - 1` on i32 and i64 (two's complement),
    logical not on i1 (whose one bit is its value: `~true = false`).
    Integers only; no gradient. Example:
    ```mlir
    %y = tfc.bitwise_not %x : tensor<8x32xi32>
    ```
  }];
}

// Shifts of i32 / i64 (not i1: torch has no bool shift) by an amount of the
// same type; 0 << b and 0 >> b are 0. The element formulas are
// common/ScalarOps.h's shiftLeft / shiftRight, defined for every amount.
class Tfc_ShiftOp<string mnemonic, string formula>
    : Tfc_BinaryOp<mnemonic, formula, [Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let arguments = (ins Tfc_IndexTensor:$lhs, Tfc_IndexTensor:$rhs);
  let results = (outs Tfc_IndexTensor:$result);
}

def Tfc_ShiftLeftOp : Tfc_ShiftOp<"shift_left", "lhs << rhs"> {
  let description = [{
    Shifts the two's-complement bits of each element of `lhs` left by the
    matching element of `rhs` (i32 or i64, one element type, with
    broadcasting), dropping the bits shifted out: `lhs * 2^rhs` wrapped,
    as `torch.bitwise_left_shift` (`<<`). An amount outside [0, bits) (32
    or 64) gives 0, as torch >= 2.1 (torch 1.13's CPU kernel takes it
    modulo the width). Integers only; no gradient. Example (interleaving
    the bits of a Morton code):
    ```mlir
    %y = tfc.shift_left %x, %s : tensor<4096xi64>, tensor<i64>
    ```
  }];
}

def Tfc_ShiftRightOp : Tfc_ShiftOp<"shift_right", "lhs >> rhs"> {
  let description = [{
    Shifts each element of `lhs` right by the matching element of `rhs`
    (i32 or i64, with broadcasting), arithmetically: the sign bit fills
    the vacated bits, `floor(lhs / 2^rhs)`, as `torch.bitwise_right_shift`
    (`>>`) of signed integers. An amount outside [0, bits) shifts by
    bits - 1 (0 for lhs >= 0, -1 below), as torch >= 2.1. Integers only;
    no gradient. Example:
    ```mlir
    %y = tfc.shift_right %x, %s : tensor<8x32xi32>, tensor<32xi32>
    ```
  }];
}

def Tfc_CompareOp : Tfc_Op<"compare", [Pure, SameOperandsElementType,
                                       InferTypeOpAdaptor,
                                       Tfc_KernelRoleOpInterface,
                                       Tfc_ElementLocal]> {
  let summary = "elementwise comparison producing i1";
  let description = [{
    Compares two tensors with broadcasting and yields an i1 tensor of the
    broadcast shape. Floating-point comparisons are ordered except `ne`,
    which is true for NaN operands (as in C and PyTorch). Example:
    ```mlir
    %m = tfc.compare lt, %x, %y : tensor<8x32xf32>, tensor<8x1xf32>
    ```
  }];
  let arguments = (ins Tfc_CompareDirectionAttr:$direction,
                       Tfc_Tensor:$lhs, Tfc_Tensor:$rhs);
  let results = (outs Tfc_BoolTensor:$result);
  let assemblyFormat = [{
    `` $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

def Tfc_SelectOp : Tfc_Op<"select", [Pure, InferTypeOpAdaptor,
    AllElementTypesMatch<["on_true", "on_false"]>,
    Tfc_KernelRoleOpInterface, Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let summary = "elementwise choice by an i1 condition";
  let description = [{
    `condition ? on_true : on_false` per element; all three operands
    broadcast to one shape. Example (causal mask):
    ```mlir
    %y = tfc.select %mask, %scores, %neg_inf
        : tensor<64x64xi1>, tensor<16x4x64x64xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Tfc_BoolTensor:$condition, Tfc_Tensor:$on_true,
                       Tfc_Tensor:$on_false);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    type($condition) `,` type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Conversion and constants
//===----------------------------------------------------------------------===//

def Tfc_ConvertOp : Tfc_Op<"convert", [Pure, AllShapesMatch<["x", "result"]>,
                                       Tfc_KernelRoleOpInterface,
                                       Tfc_ElementLocal, Tfc_KeepsZeros]> {
  let summary = "elementwise dtype conversion";
  let description = [{
    Converts each element to the result's element type: floats round to
    nearest even, float to integer truncates toward zero (as PyTorch's
    `.to()`), integer or float to i1 tests `!= 0`. Example:
    ```mlir
    %h = tfc.convert %x : tensor<16x128xf32> -> tensor<16x128xbf16>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tfc_ConstantOp : Tfc_Op<"constant", [ConstantLike, Pure,
    InferTypeOpAdaptor, Tfc_KernelRoleOpInterface]> {
  let summary = "tensor constant (splat or dense)";
  let description = [{
    A compile-time constant tensor; the result type is the attribute's
    type. Splats (`dense<0.0>`) cost nothing to materialize in a kernel.
    Example:
    ```mlir
    %zero = tfc.constant dense<0.000000e+00> : tensor<f32>
    %table = tfc.constant dense<[1, 2, 3]> : tensor<3xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gradient control
//===----------------------------------------------------------------------===//

def Tfc_StopGradientOp : Tfc_Op<"stop_gradient", [Pure,
                                                  SameOperandsAndResultType]> {
  let summary = "the operand, as a constant for differentiation";
  let description = [{
    Returns `x` unchanged; `--tfc-autodiff` (and the train step's gradients
    stage) treats the result as a constant, so no gradient flows through it
    to `x`: PyTorch's `detach()` and values computed under `torch.no_grad()`,
    JAX's `stop_gradient`.

    It only means something to differentiation: the differentiated function
    loses its stop_gradients once its backward is built, and
    `--tfc-decompose` replaces any other by its operand, so kernels never
    hold one. Not folded by canonicalization (that would drop it before the
    gradient is taken). Example (a loss whose gradient treats `s` as fixed):
    ```mlir
    %s = tfc.stop_gradient %h : tensor<4x8xf32>
    %p = tfc.mul %h, %s : tensor<4x8xf32>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Tfc_StraightThroughOp : Tfc_Op<"straight_through", [Pure,
    AllTypesMatch<["value", "source", "result"]>]> {
  let summary = "`value`, differentiated as if it were `source`";
  let description = [{
    Returns `value`; `--tfc-autodiff` passes the result's cotangent
    unchanged to `source` and none to `value` (a straight-through
    estimator). It is what PyTorch computes for an in-place op run under
    `torch.no_grad()` on a tensor that requires grad (`h.clamp_(-1, 1)`,
    the norm clamps inside `F.cosine_similarity`): the tensor takes the
    new value but keeps its autograd history, so its gradient flows back
    as if the op were the identity. Writing it as
    `source + stop_gradient(value - source)` would change the value
    (rounding, and NaN where `source` is infinite).

    Like `tfc.stop_gradient` it only means something to differentiation:
    the differentiated function loses it once its backward is built, and
    `--tfc-decompose` replaces any other by `value`. Not folded by
    canonicalization. Example (h clamped under no_grad):
    ```mlir
    %c = tfc.maximum %h, %lo : tensor<4x8xf32>, tensor<f32>
    %t = tfc.straight_through %c, %h : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$value, Tfc_Tensor:$source);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$value `,` $source attr-dict `:` type($result)";
}

#endif // TFC_ELEMENTWISE_OPS_TD
