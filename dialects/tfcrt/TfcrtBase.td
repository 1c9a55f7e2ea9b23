//===- TfcrtBase.td - the tfcrt dialect and its enums ---------------------===//
//
// This file holds the dialect and its enums only: it does not include
// TfcBase.td, so that -gen-enum-decls on it emits tfcrt's enums and not tfc's
// (enum generation is not filtered by dialect). TfcrtOps.td adds tfc's types.
//
// `tfcrt` is tfc's EXEC level (docs/execution.md section 2): builtin memref
// buffers with planned places (external bindings or arena offsets), kernel
// symbols holding tensor-level tfc bodies, launches, GEMM calls, copies and
// entry functions. It is what codegen and the artifact writer read; nothing
// in it is graph-level any more except the kernel bodies themselves.
//
//===----------------------------------------------------------------------===//

#ifndef TFCRT_BASE_TD
#define TFCRT_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tfcrt_Dialect : Dialect {
  let name = "tfcrt";
  let cppNamespace = "::mlir::tfcrt";
  let summary = "Exec-level ops: buffers, kernels, launches, GEMMs, entries";
  let description = [{
    A lowered tfc program: one `tfcrt.arena` with the planned size, one
    `tfcrt.kernel` symbol per kernel (its body is the tfc ops of one
    `tfc.fusion`), and one `tfcrt.entry` per step kind whose body binds
    buffers (`tfcrt.external`, `tfcrt.arena_view`, `tfcrt.alias`) and runs
    `tfcrt.launch`, `tfcrt.gemm` and `tfcrt.copy` in order. Buffers are
    builtin memrefs with static shapes and identity layout. See
    docs/execution.md for the contracts codegen and the runtime rely on.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tfcrt_BufferRole : I32EnumAttr<"BufferRole",
    "how the caller binds an external buffer", [
      I32EnumAttrCase<"param", 0>,
      I32EnumAttrCase<"input", 1>,
      I32EnumAttrCase<"output", 2>,
      // Optimizer / loss-scaler state: persists across runs like a param,
      // starts zeroed, and is updated in place by the training step.
      I32EnumAttrCase<"state", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfcrt";
}
def Tfcrt_BufferRoleAttr
    : EnumAttr<Tfcrt_Dialect, Tfcrt_BufferRole, "buffer_role">;

def Tfcrt_GemmEpilogue : I32EnumAttr<"GemmEpilogue",
    "the pointwise epilogue a GEMM applies to its result (cuBLASLt's "
    "CUBLASLT_EPILOGUE_DEFAULT, _BIAS, _GELU_BIAS, _GELU_AUX_BIAS, _RELU, "
    "_RELU_BIAS, _GELU, _GELU_AUX, _DGELU, _DGELU_BGRAD)", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"bias", 1>,
      I32EnumAttrCase<"gelu_bias", 2>,
      I32EnumAttrCase<"gelu_aux_bias", 3>,
      I32EnumAttrCase<"relu", 4>,
      I32EnumAttrCase<"relu_bias", 5>,
      I32EnumAttrCase<"gelu", 6>,
      I32EnumAttrCase<"gelu_aux", 7>,
      I32EnumAttrCase<"dgelu", 8>,
      I32EnumAttrCase<"dgelu_bgrad", 9>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tfcrt";
}
def Tfcrt_GemmEpilogueAttr
    : EnumAttr<Tfcrt_Dialect, Tfcrt_GemmEpilogue, "gemm_epilogue">;

#endif // TFCRT_BASE_TD
