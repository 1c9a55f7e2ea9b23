//===- TfcrtOps.td - tfcrt ops --------------------------------------------===//
//
// The ops of the exec level, in the order a lowered module uses them: the
// arena and kernel symbols at the top level, then the entry function with
// its buffer bindings and steps. docs/execution.md section 2 is the contract.
//
//===----------------------------------------------------------------------===//

#ifndef TFCRT_OPS_TD
#define TFCRT_OPS_TD

include "dialects/tfcrt/TfcrtBase.td"
include "dialects/tfc/TfcBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// A buffer: a statically shaped memref of a tfc element type with the
/// identity (row-major, contiguous) layout and no memory space, because the
/// runtime addresses every buffer as one contiguous byte range.
def Tfcrt_Buffer : Type<And<[
      StaticShapeMemRefOf<[Tfc_Element]>.predicate,
      CPred<"::llvm::cast<::mlir::MemRefType>($_self).getLayout()"
            ".isIdentity()">,
      CPred<"!::llvm::cast<::mlir::MemRefType>($_self).getMemorySpace()">]>,
    "statically shaped memref of a tfc element type (f16, bf16, f32, f64, "
    "i1, i32, i64) with identity layout", "::mlir::MemRefType">;

class Tfcrt_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfcrt_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Module level: arena, kernel
//===----------------------------------------------------------------------===//

def Tfcrt_ArenaOp : Tfcrt_Op<"arena", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "the one device memory arena of a lowered module";
  let description = [{
    Declares the arena from which every `tfcrt.arena_view` of the module is
    carved: `size` bytes (non-negative), with every view offset a multiple
    of `alignment` (a power of two). A module has at most one arena; the
    runtime allocates it once and reuses it across steps. Example:
    ```mlir
    tfcrt.arena size 1310720 alignment 256
    ```
  }];
  let arguments = (ins I64Attr:$size, I64Attr:$alignment);
  let assemblyFormat = "`size` $size `alignment` $alignment attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The arena of the module enclosing `op` (or `op` itself when it is the
    /// module), or a null op when there is none.
    static ArenaOp lookup(::mlir::Operation *op);
  }];
}

