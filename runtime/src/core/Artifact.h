//===- Artifact.h - the loaded, validated artifact --------------*- C++ -*-===//
//
// In-memory form of an artifact directory (docs/execution.md, section 4).
// loadArtifact validates every field of the untrusted manifest and the kernel
// files; everything after it can rely on the invariants documented here.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_ARTIFACT_H
#define TFC_RUNTIME_CORE_ARTIFACT_H

#include "runtime/src/core/DType.h"
#include "runtime/src/core/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt {

enum class BufferKind { External, Arena, Alias };
enum class BufferRole { None, Param, Input, Output, State };

/// One buffer of the plan. Invariants after loading: `bytes ==
/// dtypeSize(dtype) * numElements(shape)`; arena buffers lie inside the arena
/// and are aligned to it; aliases refer to an earlier non-alias buffer of the
/// same byte size (`aliasOf` is resolved to that root).
struct BufferDesc {
  int64_t id = 0;
  BufferKind kind = BufferKind::Arena;
  BufferRole role = BufferRole::None; ///< Only for External.
  std::string name;                   ///< Only for External.
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  int64_t offset = 0;   ///< Arena byte offset (Arena).
  int64_t aliasOf = -1; ///< Root buffer id (Alias).
};

/// The dtype and shape of one kernel parameter.
struct TensorSig {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// One kernel: its CUDA source and host program, already read from disk and
/// checked against the manifest's sha256. `inputs`/`outputs` are the kernel's
/// signature, read from the host program's `in` and `out` lines; the loader
/// checks every launch against them (same count, dtypes and shapes).
struct KernelDesc {
  std::string name;
  std::string kind; ///< pointwise, row_reduction, column_reduction, gather, ...
  std::string cudaSource;
  std::string hostProgram;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<TensorSig> inputs, outputs;
};

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

/// Every epilogue, in enum order: the one table that the names, the parser
/// and the predicates below read.
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
/// The epilogue spelled `name` in a manifest, or nullopt.
std::optional<GemmEpilogue> parseGemmEpilogue(const std::string &name);
/// Every manifest spelling, for messages: "none, bias, ... or dgelu_bgrad".
std::string gemmEpilogueNameList();
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

/// A row-major strided-batched GEMM: for each b < batch,
/// C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b], op(A) is m x k, op(B)
/// is k x n, C is m x n; leading dimensions and batch strides in elements
/// (stride 0 broadcasts that operand over the batch). An epilogue other
/// than None needs batch 1 and beta 0 (it never accumulates into C); one
/// with a bias reads `bias` (n elements of cType; only bias[0..n) is read)
/// or writes it (the bias gradient: exactly n elements), one with aux writes
/// or reads `aux`, an m x n cType matrix with leading dimension ldc
/// (epilogueBias, epilogueAux).
struct GemmDesc {
  int64_t a = 0, b = 0, c = 0; ///< Buffer ids.
  int64_t bias = -1, aux = -1; ///< Buffer ids; -1 when the epilogue has none.
  bool transposeA = false, transposeB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  DType aType = DType::F32, bType = DType::F32, cType = DType::F32;
  std::string computeType = "f32";
  GemmEpilogue epilogue = GemmEpilogue::None;
  double alpha = 1.0, beta = 0.0;
};

enum class StepKind { Launch, Gemm, Copy };

/// One step of an entry. Launch: `kernel` indexes Artifact::kernels, `args`
/// then `results` are buffer ids in kernel-parameter order. Copy: `src` and
/// `dst` buffer ids of equal byte size.
struct Step {
  StepKind kind = StepKind::Launch;
  int64_t kernel = -1;
  std::vector<int64_t> args, results;
  GemmDesc gemm;
  int64_t src = -1, dst = -1;
};

struct EntryDesc {
  std::string name;
  std::vector<Step> steps;
};

struct Artifact {
  std::string directory;
  int64_t arenaSize = 0;
  int64_t arenaAlignment = 256;
  std::vector<BufferDesc> buffers; ///< Indexed by id.
  std::vector<KernelDesc> kernels;
  std::vector<EntryDesc> entries;

  /// Returns the entry named `name`, or null.
  const EntryDesc *findEntry(const std::string &name) const;
  /// Returns the external buffer named `name`, or null.
  const BufferDesc *findExternal(const std::string &name) const;
};

/// Format version this runtime reads.
constexpr int64_t kArtifactVersion = 1;

/// The file next to manifest.json holding its SHA-256 (sha256sum's format:
/// "<64 hex digits>  manifest.json\n"). The manifest records the SHA-256 of
/// every kernel file, so this one digest covers the whole artifact.
inline const char *kManifestDigestFile = "manifest.sha256";

/// The manifest.sha256 text for `manifestText`.
std::string manifestDigestText(const std::string &manifestText);

/// Reads and validates the artifact in `directory` (docs/execution.md,
/// section 4): first manifest.json against manifest.sha256 (a missing or
/// mismatching digest is an error naming the file), then every field.
/// Every error names the offending field, e.g.
/// "manifest.json: buffers[3].offset: arena view [4096, 8192) outside the
/// arena (size 6144)".
Status loadArtifact(const std::string &directory, Artifact &out);

/// Validates an already-parsed manifest. Kernel files are read relative to
/// `directory`. loadArtifact = read manifest.json + this.
Status loadArtifactFromManifest(const std::string &directory,
                                const std::string &manifestText, Artifact &out);

/// Reads the signature (`in` lines, `out` lines) and `kind` of a host program
/// without interpreting its ops; errors name the line.
Status readHostProgramSignature(const std::string &program, std::string &kind,
                                std::vector<TensorSig> &inputs,
                                std::vector<TensorSig> &outputs);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_ARTIFACT_H
