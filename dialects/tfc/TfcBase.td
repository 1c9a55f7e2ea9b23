//===- TfcBase.td - tfc dialect definition and shared constraints ---------===//
//
// The `tfc` dialect is tfc's GRAPH level: functions over static ranked tensors
// with value semantics. This file holds what every op group shares: the dialect
// itself, element/tensor type constraints, enum attributes and the op base
// class. Op groups live in Tfc*Ops.td and each generates its own .inc files.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_BASE_TD
#define TFC_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "dialects/tfc/TfcInterfaces.td"

def Tfc_Dialect : Dialect {
  let name = "tfc";
  let cppNamespace = "::mlir::tfc";
  let summary = "Graph-level ops of transformer training programs";
  let description = [{
    Model, backward, optimizer and loss-scaling ops over statically shaped,
    ranked tensors with value semantics, plus `tfc.fusion`, the region op that
    groups ops into one GPU kernel. See docs/dialect.md for the design choices.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Argument attribute marking a trainable parameter; its value is the
    /// parameter's state-dict name, e.g. "h.0.ln_1.weight".
    static constexpr ::llvm::StringLiteral kParamAttrName = "tfc.param";
    /// Parameter-group hyper-parameters (f64 argument attributes beside
    /// tfc.param): the factor on the learning rate of this parameter's
    /// updates, and its weight decay in place of the optimizer's (and of the
    /// rank < 2 rule), as torch.optim's param_groups set them.
    static constexpr ::llvm::StringLiteral kLrScaleAttrName = "tfc.lr_scale";
    static constexpr ::llvm::StringLiteral kWeightDecayAttrName =
        "tfc.weight_decay";
    /// Argument attribute naming a batch input, e.g. "tokens".
    static constexpr ::llvm::StringLiteral kInputAttrName = "tfc.input";
    /// Argument attribute marking training state that persists across steps
    /// (optimizer moments, the step counter, the loss scale), e.g.
    /// "fc1.weight.exp_avg" or "step".
    static constexpr ::llvm::StringLiteral kStateAttrName = "tfc.state";
    /// Result attribute: the result is the new value of the tfc.param or
    /// tfc.state argument of this name, written over it in place.
    static constexpr ::llvm::StringLiteral kUpdateAttrName = "tfc.update";
    /// Result attribute naming an output, e.g. "loss" or "found_inf".
    static constexpr ::llvm::StringLiteral kOutputAttrName = "tfc.output";
    /// Module attribute: how f32 GEMMs accumulate, "tf32" for TF32 tensor
    /// cores (set by --tfc-auto-mixed-precision=precision=tf32, read by
    /// --tfc-convert-to-exec); absent means f32.
    static constexpr ::llvm::StringLiteral kF32GemmComputeAttrName =
        "tfc.f32_gemm_compute";
    /// tfc.matmul attribute: [M, N, K] before --tfc-pad-shapes padded the
    /// GEMM (its operands and result are the padded ones).
    static constexpr ::llvm::StringLiteral kPadFromAttrName = "tfc.pad_from";
    /// func.func attribute (unit): the function computes state derived from
    /// the parameters (--tfc-weight-copies' @refresh_weight_copies); its
    /// entry runs whenever a parameter was set since it last ran.
    static constexpr ::llvm::StringLiteral kRefreshAttrName = "tfc.refresh";
    /// Op attribute (unit): the op is --tfc-recompute's copy of a forward op
    /// placed in the backward; fusion merges it into later kernels only.
    static constexpr ::llvm::StringLiteral kRecomputedAttrName =
        "tfc.recomputed";
    /// Module attribute: the blocks the model's tfc.checkpoint ops marked,
    /// as a dictionary from each tfc.param name to its block's index (0, 1,
    /// ... in program order; -1 for a parameter read in several blocks or
    /// also outside them). Written by --tfc-inline-checkpoints, read by
    /// --tfc-recompute=mode=blocks.
    static constexpr ::llvm::StringLiteral kCheckpointBlocksAttrName =
        "tfc.checkpoint_blocks";
    /// func.func attribute (unit): --tfc-optimizer-in-backward placed each
    /// update right after its gradient; fusion keeps the updates apart.
    static constexpr ::llvm::StringLiteral kOptimizerInBackwardAttrName =
        "tfc.optimizer_in_backward";
    /// Result attribute of a step function between the train-step stages
    /// (passes/training/StepForm.h): the result is the gradient of the
    /// tfc.param argument of this name.
    static constexpr ::llvm::StringLiteral kGradAttrName = "tfc.grad";
    /// Op attribute (unit) on the 0-d tfc.constant 1.0 a step's backward
    /// starts from (--tfc-step-gradients); the later stages scale it.
    static constexpr ::llvm::StringLiteral kLossSeedAttrName =
        "tfc.loss_seed";
    /// func.func attribute: the train-step stages that built the function
    /// so far, in order (names such as "gradients"); the last stage removes
    /// it.
    static constexpr ::llvm::StringLiteral kStepStagesAttrName =
        "tfc.step_stages";
    /// func.func and tfcrt.entry attribute (i64 >= 0): the bytes of the
    /// forward values the backward reads (the saved activations), as
    /// --tfc-recompute leaves the function; tfc-train's memory report
    /// shows it.
    static constexpr ::llvm::StringLiteral kSavedActivationBytesAttrName =
        "tfc.saved_activation_bytes";

  private:
    // Each op group registers its ops from its own .cpp file.
    void registerElementwiseOps();
    void registerShapeOps();
    void registerReductionOps();
    void registerLinalgOps();
    void registerNNOps();
    void registerOptimizerOps();
    void registerFusionOps();
    void registerGradOps();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Tfc_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point (f16, bf16, f32, f64)">;
def Tfc_Index : AnyTypeOf<[I32, I64], "integer index (i32, i64)">;
def Tfc_Int : AnyTypeOf<[I1, I32, I64], "integer (i1, i32, i64)">;
// ui8 holds the codes of 8-bit quantized optimizer state (tfc.adamw8bit). It
// is not in Tfc_Numeric: arithmetic ops reject it; select, compare, convert,
// constant and the shape ops accept it.
def Tfc_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64, UI8],
                            "tfc element type (f16, bf16, f32, f64, i1, i32, i64, ui8)">;
def Tfc_Numeric : AnyTypeOf<[F16, BF16, F32, F64, I32, I64],
                            "numeric element type (f16, bf16, f32, f64, i32, i64)">;

def Tfc_Tensor : StaticShapeTensorOf<[Tfc_Element]>;
def Tfc_FloatTensor : StaticShapeTensorOf<[Tfc_Float]>;
def Tfc_NumericTensor : StaticShapeTensorOf<[Tfc_Numeric]>;
def Tfc_BoolTensor : StaticShapeTensorOf<[I1]>;
def Tfc_IntTensor : StaticShapeTensorOf<[Tfc_Int]>;
def Tfc_IndexTensor : StaticShapeTensorOf<[Tfc_Index]>;
/// A 0-d i64 tensor: dropout seeds and Philox counter offsets. Buildable, so
/// assembly formats need not spell out its type.
defvar Tfc_I64ScalarConstraint = 0DTensorOf<[I64]>;
def Tfc_I64Scalar : Type<Tfc_I64ScalarConstraint.predicate,
                         Tfc_I64ScalarConstraint.summary,
                         Tfc_I64ScalarConstraint.cppClassName>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI64Type())">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//
// Enum attributes print as a bare keyword (`tanh`); in op assembly formats
// write "`` $attr" so the printer does not emit two spaces before it.

def Tfc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}
def Tfc_GeluApproximationAttr
    : EnumAttr<Tfc_Dialect, Tfc_GeluApproximation, "gelu_approximation">;

