//===- GemmEpilogues.h - what a GEMM may do to its product ------*- C++ -*-===//
//
// The GEMM epilogues tfc uses (cuBLASLt's CUBLASLT_EPILOGUE_* of the same
// names), once for compiler and runtime: each one's manifest spelling, how it
// uses its bias vector and aux matrix, and the pointwise function it applies.
// The runtime's manifest parser, host epilogue and cuBLASLt mapping read it
// (runtime/src/core/Artifact.h); the compiler's tfcrt.gemm verifier and
// --tfc-convert-to-exec read it by name (the tfcrt dialect's
// gemm_epilogue enum spells the same names, test/dialects/tfcrt/ops.mlir
// round-trips each). Header-only, C++17, no dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMMON_GEMMEPILOGUES_H
#define TFC_COMMON_GEMMEPILOGUES_H

#include <cstring>

namespace tfc {

/// What a GEMM does to its product before storing it (cuBLASLt's
/// CUBLASLT_EPILOGUE_* of the same names). With P[i][j] the value epilogue
/// None stores (rounded to c_type on the host):
///   pre[i][j] = P[i][j] + bias[j] when the epilogue reads a bias (computed
///               as the host's tfc.add of c_type computes it), else P[i][j]
/// Forward: an optional bias add, then an activation, and for gelu
/// optionally storing its input:
///   C = pre             (None, Bias)
///   C = relu(pre)       (Relu, ReluBias; tfc.relu: NaN propagates, -0 -> +0)
///   C = gelu_tanh(pre)  (Gelu, GeluBias, GeluAux, GeluAuxBias; tfc.gelu
///                        approximate="tanh", common/ScalarOps.h)
///   aux = pre           (GeluAux, GeluAuxBias: aux written)
/// Backward (contract v3): the GELU gradient of the product, reading the
/// GELU input the forward stored, and optionally its sum over the rows:
///   C = gelu_grad_tanh(dy = P, x = aux)   (DGelu, DGeluBgrad: aux read;
///                        tfc.gelu_grad approximate="tanh")
///   bias[j] = sum over i of C[i][j]       (DGeluBgrad: bias written, the
///                        bias gradient, as tfc.reduce_sum over the rows)
/// On the host the result is bit-identical to the plain GEMM followed by the
/// unfused add, relu, gelu, gelu_grad and reduce_sum kernels; cuBLASLt
/// applies the epilogue before rounding (docs/execution.md, section 4).
/// cuBLASLt's RELU_AUX* and DRELU* (a bit mask, not pre) are not epilogues
/// here.
enum class GemmEpilogue {
  None,
  Bias,
  Relu,
  ReluBias,
  Gelu,
  GeluBias,
  GeluAux,
  GeluAuxBias,
  DGelu,
  DGeluBgrad
};

/// The pointwise function an epilogue applies to pre: an activation
/// (forward), or GELU's gradient with pre as the incoming gradient dy and
/// aux as the GELU input x (backward).
enum class GemmActivation { None, Relu, GeluTanh, GeluTanhGrad };

/// Whether an epilogue has an extra operand, and which way the data flows.
enum class EpilogueOperand {
  None,   ///< Absent: the manifest must not name one.
  Read,   ///< An input of the GEMM.
  Written ///< An output of the GEMM.
};

/// One epilogue's manifest spelling and parts.
struct GemmEpilogueInfo {
  GemmEpilogue epilogue;
  const char *name; ///< cuBLASLt's epilogue name in lower case.
  /// n c_type elements. Read: bias[j] is added to P. Written: the bias
  /// gradient, C's column sums.
  EpilogueOperand bias;
  GemmActivation activation;
  /// An m x n c_type matrix laid out like C. Written: pre (the GELU input a
  /// backward needs). Read: x, that stored GELU input.
  EpilogueOperand aux;
};

/// Every epilogue, in enum order: the one table that the names, the
/// runtime's manifest parser, the predicates below and the compiler's
/// tfcrt.gemm verifier and lowering read.
inline constexpr GemmEpilogueInfo kGemmEpilogues[] = {
    {GemmEpilogue::None, "none", EpilogueOperand::None, GemmActivation::None,
     EpilogueOperand::None},
    {GemmEpilogue::Bias, "bias", EpilogueOperand::Read, GemmActivation::None,
     EpilogueOperand::None},
    {GemmEpilogue::Relu, "relu", EpilogueOperand::None, GemmActivation::Relu,
     EpilogueOperand::None},
    {GemmEpilogue::ReluBias, "relu_bias", EpilogueOperand::Read,
     GemmActivation::Relu, EpilogueOperand::None},
    {GemmEpilogue::Gelu, "gelu", EpilogueOperand::None,
     GemmActivation::GeluTanh, EpilogueOperand::None},
    {GemmEpilogue::GeluBias, "gelu_bias", EpilogueOperand::Read,
     GemmActivation::GeluTanh, EpilogueOperand::None},
    {GemmEpilogue::GeluAux, "gelu_aux", EpilogueOperand::None,
     GemmActivation::GeluTanh, EpilogueOperand::Written},
    {GemmEpilogue::GeluAuxBias, "gelu_aux_bias", EpilogueOperand::Read,
     GemmActivation::GeluTanh, EpilogueOperand::Written},
    {GemmEpilogue::DGelu, "dgelu", EpilogueOperand::None,
     GemmActivation::GeluTanhGrad, EpilogueOperand::Read},
    {GemmEpilogue::DGeluBgrad, "dgelu_bgrad", EpilogueOperand::Written,
     GemmActivation::GeluTanhGrad, EpilogueOperand::Read}};

namespace detail {
constexpr bool gemmEpilogueTableIsConsistent() {
  int i = 0;
  for (const GemmEpilogueInfo &e : kGemmEpilogues) {
    if (int(e.epilogue) != i++)
      return false; // gemmEpilogueInfo indexes the table by the enum
    bool grad = e.activation == GemmActivation::GeluTanhGrad;
    // A written aux is the forward GELU's input (cuBLASLt's RELU_AUX is a
    // mask); a read aux is that input, which exactly the gradient needs.
    if (e.aux == EpilogueOperand::Written &&
        e.activation != GemmActivation::GeluTanh)
      return false;
    if ((e.aux == EpilogueOperand::Read) != grad)
      return false;
    // A written bias is the gradient's column sums (DGELU_BGRAD); the
    // gradient adds no bias.
    if (e.bias == EpilogueOperand::Written && !grad)
      return false;
    if (e.bias == EpilogueOperand::Read && grad)
      return false;
  }
  return i == int(GemmEpilogue::DGeluBgrad) + 1;
}
static_assert(gemmEpilogueTableIsConsistent(),
              "kGemmEpilogues must list every GemmEpilogue in enum order; "
              "aux written only by gelu, read exactly by the gelu gradient, "
              "which reads no bias and alone may write one");
} // namespace detail

constexpr const GemmEpilogueInfo &gemmEpilogueInfo(GemmEpilogue epilogue) {
  return kGemmEpilogues[int(epilogue)];
}
/// The manifest spelling: "none", "bias", "relu", "relu_bias", "gelu",
/// "gelu_bias", "gelu_aux", "gelu_aux_bias", "dgelu", "dgelu_bgrad".
constexpr const char *gemmEpilogueName(GemmEpilogue epilogue) {
  return gemmEpilogueInfo(epilogue).name;
}
/// How `epilogue` uses its bias vector: None; Read, added to P (the names
/// ending in "bias"); Written, the bias gradient (dgelu_bgrad).
constexpr EpilogueOperand epilogueBias(GemmEpilogue epilogue) {
  return gemmEpilogueInfo(epilogue).bias;
}
/// How `epilogue` uses its aux matrix: None; Written, the forward GELU input
/// (gelu_aux, gelu_aux_bias); Read, that input (dgelu, dgelu_bgrad).
constexpr EpilogueOperand epilogueAux(GemmEpilogue epilogue) {
  return gemmEpilogueInfo(epilogue).aux;
}
/// True when `epilogue` has a bias vector, read or written.
constexpr bool epilogueHasBias(GemmEpilogue epilogue) {
  return epilogueBias(epilogue) != EpilogueOperand::None;
}
/// The pointwise function `epilogue` applies to pre.
constexpr GemmActivation epilogueActivation(GemmEpilogue epilogue) {
  return gemmEpilogueInfo(epilogue).activation;
}
/// True when `epilogue` has an aux matrix, read or written.
constexpr bool epilogueHasAux(GemmEpilogue epilogue) {
  return epilogueAux(epilogue) != EpilogueOperand::None;
}

/// The epilogue spelled `name`, or nullptr.
inline const GemmEpilogueInfo *findGemmEpilogue(const char *name) {
  for (const GemmEpilogueInfo &e : kGemmEpilogues)
    if (std::strcmp(e.name, name) == 0)
      return &e;
  return nullptr;
}

/// The epilogue with these parts, or nullptr when none has them.
constexpr const GemmEpilogueInfo *findGemmEpilogue(EpilogueOperand bias,
                                                   GemmActivation activation,
                                                   EpilogueOperand aux) {
  for (const GemmEpilogueInfo &e : kGemmEpilogues)
    if (e.bias == bias && e.activation == activation && e.aux == aux)
      return &e;
  return nullptr;
}

} // namespace tfc

#endif // TFC_COMMON_GEMMEPILOGUES_H
