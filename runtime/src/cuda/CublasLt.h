//===- CublasLt.h - GEMMs through a dlopen'd cuBLASLt -----------*- C++ -*-===//
//
// Runs GemmDesc steps with cuBLASLt (libcublasLt.so.13, dlopen'd): the
// row-major GEMM is mapped to a column-major one (GemmMapping.h), the
// algorithm comes from cublasLtMatmulAlgoGetHeuristic and is cached with its
// descriptors per shape/layout/type/epilogue/alignment, and one workspace is
// shared by all calls (32 MiB on Hopper and later, as NVIDIA recommends
// there; 4 MiB elsewhere). Epilogues run as the cuBLASLt epilogue of the
// same name (BIAS, RELU, RELU_BIAS, GELU, GELU_BIAS, GELU_AUX, GELU_AUX_BIAS;
// GemmMapping.h). All work goes to the backend's one stream.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_CUBLASLT_H
#define TFC_RUNTIME_CUDA_CUBLASLT_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/Status.h"
#include "runtime/src/cuda/CudaDriver.h"
#include "runtime/src/cuda/GemmMapping.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace tfc::rt::cuda {

struct CublasLtApi;

/// cuBLASLt bound to one device context and stream.
class CublasLtGemm {
public:
  ~CublasLtGemm();

  /// Loads cuBLASLt, creates its handle and allocates the workspace on the
  /// current context. `deviceArch` is the compute capability (90 = sm_90).
  static Status create(std::shared_ptr<CudaDriver> driver, int deviceArch,
                       CUstream stream, std::unique_ptr<CublasLtGemm> &out);

  /// Validates `gemm` and its operands and enqueues it on the stream.
  Status run(const GemmDesc &gemm, const GemmOperands &operands);

  /// "cuBLASLt 130000".
  std::string version() const;
  size_t workspaceBytes() const { return workspaceBytes_; }
  /// Number of cached heuristic plans (tests).
  size_t cachedPlans() const { return plans_.size(); }

private:
  struct Plan;
  CublasLtGemm();
  Status makePlan(const ColumnMajorGemm &cm, std::unique_ptr<Plan> &out);

  std::shared_ptr<CudaDriver> driver_;
  DynamicLibrary library_;
  std::unique_ptr<CublasLtApi> api_;
  void *handle_ = nullptr; ///< cublasLtHandle_t
  CUstream stream_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspaceBytes_ = 0;
  std::unordered_map<std::string, std::unique_ptr<Plan>> plans_;
};

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_CUBLASLT_H