def Tfc_RandomDistribution : I32EnumAttr<"RandomDistribution",
    "what tfc.random draws", [
      I32EnumAttrCase<"uniform", 0>,
      I32EnumAttrCase<"normal", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}
def Tfc_RandomDistributionAttr
    : EnumAttr<Tfc_Dialect, Tfc_RandomDistribution, "random_distribution">;

def Tfc_CompareDirection : I32EnumAttr<"CompareDirection",
    "elementwise comparison predicate", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}
def Tfc_CompareDirectionAttr
    : EnumAttr<Tfc_Dialect, Tfc_CompareDirection, "compare_direction">;

def Tfc_LossReduction : I32EnumAttr<"LossReduction",
    "how a loss reduces over the batch", [
      I32EnumAttrCase<"mean", 0>, I32EnumAttrCase<"sum", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}
def Tfc_LossReductionAttr
    : EnumAttr<Tfc_Dialect, Tfc_LossReduction, "loss_reduction">;

def Tfc_KernelKind : I32EnumAttr<"KernelKind",
    "the kernel kinds codegen knows how to emit (DESIGN.md)", [
      I32EnumAttrCase<"pointwise", 0>,
      I32EnumAttrCase<"row_reduction", 1>,
      I32EnumAttrCase<"column_reduction", 2>,
      I32EnumAttrCase<"gather", 3>,
      I32EnumAttrCase<"multi_tensor", 4>,
      I32EnumAttrCase<"gemm", 5>,
      I32EnumAttrCase<"block_quantized", 6>,
      I32EnumAttrCase<"scatter", 7>,
      I32EnumAttrCase<"sort", 8>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}
def Tfc_KernelKindAttr : EnumAttr<Tfc_Dialect, Tfc_KernelKind, "kernel_kind">;

def Tfc_KernelTarget : I32EnumAttr<"KernelTarget",
    "the machines kernels are scheduled for (--tfc-target)", [
      I32EnumAttrCase<"sm_80", 0>,
      I32EnumAttrCase<"sm_90", 1>,
      I32EnumAttrCase<"host", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfc";
}

