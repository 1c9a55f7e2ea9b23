//===- TfcKernelRules.h - which ops can form one kernel ---------*- C++ -*-===//
//
// The rules that decide whether a group of tfc ops can be emitted as ONE
// kernel of a given kind. The tfc.fusion verifier enforces them, and the
// fusion passes use them to test candidate groups before forming regions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCKERNELRULES_H
#define TFC_DIALECTS_TFC_TFCKERNELRULES_H

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfc/TfcInterfaces.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace mlir::tfc {

/// The kernel kind that an op of `role` forms on its own, as unfused
/// compilation wraps it: pointwise -> pointwise, row_reduction ->
/// row_reduction, and so on. std::nullopt for composite ops, which lowering
/// decomposes before kernels are formed.
std::optional<KernelKind> kernelKindForRole(KernelRole role);

/// Whether `op` reduces a whole non-empty tensor to one value
/// (reduce_sum / reduce_mean / reduce_max over all dims): as a kernel of
/// its own a row reduction of one row; a multi_tensor kernel holds any
/// number of them, one sweep over all their tensors.
bool isTensorSum(Operation *op);

/// Registers a thread of a row_reduction kernel may spend on the column
/// sums it holds across the rows it walks (warp per row: ceil(L / 32) per
/// column sum, twice that in f64); more would spill.
constexpr int64_t kRowKernelColumnAccumulators = 16;

/// Evaluations of its ops per element a kernel may spend beyond two per op:
/// codegen computes a value once per distinct view that reads it, so a
/// kernel whose views re-read computed values (a log-step scan's shifted
/// adds) is split before its code grows exponentially.
constexpr int64_t kRecomputeMargin = 64;

/// Checks that `ops` (in program order, without a terminator) computing
/// `outputs` can form one kernel of `kind` that codegen (CUDA and host) can
/// emit:
///   - there is at least one op;
///   - every op is a tfc op with a kernel role that is not composite;
///   - every kind: its ops are evaluated at most 2 * ops + kRecomputeMargin
///     times per element, counting a value once per distinct path of
///     view reads (slices, pads, transposes, broadcasts) that reaches it;
///   - pointwise: all ops are pointwise (outputs of any sizes);
///   - multi_tensor: optimizer updates (role multi_tensor, any number,
///     including none), pointwise ops and whole-tensor sums (isTensorSum:
///     a gradient norm's sums of squares, an inf/NaN check), which only
///     scalar pointwise ops may read (they exist after all blocks finish);
///   - row_reduction: at least one row reduction, all of them with the same
///     RowGeometry (R rows of L), the other ops pointwise; a value computed
///     from a reduction result is only read in the row it belongs to (same
///     element count, a reshape, or a keepdim row statistic broadcast along
///     its row; never through a transpose, slice, concat or pad, nor by an
///     anchor's weight, bias or label operands); a cross_entropy loss only
///     feeds scalar ops of losses; it may also hold column sums over its
///     rows (reduce_sum / reduce_mean of a value of R*L elements over the
///     leading dims that number the rows: a layer_norm backward's weight
///     and bias gradients next to its dx), at most
///     kRowKernelColumnAccumulators per thread (ceil(L / 32) each, twice
///     that in f64) and only with L <= 1024, read only by per-column ops;
///     every output has R or R*L elements, L if computed from a column sum
///     (or is a scalar computed from a loss);
///   - column_reduction: at least one column reduction, all reducing the
///     same dims of same-shaped operands, the others pointwise; a value
///     computed from a reduction result is one per column (same element
///     count, read at the same column) and feeds no reduction; every output
///     has one element per column or per input element;
///   - gather: exactly one gather, the others pointwise;
///   - gemm: exactly one GEMM plus the epilogue cuBLASLt fuses (a row bias
///     add, then GELU's tanh form), as matchGemmKernel (TfcGemmKernel.h)
///     accepts;
///   - block_quantized: exactly one block-quantized update plus pointwise
///     ops computing its operands; the outputs are results of the update;
///   - scatter: exactly one scatter-add (embedding_grad) plus pointwise ops
///     computing its rows (dy); its ids are not computed in the kernel (a
///     constant may be cloned in); the outputs are its result;
///   - sort: exactly one sort and nothing else; the outputs are its results;
///   - reduction kernels read no tensor without elements.
/// On failure reports the first violated rule through `emitError` (when
/// given) with a note at the offending op, and fails. Fusion passes call it
/// with a null `emitError` as a cheap predicate.
LogicalResult
verifyKernelOps(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                KernelKind kind,
                function_ref<InFlightDiagnostic()> emitError = {});

/// verifyKernelOps over the ops of `body`, with the operands of its
/// terminator (tfc.yield, tfcrt.yield) as the outputs.
LogicalResult
verifyKernelBody(Block &body, KernelKind kind,
                 function_ref<InFlightDiagnostic()> emitError = {});

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCKERNELRULES_H
