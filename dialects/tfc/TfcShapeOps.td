//===- TfcShapeOps.td - tfc shape ops -------------------------------------===//
//
// Ops that move elements without computing on them. Each output element is
// one input element at an index-computable position (or, for pad and iota, a
// value known at compile time), so all of them are pointwise for fusion:
// codegen remaps the index instead of materializing the moved tensor. Shapes
// are static; where the result shape follows from the operands and
// attributes it is inferred, and it is still printed so a mismatch is
// reported instead of silently re-inferred.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_SHAPE_OPS_TD
#define TFC_SHAPE_OPS_TD

include "dialects/tfc/TfcBase.td"

def Tfc_ReshapeOp : Tfc_Op<"reshape", [Pure,
    AllElementTypesMatch<["x", "result"]>, Tfc_KernelRoleOpInterface]> {
  let summary = "reinterpret a tensor with another shape";
  let description = [{
    Returns the elements of `x` in row-major order under the result's shape,
    as `torch.reshape`. The element type is unchanged and the element count
    must match. Example:
    ```mlir
    %y = tfc.reshape %x : tensor<16x64x128xf32> -> tensor<1024x128xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tfc_TransposeOp : Tfc_Op<"transpose", [Pure, InferTypeOpAdaptor,
    Tfc_KernelRoleOpInterface]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is dimension `permutation[i]` of `x`, as
    `torch.permute(x, permutation)`; `permutation` is a permutation of
    `[0, rank)`. Example (split attention heads):
    ```mlir
    %y = tfc.transpose %x, [0, 2, 1, 3]
        : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = [{
    $x `,` $permutation attr-dict `:` type($x) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tfc_BroadcastToOp : Tfc_Op<"broadcast_to", [Pure,
    AllElementTypesMatch<["x", "result"]>, Tfc_KernelRoleOpInterface]> {
  let summary = "broadcast a tensor to a larger shape";
  let description = [{
    Expands `x` numpy-style to the result shape, as `torch.broadcast_to`:
    shapes align at the back and each size of `x` is 1 or equals the result
    size; missing leading dimensions are added. Example:
    ```mlir
    %y = tfc.broadcast_to %x : tensor<128xf32> -> tensor<16x64x128xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tfc_SliceOp : Tfc_Op<"slice", [Pure, InferTypeOpAdaptor,
    Tfc_KernelRoleOpInterface]> {
  let summary = "strided slice of a tensor";
  let description = [{
    Takes, in each dimension `d`, the elements `start[d], start[d] + step[d],
    ...` below `limit[d]`, as `x[start:limit:step]` in Python. Requires
    `0 <= start <= limit <= size` and `step >= 1` (1 when `step` is absent);
    result size `ceil((limit - start) / step)`. Examples:
    ```mlir
    %y = tfc.slice %x [0, 0, 128] to [16, 64, 256]
        : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
    %z = tfc.slice %w [0, 0] to [8, 8] step [2, 1]
        : tensor<8x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit,
                       OptionalAttr<DenseI64ArrayAttr>:$step);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = [{
    $x $start `to` $limit (`step` $step^)? attr-dict `:` type($x) `->`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// The step of every dimension (all 1 when the attribute is absent).
    ::llvm::SmallVector<int64_t> getStepOrOnes();
  }];
  let hasFolder = 1;
}

def Tfc_ConcatOp : Tfc_Op<"concat", [Pure, InferTypeOpAdaptor,
    Tfc_KernelRoleOpInterface]> {
  let summary = "concatenate tensors along a dimension";
  let description = [{
    Joins one or more tensors of one rank and element type along `dim`
    (negative counts from the back), as `torch.cat`; all other sizes must
    be equal. Example:
    ```mlir
    %y = tfc.concat %a, %b dim 1
        : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfc_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

def Tfc_PadOp : Tfc_Op<"pad", [Pure, InferTypeOpAdaptor,
    Tfc_KernelRoleOpInterface]> {
  let summary = "pad a tensor with a constant value";
  let description = [{
    Adds `low[d]` elements before and `high[d]` elements after dimension
    `d`, all equal to `value`, as `torch.nn.functional.pad` in constant
    mode. Padding is non-negative; for integer tensors `value` must be an
    integer the element type can hold. Example:
    ```mlir
    %y = tfc.pad %x low [0, 0] high [0, 3] value 0.000000e+00
        : tensor<4x5xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tfc_Tensor:$x, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs Tfc_Tensor:$result);
  let assemblyFormat = [{
    $x `low` $low `high` $high `value` $value attr-dict `:` type($x) `->`
    type($result)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tfc_IotaOp : Tfc_Op<"iota", [Pure, Tfc_KernelRoleOpInterface]> {
  let summary = "0, 1, 2, ... along one dimension";
  let description = [{
    Element `i` has the value of its index along `dim` (negative counts
    from the back), the same across all other dimensions: position ids and
    causal masks are built from it without a constant table. Example:
    ```mlir
    %pos = tfc.iota dim 0 : tensor<64xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Tfc_NumericTensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TFC_SHAPE_OPS_TD
