//===- CudaUnavailable.cpp - createCudaBackend without CUDA headers -------===//
//
// Built instead of the cuda backend when the CUDA toolkit headers (cuda.h,
// nvrtc.h, cublasLt.h) were not found at configure time, so libtfcrt still
// links and tools fall back to the host backend with a clear reason.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Backend.h"

namespace tfc::rt {

Status createCudaBackend(std::unique_ptr<Backend> &out) {
  return Status::error("cuda backend not built (CUDA toolkit headers were not "
                       "found when libtfcrt was configured)");
}

} // namespace tfc::rt
