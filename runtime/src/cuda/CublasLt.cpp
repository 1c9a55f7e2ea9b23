//===- CublasLt.cpp - GEMMs through a dlopen'd cuBLASLt -------------------===//

#include "runtime/src/cuda/CublasLt.h"

#include "runtime/src/cuda/DebugLog.h"

#include <cstdint>
#include <cublasLt.h>
#include <iterator>

namespace tfc::rt::cuda {

/// The cuBLASLt entry points tfc uses.
struct CublasLtApi {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t *);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t);
  size_t (*cublasLtGetVersion)();
  const char *(*cublasLtGetStatusString)(cublasStatus_t);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t *,
                                             cublasComputeType_t,
                                             cudaDataType_t);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(
      cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *,
      size_t);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t *,
                                               cudaDataType, uint64_t, uint64_t,
                                               int64_t);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(
      cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, const void *,
      size_t);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      cublasLtMatmulPreference_t *);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
      const void *, size_t);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
      cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
      cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,
      int *);
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                   const void *, const void *,
                                   cublasLtMatrixLayout_t, const void *,
                                   cublasLtMatrixLayout_t, const void *,
                                   const void *, cublasLtMatrixLayout_t, void *,
                                   cublasLtMatrixLayout_t,
                                   const cublasLtMatmulAlgo_t *, void *, size_t,
                                   cudaStream_t);
};

/// Descriptors and chosen algorithm of one GEMM configuration. D shares C's
/// layout (tfc never writes a GEMM result to a different buffer than C).
/// The descriptor holds the bias/aux addresses of the call that made the
/// plan; later calls (same alignments: they are in the key) set their own.
struct CublasLtGemm::Plan {
  const CublasLtApi *api = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  size_t workspaceBytes = 0;
  bool computeF64 = false;
  GemmEpilogue epilogue = GemmEpilogue::None;
  ~Plan() {
    if (desc)
      api->cublasLtMatmulDescDestroy(desc);
    for (cublasLtMatrixLayout_t l : {a, b, c})
      if (l)
        api->cublasLtMatrixLayoutDestroy(l);
  }
};

namespace {

cudaDataType_t cudaType(DType t) {
  switch (t) {
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F64:
    return CUDA_R_64F;
  default:
    return CUDA_R_32F;
  }
}

// GemmMapping.h composes the values without the CUDA headers; they must be
// cuBLASLt's.
static_assert(cublasLtEpilogueValue(GemmEpilogue::None) ==
              CUBLASLT_EPILOGUE_DEFAULT);
static_assert(cublasLtEpilogueValue(GemmEpilogue::Bias) ==
              CUBLASLT_EPILOGUE_BIAS);
static_assert(cublasLtEpilogueValue(GemmEpilogue::Relu) ==
              CUBLASLT_EPILOGUE_RELU);
static_assert(cublasLtEpilogueValue(GemmEpilogue::ReluBias) ==
              CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(cublasLtEpilogueValue(GemmEpilogue::Gelu) ==
              CUBLASLT_EPILOGUE_GELU);
static_assert(cublasLtEpilogueValue(GemmEpilogue::GeluBias) ==
              CUBLASLT_EPILOGUE_GELU_BIAS);
static_assert(cublasLtEpilogueValue(GemmEpilogue::GeluAux) ==
              CUBLASLT_EPILOGUE_GELU_AUX);
static_assert(cublasLtEpilogueValue(GemmEpilogue::GeluAuxBias) ==
              CUBLASLT_EPILOGUE_GELU_AUX_BIAS);
static_assert(cublasLtEpilogueValue(GemmEpilogue::DGelu) ==
              CUBLASLT_EPILOGUE_DGELU);
static_assert(cublasLtEpilogueValue(GemmEpilogue::DGeluBgrad) ==
              CUBLASLT_EPILOGUE_DGELU_BGRAD);
static_assert(std::size(kGemmEpilogues) == 10,
              "a new GemmEpilogue needs its static_assert above");

cublasLtEpilogue_t cublasEpilogue(GemmEpilogue e) {
  return static_cast<cublasLtEpilogue_t>(cublasLtEpilogueValue(e));
}

/// Sets the bias and aux addresses of `cm` on `desc` (those its epilogue
/// has). cuBLASLt takes the pointer values themselves as the attributes:
/// BIAS_POINTER is the bias (read) or, for DGELU_BGRAD, the bias gradient
/// (written); EPILOGUE_AUX_POINTER the GELU input, written by GELU_AUX* or
/// read by DGELU*.
Status setEpilogueOperands(const CublasLtApi &api, cublasLtMatmulDesc_t desc,
                           const ColumnMajorGemm &cm) {
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *value,
                 size_t size, const char *what) -> Status {
    cublasStatus_t st =
        api.cublasLtMatmulDescSetAttribute(desc, attr, value, size);
    if (st == CUBLAS_STATUS_SUCCESS)
      return Status::ok();
    return Status::error(std::string("cuda gemm: setting ") + what +
                         " failed: " + api.cublasLtGetStatusString(st));
  };
  if (epilogueHasBias(cm.epilogue)) {
    const void *bias = reinterpret_cast<const void *>(cm.biasPtr);
    TFC_RETURN_IF_ERROR(set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                            sizeof(bias), "BIAS_POINTER"));
  }
  if (epilogueHasAux(cm.epilogue)) {
    void *aux = reinterpret_cast<void *>(cm.auxPtr);
    TFC_RETURN_IF_ERROR(set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
                            sizeof(aux), "EPILOGUE_AUX_POINTER"));
  }
  return Status::ok();
}

} // namespace

