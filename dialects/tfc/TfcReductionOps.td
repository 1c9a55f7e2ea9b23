//===- TfcReductionOps.td - tfc reduce_sum, reduce_mean, reduce_max, sort -===//
//
// Reductions over a list of dimensions. The result keeps the operand's
// element type; accumulation happens in accumulationType() (fp32 for 16-bit
// floats) inside the kernel, so a bf16 sum is rounded once, at the end.
// Each op reports the kernel it needs from its dims: a trailing suffix of the
// dimensions is a row reduction, dims that leave the last dimension alone
// form a column reduction, anything else is split by lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_REDUCTION_OPS_TD
#define TFC_REDUCTION_OPS_TD

include "dialects/tfc/TfcBase.td"

class Tfc_ReduceOp<string mnemonic, Type tensorType, string what,
                   list<Trait> traits = []>
    : Tfc_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface,
                                  ["getKernelRole", "getRowGeometry"]>]> {
  let summary = what # " over a list of dimensions";
  let arguments = (ins tensorType:$x, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs tensorType:$result);
  // The result type is printed although it is inferred, so that IR states
  // the shape it expects and a mismatch is reported by the verifier.
  let assemblyFormat = [{
    $x `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($x) `->`
    type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;

  let extraClassDeclaration = [{
    /// The reduced dimensions mapped to [0, rank) and sorted (on a verified
    /// op; kernel roles and lowering read them).
    ::llvm::SmallVector<int64_t> getNormalizedDims();
  }];
}

def Tfc_ReduceSumOp : Tfc_ReduceOp<"reduce_sum", Tfc_NumericTensor, "sum"> {
  let description = [{
    Sums `x` over `dims` (non-empty, unique, each in `[-rank, rank)`;
    negative values count from the back, as in `torch.sum`). The reduced
    dimensions are dropped from the result, or kept with size 1 when
    `keepdim` is set. The result has the operand's element type; 16-bit
    floats accumulate in f32 and round once. Example (bias gradient, a
    column reduction, and a row sum):
    ```mlir
    %db = tfc.reduce_sum %dy dims [0, 1]
        : tensor<16x64x128xf32> -> tensor<128xf32>
    %s = tfc.reduce_sum %x dims [-1] keepdim
        : tensor<4x8xbf16> -> tensor<4x1xbf16>
    ```
  }];
}

def Tfc_ReduceMeanOp : Tfc_ReduceOp<"reduce_mean", Tfc_FloatTensor,
                                    "arithmetic mean"> {
  let description = [{
    Averages `x` over `dims`: the sum (accumulated in f32 for 16-bit floats)
    divided by the number of reduced elements. Dims and `keepdim` follow
    `tfc.reduce_sum`; floating-point operands only, as `torch.mean`.
    Example:
    ```mlir
    %m = tfc.reduce_mean %x dims [1] keepdim
        : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
}

def Tfc_ReduceMaxOp : Tfc_ReduceOp<"reduce_max", Tfc_NumericTensor,
                                   "maximum"> {
  let description = [{
    Maximum of `x` over `dims`; NaN propagates (as `torch.amax`). Dims and
    `keepdim` follow `tfc.reduce_sum`. Example (reducing a leading and a
    trailing dimension, which lowering splits into two kernels):
    ```mlir
    %m = tfc.reduce_max %x dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// sort
//===----------------------------------------------------------------------===//

def Tfc_SortOp : Tfc_Op<"sort", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tfc_KernelRoleOpInterface, ["getKernelRole"]>]> {
  let summary = "stable sort of each row (last dimension), with its indices";
  let description = [{
    Sorts every row of `x` (its last dimension) ascending, or descending
    with `descending`, and returns the sorted values and, for each, its
    position in the row (i64), as `torch.sort(x, dim=-1, stable=True)`:
    ties keep their index order, `-0.0` and `+0.0` are equal (a tie), and
    NaN goes after every number ascending and before every number
    descending (NaNs tie with each other). `x` has rank >= 1; `values` has
    its type, `indices` its shape with element type i64. Other dims are
    sorted by transposing them last first. The op is a `sort` kernel of its
    own (one op, nothing fused into it): the host runs a stable sort of each
    row's indices under the comparator of common/SortOrder.h. Its VJP sends
    each value's cotangent back to the position it came from (the indices'
    inverse permutation, itself a sort of the indices, gathers it). Example
    (per-pixel errors of a Lovasz hinge, largest first):
    ```mlir
    %v, %i = tfc.sort %errors descending : tensor<2x2304xf32> -> tensor<2x2304xf32>, tensor<2x2304xi64>
    ```
  }];
  let arguments = (ins Tfc_NumericTensor:$x, UnitAttr:$descending);
  let results = (outs Tfc_NumericTensor:$values, StaticShapeTensorOf<[I64]>:$indices);
  // The result types are printed although they are inferred, so that IR
  // states the shapes it expects and a mismatch is reported.
  let assemblyFormat = [{
    $x (`descending` $descending^)? attr-dict `:` type($x) `->` type($values)
    `,` type($indices)
  }];
}

#endif // TFC_REDUCTION_OPS_TD
