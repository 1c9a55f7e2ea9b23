//===- Passes.td - tfc lowering passes ------------------------------------===//
//
// The passes of --tfc-lower-to-exec (docs/execution.md section 1): from a
// graph-level tfc function to a tfcrt module. Each pass lives in its own
// file; the base classes are generated from these definitions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_LOWERING_PASSES_TD
#define TFC_PASSES_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcDecomposePass : Pass<"tfc-decompose", "::mlir::func::FuncOp"> {
  let summary = "Rewrite composite tfc ops into ops with a kernel role";
  let description = [{
    Rewrites every op whose kernel role is Composite into ops that map onto
    one kernel each, and makes matmul batch broadcasting explicit where
    strided-batched GEMM cannot express it:

    - `tfc.attention` becomes `matmul(q, k) transpose_b` (f32 result for
      16-bit operands), `mul` by the scale (default `1/sqrt(D)`), for
      `causal` a top-left lower-triangular mask (`iota`, `compare le`,
      `select` with `-inf`), `softmax` over the last dim, the optional
      `dropout`, a `convert` back to the operands' type when the scores
      were accumulated wider, and `matmul(p, v)`; this equals
      `torch.nn.functional.scaled_dot_product_attention`.
    - `softmax` / `log_softmax` over a non-last dim become `transpose`
      (swapping that dim with the last), the op over the last dim, and the
      same `transpose` back.
    - a `reduce_sum`/`reduce_mean`/`reduce_max` whose dims mix the last
      dimension with leading ones becomes a row reduction over the maximal
      trailing suffix of its dims followed by a column reduction over the
      rest (16-bit sums and means accumulate through f32 so the split does
      not add a rounding step).
    - a `tfc.matmul` whose operand's batch dims are neither the full batch
      shape nor all ones gets a `tfc.broadcast_to` of that operand to the
      full batch shape (one batch stride per operand is all a
      strided-batched GEMM has).
    - `softmax_grad` / `log_softmax_grad` over a non-last dim get the same
      transposes around both operands.
    - `layer_norm_grad` / `rms_norm_grad` become `layer_norm_grad_input` /
      `rms_norm_grad_input` (dx, a row reduction) and, with a weight,
      `reduce_sum` over the leading dims (column reductions) of
      `dy * xhat` (dweight) and `dy` (dbias), in the accumulation type, with
      a `convert` to the weight's type where it differs.

    - `tfc.stop_gradient` becomes its operand and `tfc.straight_through`
      its value (only differentiation, which runs before this pass in every
      pipeline, reads them).

    Afterwards no op has the Composite role; the pass fails on one it does
    not know how to decompose.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
}

def TfcFormKernelsPass : Pass<"tfc-form-kernels", "::mlir::func::FuncOp"> {
  let summary = "Wrap every kernel-role op in its own tfc.fusion";
  let description = [{
    The trivial grouping of unfused compilation: every top-level op with a
    kernel role becomes its own `tfc.fusion` of kind
    `kernelKindForRole(role)`, with the op's distinct operands as inputs.
    `tfc.reshape` stays outside (bufferization turns it into an alias), and
    `tfc.constant` is cloned into every region that uses it; a constant
    still used outside regions (by a reshape or the return) becomes its own
    pointwise kernel. Existing `tfc.fusion` ops are left as they are, so a
    fusion pass can run before or instead of this one. Fails on a composite
    op (run --tfc-decompose first).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
}

def TfcConvertToExecPass : Pass<"tfc-convert-to-exec", "::mlir::ModuleOp"> {
  let summary = "Bufferize a kernel-formed function and convert it to tfcrt";
  let description = [{
    Turns the function `function` (after --tfc-form-kernels) into the
    `tfcrt.entry @forward` of the module:

    - arguments become `tfcrt.external` of role `param` / `input` named by
      their `tfc.param` / `tfc.input` attribute (`input "arg<N>"` when
      unnamed); results become `tfcrt.external output "out<N>"` (`"loss"`
      for the single scalar result of `@loss`);
    - every other value gets a `tfcrt.arena_view` at an offset planned by
      liveness (first-fit in program order, `alignment`-byte aligned;
      buffers with overlapping lifetimes never share bytes) and the module
      gets `tfcrt.arena` with the planned size;
    - `tfc.reshape` becomes `tfcrt.alias`;
    - each `tfc.fusion` becomes a `tfcrt.kernel` symbol `@k<N>` (body moved,
      `tfc.yield` replaced by `tfcrt.yield`) and a `tfcrt.launch`; a `gemm`
      fusion holding one `tfc.matmul` becomes a `tfcrt.gemm` instead, with
      the row-major cuBLASLt fields (a rank-2 `b` against rank-N `a`
      flattens `a`'s leading dims into `m`);
    - a result that is an argument, a reshape or another result gets a
      `tfcrt.copy` into its output buffer; every other result is written
      by its kernel directly into the output buffer;
    - training steps (--tfc-build-train-step): `tfc.state` arguments
      become externals of role `state`; a result marked `{tfc.update =
      "X"}` gets no output buffer. Its kernel writes it straight into the
      external X (in place) when that kernel is the last step that reads
      X's old value and reads it only at the index of the element it
      writes (tfcrt::checkInPlaceOutput: elementwise and optimizer ops, no
      broadcast, view, reduction, gather or GEMM); the kernel then declares
      the pair in `in_place`. An update computed by a kernel without inputs
      (the zeros accumulators are reset to) is recomputed by its own clone
      of that kernel after the last launch, so it is written in place too.
      Any other update is copied over X after the last launch (so no
      launch reads an overwritten value; copies of arguments go first so
      they read the old values); a result marked `{tfc.output = "N"}` is
      the output external N. The entry is named after the function when
      that is `train_step`, `accumulate_step` or `apply_step`, `forward`
      otherwise;
    - `function=a,b` lowers several functions, in that order, into entries
      of ONE program (gradient accumulation's `accumulate_step` and
      `apply_step`): kernel symbols are numbered across all entries, each
      entry declares the externals it binds (the artifact writer gives one
      name one buffer, and rejects two declarations of a name that differ
      in dtype, shape or role), and the single `tfcrt.arena` is as large
      as the largest entry's plan: entries never run at the same time and
      nothing in the arena outlives one.

    The functions are erased afterwards. Fails with a diagnostic on two
    functions that would both become `@forward`, on ops
    outside fusions (other than reshape and the return), on gemm fusions
    with prologue/epilogue ops, and on batch broadcasting that strides
    cannot express (run --tfc-decompose first).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect",
                           "::mlir::tfcrt::TfcrtDialect"];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"loss\"",
           "The function to lower into tfcrt.entry @forward, or a "
           "comma-separated list of functions lowered into entries of one "
           "program">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Byte alignment of every arena offset (a power of two)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Write updated params and state straight into their externals "
           "where that is safe (false: always copy them after the last "
           "launch, for differential tests)">,
  ];
}

def TfcDedupeKernelsPass : Pass<"tfc-dedupe-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep one tfcrt.kernel of each distinct body and launch it "
                "many times";
  let description = [{
    Merges the `tfcrt.kernel` symbols of a lowered module that differ in
    nothing but their name: the same kind, signature and other attributes
    (`in_place`, and any a later pass adds, such as a launch schedule) and
    bodies that are equivalent op for op (same ops, attributes, types and
    use-def structure; locations ignored). The first kernel of each class in
    module order is kept, every `tfcrt.launch` of the others is rewritten to
    launch it, and the others are erased, so the artifact holds, and NVRTC
    compiles, each distinct kernel once. Unfused compilation makes many
    kernels alike: every layer of a transformer repeats the same shapes
    (gpt2-small's train step: 761 kernels, 54 distinct).
    Part of --tfc-lower-to-exec. Kernel symbols are `@k<N>` from
    --tfc-convert-to-exec and keep their numbers (with gaps afterwards).

    ```mlir
    tfcrt.kernel @k0 pointwise (tensor<4xf32>) -> tensor<4xf32> { ... tfc.relu ... }
    tfcrt.kernel @k1 pointwise (tensor<4xf32>) -> tensor<4xf32> { ... tfc.relu ... }
    tfcrt.launch @k0 (%a) -> (%b) ...
    tfcrt.launch @k1 (%b) -> (%c) ...
    // becomes
    tfcrt.kernel @k0 pointwise (tensor<4xf32>) -> tensor<4xf32> { ... tfc.relu ... }
    tfcrt.launch @k0 (%a) -> (%b) ...
    tfcrt.launch @k0 (%b) -> (%c) ...
    ```
  }];
  let dependentDialects = ["::mlir::tfcrt::TfcrtDialect"];
}

def TfcScheduleKernelsPass : Pass<"tfc-schedule-kernels", "::mlir::ModuleOp"> {
  let summary = "Choose each tfcrt.kernel's launch schedule for a target";
  let description = [{
    Sets the `schedule` of every `tfcrt.kernel` of a lowered module to what
    `chooseKernelSchedule` (dialects/tfc/TfcKernelSchedule.h) picks for
    `target`: threads per block, rows per block, vector width and grid cap
    on `sm_80` or `sm_90`; `#tfc.schedule<target = host>` for the host
    interpreter, for which no CUDA source is generated. The CUDA emitters
    read the schedule, so the IR shows how every kernel will launch. A
    schedule already present is replaced. Part of --tfc-lower-to-exec
    (option `target`, default sm_90). Option `row-unroll` replaces the
    unroll (elements loaded ahead) of row kernels with a block per row.
    Fails with a diagnostic on an unknown target or an unroll out of
    range.
    ```mlir
    tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32> { ... }
    // becomes, with target=sm_90
    tfcrt.kernel @k0 pointwise (tensor<1024xf32>) -> tensor<1024xf32>
        schedule #tfc.schedule<target = sm_90, threads = 256,
                               vector_bytes = 16, max_blocks = 8448> { ... }
    ```
  }];
  let dependentDialects = ["::mlir::tfcrt::TfcrtDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "The machine to schedule for: sm_80, sm_90 or host">,
    Option<"rowUnroll", "row-unroll", "int64_t", /*default=*/"0",
           "The unroll of block-per-row row_reduction kernels, 1 to 16 "
           "(0: the target's choice); for experiments and A/B benchmarks">,
  ];
}

def TfcKernelReportPass : Pass<"tfc-kernel-report", "::mlir::ModuleOp"> {
  let summary = "Print the kernels, launches, GEMMs, copies and bytes moved "
                "of a lowered module";
  let description = [{
    An analysis of a lowered (tfcrt) module; the IR is left unchanged. It
    reads the tfcrt level rather than the graph because only there is what
    runs decided: the grouping into kernels, which launches share a kernel,
    the GEMMs, the copies that remain and the buffers each step touches.
    For each `tfcrt.entry`, in module order, it prints one line per kernel
    the entry launches (in order of first launch): the symbol, its kind,
    the tfc ops its body holds, the bytes it reads and writes per launch
    (the sizes of its input and output buffers) and how many times the
    entry launches it; then the entry's totals: launches, distinct kernel
    symbols launched and, among them, distinct bodies (kernels that
    --tfc-dedupe-kernels would merge count once), GEMMs, copies, and the
    MiB moved (2^20 bytes): non-GEMM traffic (launch operands and results,
    plus each copy's source and destination) and GEMM traffic (a, b and c
    of each tfcrt.gemm) separately.

    ```
    tfc kernel report: entry @forward
      kernel  kind       launches  read/launch  written/launch  ops
      @k0     pointwise         1          128             128  tfc.relu
    totals @forward: 1 launches of 1 kernels (1 distinct bodies), 0 GEMMs, 0 copies; moved 0.00 MiB non-GEMM (0.00 launches + 0.00 copies), 0.00 MiB GEMM
    ```

    `format=json` prints the same as one JSON object (`entries`, each with
    `name`, `kernels` and `totals`; byte counts exact). The report goes to
    stderr by default, to stdout with `output=-`, or to the file `output`
    names. Fails with a diagnostic on a module without a `tfcrt.entry`, an
    unknown format or a file it cannot write.
  }];
  let dependentDialects = ["::mlir::tfcrt::TfcrtDialect"];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "text (a table per entry) or json">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Where the report goes: empty for stderr, - for stdout, or a "
           "file path">,
  ];
}

#endif // TFC_PASSES_LOWERING_PASSES_TD