CublasLtGemm::CublasLtGemm() : api_(std::make_unique<CublasLtApi>()) {}

CublasLtGemm::~CublasLtGemm() {
  plans_.clear();
  if (handle_)
    api_->cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
  if (workspace_)
    (void)driver_->api().cuMemFree_v2(workspace_);
}

Status CublasLtGemm::create(std::shared_ptr<CudaDriver> driver, int deviceArch,
                            CUstream stream,
                            std::unique_ptr<CublasLtGemm> &out) {
  std::unique_ptr<CublasLtGemm> g(new CublasLtGemm());
  g->driver_ = std::move(driver);
  g->stream_ = stream;
  if (Status s = g->library_.open({"libcublasLt.so.13", "libcublasLt.so"},
                                     /*searchToolkit=*/true); !s)
    return Status::error("cuBLASLt not found (" + s.message() + ")");
  CublasLtApi &api = *g->api_;
  const DynamicLibrary &lib = g->library_;
#define TFC_BIND(sym) TFC_RETURN_IF_ERROR(lib.bind(api.sym, #sym))
  TFC_BIND(cublasLtCreate);
  TFC_BIND(cublasLtDestroy);
  TFC_BIND(cublasLtGetVersion);
  TFC_BIND(cublasLtGetStatusString);
  TFC_BIND(cublasLtMatmulDescCreate);
  TFC_BIND(cublasLtMatmulDescDestroy);
  TFC_BIND(cublasLtMatmulDescSetAttribute);
  TFC_BIND(cublasLtMatrixLayoutCreate);
  TFC_BIND(cublasLtMatrixLayoutDestroy);
  TFC_BIND(cublasLtMatrixLayoutSetAttribute);
  TFC_BIND(cublasLtMatmulPreferenceCreate);
  TFC_BIND(cublasLtMatmulPreferenceDestroy);
  TFC_BIND(cublasLtMatmulPreferenceSetAttribute);
  TFC_BIND(cublasLtMatmulAlgoGetHeuristic);
  TFC_BIND(cublasLtMatmul);
#undef TFC_BIND
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t st = api.cublasLtCreate(&handle);
      st != CUBLAS_STATUS_SUCCESS)
    return Status::error(std::string("cublasLtCreate failed: ") +
                         api.cublasLtGetStatusString(st));
  g->handle_ = handle;
  // NVIDIA's recommendation: 32 MiB lets Hopper's kernels use their larger
  // split-K and stream-K configurations; 4 MiB covers earlier GPUs.
  g->workspaceBytes_ =
      deviceArch >= 90 ? (size_t(32) << 20) : (size_t(4) << 20);
  TFC_RETURN_IF_ERROR(g->driver_->check(
      g->driver_->api().cuMemAlloc_v2(&g->workspace_, g->workspaceBytes_),
      "cuMemAlloc (cuBLASLt workspace)"));
  debugLog("loaded " + lib.loadedName() + " (" + g->version() + "), " +
           std::to_string(g->workspaceBytes_ >> 20) + " MiB workspace");
  out = std::move(g);
  return Status::ok();
}

std::string CublasLtGemm::version() const {
  return "cuBLASLt " + std::to_string(api_->cublasLtGetVersion());
}