def Tfc_KernelScheduleAttr : AttrDef<Tfc_Dialect, "KernelSchedule"> {
  let mnemonic = "schedule";
  let summary = "how one kernel is launched on its target";
  let description = [{
    The launch schedule --tfc-schedule-kernels chose for a kernel and the
    CUDA emitters read (TfcKernelSchedule.h has the choice and the rules):
    - `target`: `sm_80` (A100 class), `sm_90` (H100 class) or `host` (the
      host interpreter; no CUDA source is generated, and the other
      parameters are absent);
    - `threads`: threads per block (a multiple of 32, at most 1024);
    - `rows_per_block`: rows a block walks at once: in a row_reduction,
      `threads / 32` rows of one warp each, or 1 (one block per row); in a
      column_reduction, the row groups a block's threads are split into;
      1 for the other kinds;
    - `vector_bytes`: the widest vector access (16: 128-bit loads and
      stores where contiguous and aligned); 0 for scalar code;
    - `max_blocks`: the grid cap (grid-stride loops cover the rest; 0: no
      cap); a column_reduction splits its rows until its grid reaches it;
    - `unroll`: in a row_reduction, the elements a thread loads before it
      uses the first of them in a pass that re-reads its rows from memory
      (loads in flight per thread and row-sized operand); 1 for the other
      kinds.
    Example: `#tfc.schedule<target = sm_90, threads = 256, rows_per_block =
    8, max_blocks = 65535>`; parameters equal to their defaults (1 for
    `rows_per_block` and `unroll`, 0 otherwise) are omitted.
  }];
  let parameters = (ins
    EnumParameter<Tfc_KernelTarget>:$target,
    DefaultValuedParameter<"int64_t", "0">:$threads,
    DefaultValuedParameter<"int64_t", "1">:$rows_per_block,
    DefaultValuedParameter<"int64_t", "0">:$vector_bytes,
    DefaultValuedParameter<"int64_t", "0">:$max_blocks,
    DefaultValuedParameter<"int64_t", "1">:$unroll);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Op traits
//===----------------------------------------------------------------------===//
// Properties of an op's element math that passes rely on. Each op states
// them in its own definition; passes query `op->hasTrait<...>()`
// (dialects/tfc/TfcTraits.h, namespace mlir::OpTrait::tfc), so a new op
// needs no entry in any pass. A missing trait only costs an optimization;
// a wrong one breaks the pass that trusts it, so attach a trait only when
// its statement holds for every attribute value and element type of the op.

class Tfc_NativeOpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::OpTrait::tfc";
}

// Every element i of every result reads an operand of the result's shape at
// element i only (broadcast operands, the smaller ones, are read elsewhere).
// Relied on by tfcrt's in-place check (dialects/tfcrt/TfcrtInPlace.cpp): a
// pointwise or multi_tensor kernel may write a result over such an operand
// while it runs. Element-local ops have it (Tfc_ElementLocal below), and so
// do ops whose math also depends on the index or that update several
// tensors elementwise: dropout, the optimizer updates adamw, adam and sgd.
def Tfc_ReadsAtResultIndex : Tfc_NativeOpTrait<"ReadsAtResultIndex">;

def Tfc_ElementLocalImpl : Tfc_NativeOpTrait<"ElementLocal">;

// A single-result op whose element i is the same function, at every index,
// of the operands' elements at index i (numpy broadcasting) alone: it reads
// no other element and no position (dropout's mask depends on the index,
// iota's value is one; neither is element-local). Relied on by
// --tfc-pad-shapes (passes/layout/PadShapes.cpp), which moves such an op
// from after a cut-back GEMM result to before it, computing it over the
// padded lanes as well. Implies Tfc_ReadsAtResultIndex, listed with it.
def Tfc_ElementLocal : TraitList<[Tfc_ReadsAtResultIndex,
                                  Tfc_ElementLocalImpl]>;

// f(0, ..., 0) = 0 up to the sign of zero, for every attribute value and
// for zeros of either sign (a select's false counts as zero): lanes that
// are zero in every operand stay zero. Relied on by --tfc-pad-shapes, which
// reuses a padded GEMM result as the zero-padded operand of the next GEMM
// when every op in between keeps the padded lanes zero. Not: exp, cos,
// sigmoid, div (0 / 0), compare (0 == 0 is true), pow (x^0 = 1), atan2
// (atan2(0, -0) = pi).
def Tfc_KeepsZeros : Tfc_NativeOpTrait<"KeepsZeros">;

// A pointwise op whose CUDA code calls a slow-path routine of the math
// library (IEEE division and square root, the range reductions of exp, log
// and the trigonometric functions), around which ptxas saves the registers
// that are live. Relied on by the row-reduction kernel emitter
// (compiler/codegen/cuda/RowReductionKernel.cpp), which keeps fewer row
// values in registers in a kernel that holds such an op. tfc.pow calls one
// depending on its exponent; the emitter asks it separately.
def Tfc_SlowPathMath : Tfc_NativeOpTrait<"SlowPathMath">;

//===----------------------------------------------------------------------===//
// Op base class
//===----------------------------------------------------------------------===//

class Tfc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfc_Dialect, mnemonic, traits>;

#endif // TFC_BASE_TD
