//===- Passes.td - tfc fusion passes --------------------------------------===//
//
// Kernel fusion (issue 9): after --tfc-form-kernels has wrapped every op in
// its own tfc.fusion, these passes merge fusions into fewer kernels. They
// only change the grouping, so codegen and the runtime never special-case
// fusion; every kernel they form passes the one legality predicate
// (dialects/tfc/TfcKernelRules.h) that the tfc.fusion verifier checks.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUSION_PASSES_TD
#define TFC_PASSES_FUSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcFusePass : Pass<"tfc-fuse", "::mlir::func::FuncOp"> {
  let summary = "Merge one-op kernels into fused pointwise and reduction "
                "kernels";
  let description = [{
    Runs after `--tfc-form-kernels` and before `--tfc-convert-to-exec`.
    Greedily merges `tfc.fusion` regions, testing every candidate kernel
    with `verifyKernelOps` (the predicate the `tfc.fusion` verifier uses).
    First, once, on the one-op kernels:

    0. **GEMM epilogues**: a bias add of a single GEMM's product, then a
       ReLU or GELU (tanh form) of it, each optional, join the GEMM as the
       epilogue cuBLASLt fuses (dialects/tfc/TfcGemmKernel.h); a GELU's
       input stays an output (cuBLASLt's aux matrix) when the backward
       reads it, instead of rule 1 recomputing the bias add there. And
       backward: the GELU gradient whose incoming gradient is a GEMM's
       product (reading the stored GELU input), then its sum over the rows
       (the bias gradient).

    Then, in this order until nothing changes:

    1. **Producers into consumers** (producers visited last to first, so a
       chain collapses in one sweep): a pointwise kernel whose results only
       one kernel reads becomes part of it (vertical pointwise chains, and
       prologues of row/column reductions and gathers: bias + residual add +
       layer_norm, scale + causal mask + softmax). A cheap pointwise kernel
       (at most 16 ops) read by several kernels (at most 8) is *duplicated*
       into each of them when its inputs have no more bytes than its results
       (iota and constant chains, broadcasts of small tensors: every copy
       then reads no more than its reader read before, and nothing is
       stored), and only when every reader can take it.
       Otherwise (rule 1b, once 1a has nothing left) it joins the first
       reader that can take it and its result stays an output of the merged
       kernel for the others.
    2. **Epilogues**: pointwise kernels reading a result of a row
       reduction, column reduction or gather join that kernel; a row
       reduction reading another one over the same rows joins it.

    Rules 1b and 2 only merge along an edge that carries bulk: the reader
    reads at least half as many elements of the producer's results as it
    iterates over. A scalar or a bias read by a large kernel saves nothing
    worth a merge, and merging on such edges would chain every reader of a
    step count into one kernel.
    3. **Siblings**: kernels reading the same value (at least half as many
       elements as the smaller kernel iterates over) merge when their kinds
       combine: column reductions of the same input (bias, gamma and beta
       gradients), row reductions over the same rows, pointwise kernels of
       the same size (the q/k/v split), a pointwise kernel into a reduction
       kernel.
    4. **Optimizer updates**: the multi-tensor kernels (one AdamW/Adam/SGD
       update per parameter as formed) merge into one launch over all their
       tensors, as far as the kernel parameter space allows (480 pointers).

    Reductions, gathers and GEMMs are never duplicated; GEMM kernels (past
    rule 0) and block-quantized kernels are left as they are. A merge never forms a
    cycle (ops that depend on the first kernel and feed the second forbid
    it; other ops in between move after the merged kernel, at most 256 of
    them per merge), a value still
    read outside the merged kernel stays one of its outputs, `tfc.reshape`
    views between merged kernels are cloned into the body, and a kernel
    holds at most 128 ops and 32 inputs (multi-tensor kernels: 1024 ops,
    480 inputs and outputs). A merge never costs an in-place update: a
    kernel that computes a parameter's or state's new value (a `tfc.update`
    result) from the old one, and could write it in place
    (dialects/tfcrt/TfcrtInPlace.h), keeps that ability, so an accumulator's
    add stays out of a reduction's epilogue and a step increment out of a
    kernel that reads the old step broadcast or after the update. The
    result depends only on the input IR (program order, no pointer order).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
}

#endif // TFC_PASSES_FUSION_PASSES_TD