Status CublasLtGemm::makePlan(const ColumnMajorGemm &cm,
                              std::unique_ptr<Plan> &out) {
  const CublasLtApi &api = *api_;
  auto check = [&](cublasStatus_t st, const char *what) {
    if (st == CUBLAS_STATUS_SUCCESS)
      return Status::ok();
    return Status::error(std::string("cuda gemm: ") + what +
                         " failed: " + api.cublasLtGetStatusString(st));
  };
  auto plan = std::make_unique<Plan>();
  plan->api = &api;
  plan->computeF64 = cm.computeF64;
  plan->epilogue = cm.epilogue;
  // Compute in fp32 (TF32 tensor cores only when the artifact asks for
  // them: precision=tf32), f64 for f64.
  cublasComputeType_t compute =
      cm.computeF64    ? CUBLAS_COMPUTE_64F
      : cm.computeTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                       : CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = cm.computeF64 ? CUDA_R_64F : CUDA_R_32F;
  TFC_RETURN_IF_ERROR(
      check(api.cublasLtMatmulDescCreate(&plan->desc, compute, scale),
            "cublasLtMatmulDescCreate"));
  cublasOperation_t opA = cm.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = cm.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  TFC_RETURN_IF_ERROR(
      check(api.cublasLtMatmulDescSetAttribute(
                plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
            "setting TRANSA"));
  TFC_RETURN_IF_ERROR(
      check(api.cublasLtMatmulDescSetAttribute(
                plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
            "setting TRANSB"));
  if (cm.epilogue != GemmEpilogue::None) {
    // The bias, or the bias gradient DGELU_BGRAD writes, is of c's type
    // (cublasLt.h: "the same type as the output elements"; said
    // explicitly); an epilogue without a bias sets neither its type nor its
    // pointer. The aux type stays unset: cuBLASLt then uses D's type for the
    // GELU input it writes or reads, which the contract requires of aux
    // (setting it matters only for fp8 outputs).
    cublasLtEpilogue_t epilogue = cublasEpilogue(cm.epilogue);
    TFC_RETURN_IF_ERROR(check(api.cublasLtMatmulDescSetAttribute(
                                  plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                  &epilogue, sizeof(epilogue)),
                              "setting EPILOGUE"));
    if (epilogueHasBias(cm.epilogue)) {
      int32_t biasType = int32_t(cudaType(cm.biasType));
      TFC_RETURN_IF_ERROR(
          check(api.cublasLtMatmulDescSetAttribute(
                    plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
                    sizeof(biasType)),
                "setting BIAS_DATA_TYPE"));
    }
    if (epilogueHasAux(cm.epilogue)) {
      int64_t auxLd = cm.auxLd;
      TFC_RETURN_IF_ERROR(
          check(api.cublasLtMatmulDescSetAttribute(
                    plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &auxLd,
                    sizeof(auxLd)),
                "setting EPILOGUE_AUX_LD"));
    }
    // The heuristic reads the bias/aux addresses for their alignment.
    TFC_RETURN_IF_ERROR(setEpilogueOperands(api, plan->desc, cm));
  }

  auto makeLayout = [&](const ColumnMajorLayout &l,
                        cublasLtMatrixLayout_t &layout) -> Status {
    TFC_RETURN_IF_ERROR(check(api.cublasLtMatrixLayoutCreate(
                                  &layout, cudaType(l.type), uint64_t(l.rows),
                                  uint64_t(l.cols), l.ld),
                              "cublasLtMatrixLayoutCreate"));
    if (cm.batch == 1)
      return Status::ok();
    int32_t count = int32_t(cm.batch);
    int64_t stride = l.batchStride;
    TFC_RETURN_IF_ERROR(check(
        api.cublasLtMatrixLayoutSetAttribute(
            layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
        "setting BATCH_COUNT"));
    return check(api.cublasLtMatrixLayoutSetAttribute(
                     layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                     &stride, sizeof(stride)),
                 "setting STRIDED_BATCH_OFFSET");
  };
  TFC_RETURN_IF_ERROR(makeLayout(cm.a, plan->a));
  TFC_RETURN_IF_ERROR(makeLayout(cm.b, plan->b));
  TFC_RETURN_IF_ERROR(makeLayout(cm.c, plan->c));

  cublasLtMatmulPreference_t pref = nullptr;
  TFC_RETURN_IF_ERROR(check(api.cublasLtMatmulPreferenceCreate(&pref),
                            "cublasLtMatmulPreferenceCreate"));
  struct PrefGuard {
    const CublasLtApi &api;
    cublasLtMatmulPreference_t pref;
    ~PrefGuard() { api.cublasLtMatmulPreferenceDestroy(pref); }
  } prefGuard{api, pref};
  uint64_t workspace = workspaceBytes_;
  TFC_RETURN_IF_ERROR(check(api.cublasLtMatmulPreferenceSetAttribute(
                                pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                &workspace, sizeof(workspace)),
                            "setting MAX_WORKSPACE_BYTES"));
  // The heuristic assumes 256-byte aligned operands unless told otherwise;
  // tell it the real alignment so it never picks a kernel that faults.
  const uint32_t alignC = pointerAlignment(cm.cPtr);
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, pointerAlignment(cm.aPtr)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, pointerAlignment(cm.bPtr)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignC},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignC}};
  for (const auto &[attr, value] : aligns)
    TFC_RETURN_IF_ERROR(check(api.cublasLtMatmulPreferenceSetAttribute(
                                  pref, attr, &value, sizeof(value)),
                              "setting MIN_ALIGNMENT"));

  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  TFC_RETURN_IF_ERROR(check(
      api.cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle_),
                                         plan->desc, plan->a, plan->b, plan->c,
                                         plan->c, pref, 1, &result, &returned),
      "cublasLtMatmulAlgoGetHeuristic"));
  if (returned == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    return Status::error("cuda gemm: cuBLASLt has no algorithm for this "
                         "GEMM (m = " +
                         std::to_string(cm.n) +
                         ", n = " + std::to_string(cm.m) +
                         ", k = " + std::to_string(cm.k) +
                         ", batch = " + std::to_string(cm.batch) +
                         ", epilogue " + gemmEpilogueName(cm.epilogue) + " = " +
                         cublasLtEpilogueName(cm.epilogue) + ")");
  plan->algo = result.algo;
  plan->workspaceBytes = result.workspaceSize;
  out = std::move(plan);
  return Status::ok();
}