def Tfcrt_KernelOp : Tfcrt_Op<"kernel", [Symbol, IsolatedFromAbove,
    SingleBlock, HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel symbol: one tensor-level body of a known kind";
  let description = [{
    One GPU kernel (and host program) of kind `kind` (tfc's kernel kinds:
    `pointwise`, `row_reduction`, `column_reduction`, `gather`,
    `multi_tensor`, `gemm`), with the signature `(inputs) -> outputs` over
    tensors. The body is the body of the `tfc.fusion` it was lowered from,
    unchanged except for its terminator: block arguments are the inputs and
    `tfcrt.yield` returns the outputs, in the order of a `tfcrt.launch`'s
    operands. The verifier applies the same kernel rules as `tfc.fusion`
    (TfcKernelRules.h). Codegen reads the body; it is never executed as IR.
    Example (bias add):
    ```mlir
    tfcrt.kernel @k0 pointwise (tensor<16x64x128xf32>, tensor<128xf32>) -> tensor<16x64x128xf32> {
    ^bb0(%a: tensor<16x64x128xf32>, %b: tensor<128xf32>):
      %0 = tfc.add %a, %b : tensor<16x64x128xf32>, tensor<128xf32>
      tfcrt.yield %0 : tensor<16x64x128xf32>
    }
    ```

    `schedule`, when present, is the launch --tfc-schedule-kernels chose
    for the target (`#tfc.schedule<...>`, TfcKernelSchedule.h); the
    verifier checks that codegen can emit the body with it, and a kernel
    without one is emitted with the default target's choice. Example:
    `tfcrt.kernel @k3 row_reduction (...) -> ... schedule
    #tfc.schedule<target = sm_90, threads = 256, rows_per_block = 8,
    max_blocks = 65535> { ... }`.

    `in_place`, when present, has one entry per output: the index of the
    input whose buffer a launch may also pass for that output (an updated
    parameter or moment written over its old value), or -1. Each pair must
    satisfy checkInPlaceOutput (TfcrtInPlace.h: same type, and the kernel
    reads that input only at the index of the output element it writes, or
    the adamw8bit state rule), and no two outputs name one input. Codegen
    drops `__restrict__` from both parameters of a pair. Example (an AdamW
    step updating the parameter and both moments in place):
    ```mlir
    tfcrt.kernel @k7 multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) in_place [0, 2, 3] {
    ^bb0(%p: tensor<64xf32>, %g: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<i64>):
      %p2, %m2, %v2 = tfc.adamw %p, %g, %m, %v, %lr, %t : tensor<64xf32>, tensor<64xf32>, tensor<f32>
      tfcrt.yield %p2, %m2, %v2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Tfc_KernelKindAttr:$kind,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DenseI64ArrayAttr>:$in_place,
                       OptionalAttr<Tfc_KernelScheduleAttr>:$schedule);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `` $kind custom<KernelSignature>($function_type)
    (`in_place` $in_place^)? (`schedule` $schedule^)? attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the kernel with an entry block whose arguments have the
    // signature's input types; the caller fills the block and its yield.
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::tfc::KernelKind":$kind,
                   "::mlir::FunctionType":$functionType)>
  ];
  let extraClassDeclaration = [{
    /// The single block of the body; its arguments are the kernel inputs.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The terminator returning the kernel's outputs.
    YieldOp getYield();
    /// The tensor types of the inputs (block arguments), in launch order.
    ::llvm::ArrayRef<::mlir::Type> getInputTypes() {
      return getFunctionType().getInputs();
    }
    /// The tensor types of the outputs (yielded values), in launch order.
    ::llvm::ArrayRef<::mlir::Type> getOutputTypes() {
      return getFunctionType().getResults();
    }
    /// The input whose buffer output `output` may share (`in_place`), or
    /// std::nullopt.
    ::std::optional<unsigned> getInPlaceInput(unsigned output);
    /// A hash of everything but the name: attributes, signature and body
    /// (locations ignored). Equivalent kernels hash alike.
    ::llvm::hash_code hashIgnoringName();
    /// Whether `other` is this kernel but for its name: the same attributes
    /// other than `sym_name` and an equivalent body (same ops, attributes,
    /// types and use-def structure; locations ignored).
    bool isEquivalentIgnoringName(KernelOp other);
  }];
}

def Tfcrt_YieldOp : Tfcrt_Op<"yield", [Pure, HasParent<"KernelOp">,
                                       ReturnLike, Terminator]> {
  let summary = "returns the outputs of a tfcrt.kernel body";
  let description = [{
    Terminates a `tfcrt.kernel` body; its operands are the kernel's outputs
    and match the kernel's result types one to one. (`tfc.yield` cannot be
    used here: it belongs to `tfc.fusion`.) Example:
    ```mlir
    tfcrt.yield %y, %mean : tensor<16x128xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Variadic<Tfc_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Entry functions
//===----------------------------------------------------------------------===//

def Tfcrt_EntryOp : Tfcrt_Op<"entry", [Symbol, IsolatedFromAbove, SingleBlock,
    NoRegionArguments, HasParent<"::mlir::ModuleOp">]> {
  let summary = "one step kind: buffer bindings and steps in order";
  let description = [{
    An entry point the runtime runs (`forward` now; `train_step`,
    `accumulate`, `apply` later). A `refresh` entry computes state derived
    from the parameters (the 16-bit weight copies of --tfc-weight-copies):
    the runtime runs it by itself before any other entry whenever a
    parameter was set since it last ran. The body binds buffers
    (`tfcrt.external`, `tfcrt.arena_view`, `tfcrt.alias`) and runs steps
    (`tfcrt.launch`, `tfcrt.gemm`, `tfcrt.copy`) in program order, ending
    with `tfcrt.return`. External names are unique within an entry because
    the caller binds them by name. Example:
    ```mlir
    tfcrt.entry @forward {
      %x = tfcrt.external input "x" : memref<4x8xf32>
      %y = tfcrt.external output "out0" : memref<4x8xf32>
      tfcrt.copy %x -> %y : memref<4x8xf32>
      tfcrt.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, UnitAttr:$refresh);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$sym_name (`refresh` $refresh^)? attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the entry with an empty body block.
    OpBuilder<(ins "::llvm::StringRef":$name, CArg<"bool", "false">:$refresh)>
  ];
  let extraClassDeclaration = [{
    /// The single block of the body.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Tfcrt_ReturnOp : Tfcrt_Op<"return", [Pure, HasParent<"EntryOp">,
                                         ReturnLike, Terminator]> {
  let summary = "ends a tfcrt.entry";
  let description = [{
    Terminates the body of a `tfcrt.entry`. Results are written to output
    buffers, so it has no operands. Example:
    ```mlir
    tfcrt.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

// External buffers have no memory-effect traits on purpose: an unused
// parameter or input is still bound by name, so it must never be erased as
// dead code.
def Tfcrt_ExternalOp : Tfcrt_Op<"external", [HasParent<"EntryOp">]> {
  let summary = "a buffer the caller binds by name";
  let description = [{
    A buffer owned by the caller: a parameter (`param`, named as in the
    state dict), a batch input (`input`) or a result (`output`). The name is
    non-empty and unique within the entry. Example:
    ```mlir
    %w = tfcrt.external param "wte.weight" : memref<256x128xf32>
    %l = tfcrt.external output "loss" : memref<f32>
    ```
  }];
  let arguments = (ins Tfcrt_BufferRoleAttr:$role, StrAttr:$name);
  let results = (outs Tfcrt_Buffer:$buffer);
  let assemblyFormat = "`` $role $name attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tfcrt_ArenaViewOp : Tfcrt_Op<"arena_view", [Pure,
                                                HasParent<"EntryOp">]> {
  let summary = "a buffer at a planned offset of the arena";
  let description = [{
    The buffer occupying bytes `[offset, offset + size)` of the module's
    `tfcrt.arena`, where `size` is the element count times the element's
    storage size (i1 takes one byte). The offset is a multiple of the
    arena's alignment and the buffer lies inside the arena. Views whose
    lifetimes do not overlap may share bytes: that is the arena plan.
    Example:
    ```mlir
    %e = tfcrt.arena_view offset 0 : memref<16x64x128xf32>
    ```
  }];
  let arguments = (ins I64Attr:$offset);
  let results = (outs Tfcrt_Buffer:$buffer);
  let assemblyFormat = "`offset` $offset attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tfcrt_AliasOp : Tfcrt_Op<"alias", [Pure, HasParent<"EntryOp">]> {
  let summary = "the same bytes viewed with another shape";
  let description = [{
    Reinterprets `source` (row-major) with another static shape of the same
    element type and element count: the lowering of `tfc.reshape`, which
    therefore costs no kernel. Example:
    ```mlir
    %f = tfcrt.alias %e : memref<16x64x128xf32> -> memref<1024x128xf32>
    ```
  }];
  let arguments = (ins Tfcrt_Buffer:$source);
  let results = (outs Tfcrt_Buffer:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Steps: launch, gemm, copy
//===----------------------------------------------------------------------===//

def Tfcrt_LaunchOp : Tfcrt_Op<"launch", [HasParent<"EntryOp">,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs a tfcrt.kernel on buffers";
  let description = [{
    Launches kernel `kernel` reading `inputs` and writing `outputs`. Each
    buffer corresponds to the kernel's tensor of the same position (inputs
    to block arguments, outputs to yielded values) and has its shape and
    element type; the verifier checks that the kernel exists and that the
    signatures agree. An output buffer never overlaps another output or an
    input (the same buffer, views of one root, or overlapping arena bytes),
    except that output k may be the very buffer of input `in_place[k]` of
    the kernel (an update in place). Example:
    ```mlir
    tfcrt.launch @k0 (%x, %b) -> (%y) : (memref<16x64x128xf32>, memref<128xf32>) -> memref<16x64x128xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<Tfcrt_Buffer>:$inputs,
                       Variadic<Tfcrt_Buffer>:$outputs);
  let assemblyFormat = [{
    $kernel ` ` `(` $inputs `)` `->` `(` $outputs `)` attr-dict `:`
    functional-type($inputs, $outputs)
  }];
}

def Tfcrt_GemmOp : Tfcrt_Op<"gemm", [HasParent<"EntryOp">,
                                      AttrSizedOperandSegments]> {
  let summary = "a cuBLASLt-style row-major strided-batched GEMM";
  let description = [{
    `C[i] = alpha * op(A[i]) * op(B[i]) + beta * C[i]` for `i` in
    `[0, batch)`, where `op` transposes when `transpose_a` / `transpose_b`
    is set, `op(A[i])` is `m x k`, `op(B[i])` is `k x n` and `C[i]` is
    `m x n`. Matrices are row-major: `lda`, `ldb`, `ldc` are the element
    distances between consecutive rows of the stored `A`, `B`, `C`
    (stored `A` is `m x k`, or `k x m` when transposed, so `lda` is at least
    its column count; likewise `B`), and `stride_a`, `stride_b`,
    `stride_c` the element distances between consecutive batch matrices
    (0 broadcasts one matrix over the batch; never for C). These are the
    cuBLASLt descriptor fields: `a_type`, `b_type`, `c_type` are the
    buffers' element types (A and B share a float type; C has it too, or
    f32 for 16-bit A and B), `compute_type` is the accumulation type (f32,
    f64 for f64 operands, or tf32 for f32 operands: TF32 tensor cores, which
    round the operands to 10 mantissa bits; the host computes those in f32). `epilogue` applies pointwise math to the
    product P (in `c_type`) before it is stored (cuBLASLt's epilogues),
    with `beta` 0 and `batch` 1: `x = P + bias[j]` for the epilogues ending
    in `bias` (`bias` an `n`-element buffer of `c_type` broadcast over the
    rows), else `x = P`; then C is `x` (`bias`), `relu(x)` (`relu`,
    `relu_bias`) or `gelu_tanh(x)` (`gelu`, `gelu_bias`, `gelu_aux`,
    `gelu_aux_bias`); the `gelu_aux` forms also write `x` (the GELU input
    its backward reads) into `aux`, laid out like C. The backward
    epilogues read `aux` instead (the stored GELU input x): `dgelu` stores
    `gelu_grad_tanh(P, x)`, `dgelu_bgrad` also writes the sum of that over
    the rows (the bias gradient, n elements of `c_type`) into `bias`. The
    math is tfc.add's, tfc.relu's, tfc.gelu's, tfc.gelu_grad's (approximate
    tanh) and tfc.reduce_sum's. The verifier checks every field
    against the operand buffers: every element a GEMM reads or writes lies
    inside its buffer, and C and aux overlap no operand. Example (a linear
    layer over 16x64 tokens,
    `y = x W^T`, leading dims flattened into m):
    ```mlir
    tfcrt.gemm %x, %w -> %y transpose_b m 1024 n 384 k 128 batch 1
        lda 128 ldb 128 ldc 384 stride_a 0 stride_b 0 stride_c 0
        types(f32, f32) -> f32 compute f32 epilogue none
        alpha 1.000000e+00 beta 0.000000e+00
        : memref<16x64x128xf32>, memref<384x128xf32> -> memref<16x64x384xf32>
    ```
    and the first MLP layer of a training step, whose GELU input the
    backward reads from `%pre`:
    ```mlir
    tfcrt.gemm %x, %w bias %b -> %h aux %pre transpose_b m 1024 n 512 k 128
        batch 1 lda 128 ldb 128 ldc 512 stride_a 0 stride_b 0 stride_c 0
        types(f32, f32) -> f32 compute f32 epilogue gelu_aux_bias
        alpha 1.000000e+00 beta 0.000000e+00
        : memref<16x64x128xf32>, memref<512x128xf32>, memref<512xf32>
          -> memref<16x64x512xf32>, memref<16x64x512xf32>
    ```
  }];
  let arguments = (ins Tfcrt_Buffer:$a, Tfcrt_Buffer:$b,
      Optional<Tfcrt_Buffer>:$bias, Tfcrt_Buffer:$c,
      Optional<Tfcrt_Buffer>:$aux,
      UnitAttr:$transpose_a, UnitAttr:$transpose_b,
      I64Attr:$m, I64Attr:$n, I64Attr:$k, I64Attr:$batch,
      I64Attr:$lda, I64Attr:$ldb, I64Attr:$ldc,
      I64Attr:$stride_a, I64Attr:$stride_b, I64Attr:$stride_c,
      TypeAttr:$a_type, TypeAttr:$b_type, TypeAttr:$c_type,
      TypeAttr:$compute_type, Tfcrt_GemmEpilogueAttr:$epilogue,
      F64Attr:$alpha, F64Attr:$beta);
  let assemblyFormat = [{
    $a `,` $b (`bias` $bias^)? `->` $c (`aux` $aux^)?
    (`transpose_a` $transpose_a^)?
    (`transpose_b` $transpose_b^)?
    `m` $m `n` $n `k` $k `batch` $batch `lda` $lda `ldb` $ldb `ldc` $ldc
    `stride_a` $stride_a `stride_b` $stride_b `stride_c` $stride_c
    `types` `(` $a_type `,` $b_type `)` `->` $c_type `compute` $compute_type
    `epilogue` `` $epilogue `alpha` $alpha `beta` $beta attr-dict `:`
    type($a) `,` type($b) (`,` type($bias)^)? `->` type($c)
    (`,` type($aux)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The epilogue's operands: bias exactly for the epilogues ending in
    /// `bias`, aux exactly for the `gelu_aux` ones, their types and
    /// overlaps.
    ::mlir::LogicalResult verifyEpilogue();
    /// The aux buffer, when present: C's type and size, overlapping nothing.
    ::mlir::LogicalResult verifyAux();
  }];
}

def Tfcrt_CopyOp : Tfcrt_Op<"copy", [HasParent<"EntryOp">]> {
  let summary = "copies the bytes of one buffer into another";
  let description = [{
    Copies `src` into `dst`; both have the same size in bytes (shapes and
    element types may differ: the bytes are copied as they are) and are
    distinct buffers. The type is written once when both are the same.
    Lowering uses it for a result that is directly an argument. Example:
    ```mlir
    tfcrt.copy %x -> %y : memref<4x8xf32>
    tfcrt.copy %a -> %b : memref<32xf32> -> memref<4x8xf32>
    ```
  }];
  let arguments = (ins Tfcrt_Buffer:$src, Tfcrt_Buffer:$dst);
  let assemblyFormat = [{
    $src `->` $dst attr-dict `:` custom<CopyTypes>(type($src), type($dst))
  }];
  let hasVerifier = 1;
}

#endif // TFCRT_OPS_TD
