//===- CudaDriver.h - libcuda loaded with dlopen ----------------*- C++ -*-===//
//
// The driver API symbol table of the cuda backend (the approach of IREE's
// cuda_dynamic_symbol_table.h): libcuda.so.1 is dlopen'd and each entry point
// bound by its exact versioned name, so libtfcrt never links libcuda and a
// machine without a driver gets an error instead of a loader failure.
// cuda.h is included for its types only.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_CUDADRIVER_H
#define TFC_RUNTIME_CUDA_CUDADRIVER_H

#include "runtime/src/core/Status.h"
#include "runtime/src/cuda/DynamicLibrary.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace tfc::rt::cuda {

/// The driver entry points tfc uses. Members are named like the exported
/// symbols (the `_v2` ones are what cuda.h's macros resolve to).
struct DriverApi {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned int);
  CUresult (*cuStreamDestroy_v2)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int,
                             unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, CUstream, void **,
                             void **);
  /// Optional (driver 12.4+): lets launch() check the argument count.
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
};

/// A loaded driver. Kept alive (shared) by everything that holds driver
/// objects, so modules and memory are released before the library closes.
class CudaDriver {
public:
  /// Loads libcuda.so.1 and binds the symbol table. Errors: "no CUDA driver
  /// (libcuda.so.1 not found)", or a missing symbol (driver too old).
  static Status load(std::shared_ptr<CudaDriver> &out);

  const DriverApi &api() const { return api_; }
  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; ok for
  /// CUDA_SUCCESS.
  Status check(CUresult result, const char *what) const;
  /// Driver version as "13.0".
  std::string versionString() const;

private:
  DynamicLibrary library_;
  DriverApi api_{};
};

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_CUDADRIVER_H