Status CublasLtGemm::run(const GemmDesc &gemm, const GemmOperands &operands) {
  TFC_RETURN_IF_ERROR(validateGemm(gemm));
  TFC_RETURN_IF_ERROR(validateGemmOperands(gemm, operands));
  // A' is the row-major B and B' the row-major A (GemmMapping.h).
  ColumnMajorGemm cm = toColumnMajor(gemm, operands);
  std::string key = heuristicKey(cm);
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    std::unique_ptr<Plan> plan;
    TFC_RETURN_IF_ERROR(makePlan(cm, plan));
    debugLog("cuBLASLt plan for m=" + std::to_string(gemm.m) +
             " n=" + std::to_string(gemm.n) + " k=" + std::to_string(gemm.k) +
             " batch=" + std::to_string(gemm.batch) + " epilogue " +
             gemmEpilogueName(gemm.epilogue) + " (workspace " +
             std::to_string(plan->workspaceBytes) + " bytes)");
    it = plans_.emplace(std::move(key), std::move(plan)).first;
  }
  const Plan &plan = *it->second;
  // A cached plan's descriptor holds the addresses it was made with.
  if (plan.epilogue != GemmEpilogue::None)
    TFC_RETURN_IF_ERROR(setEpilogueOperands(*api_, plan.desc, cm));
  float alpha32 = float(gemm.alpha), beta32 = float(gemm.beta);
  double alpha64 = gemm.alpha, beta64 = gemm.beta;
  const void *alpha = plan.computeF64 ? static_cast<const void *>(&alpha64)
                                      : static_cast<const void *>(&alpha32);
  const void *beta = plan.computeF64 ? static_cast<const void *>(&beta64)
                                     : static_cast<const void *>(&beta32);
  cublasStatus_t st = api_->cublasLtMatmul(
      static_cast<cublasLtHandle_t>(handle_), plan.desc, alpha,
      reinterpret_cast<const void *>(cm.aPtr), plan.a,
      reinterpret_cast<const void *>(cm.bPtr), plan.b, beta,
      reinterpret_cast<const void *>(cm.cPtr), plan.c,
      reinterpret_cast<void *>(cm.cPtr), plan.c, &plan.algo,
      reinterpret_cast<void *>(workspace_), workspaceBytes_,
      reinterpret_cast<cudaStream_t>(stream_));
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error(std::string("cuda gemm: cublasLtMatmul failed: ") +
                         api_->cublasLtGetStatusString(st));
  return Status::ok();
}

} // namespace tfc::rt::cuda
