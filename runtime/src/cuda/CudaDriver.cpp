//===- CudaDriver.cpp - libcuda loaded with dlopen ------------------------===//

#include "runtime/src/cuda/CudaDriver.h"

#include "runtime/src/cuda/DebugLog.h"

namespace tfc::rt::cuda {

Status CudaDriver::load(std::shared_ptr<CudaDriver> &out) {
  auto driver = std::make_shared<CudaDriver>();
  // Only the soname: libcuda.so (without .1) comes from development
  // packages and may be a stub library that fails every call.
  if (Status s = driver->library_.open({"libcuda.so.1"}); !s) {
    debugLog(s.message());
    return Status::error("no CUDA driver (libcuda.so.1 not found)");
  }
  DriverApi &api = driver->api_;
  const DynamicLibrary &lib = driver->library_;
#define TFC_BIND(sym)                                                          \
  if (Status s = lib.bind(api.sym, #sym); !s)                                  \
    return Status::error("CUDA driver too old: " + s.message());
  TFC_BIND(cuInit);
  TFC_BIND(cuDriverGetVersion);
  TFC_BIND(cuGetErrorString);
  TFC_BIND(cuGetErrorName);
  TFC_BIND(cuDeviceGetCount);
  TFC_BIND(cuDeviceGet);
  TFC_BIND(cuDeviceGetAttribute);
  TFC_BIND(cuDeviceGetName);
  TFC_BIND(cuDevicePrimaryCtxRetain);
  TFC_BIND(cuDevicePrimaryCtxRelease_v2);
  TFC_BIND(cuCtxSetCurrent);
  TFC_BIND(cuMemAlloc_v2);
  TFC_BIND(cuMemFree_v2);
  TFC_BIND(cuMemcpyHtoD_v2);
  TFC_BIND(cuMemcpyDtoH_v2);
  TFC_BIND(cuMemcpyDtoDAsync_v2);
  TFC_BIND(cuStreamCreate);
  TFC_BIND(cuStreamDestroy_v2);
  TFC_BIND(cuStreamSynchronize);
  TFC_BIND(cuModuleLoadData);
  TFC_BIND(cuModuleUnload);
  TFC_BIND(cuModuleGetFunction);
  TFC_BIND(cuFuncSetAttribute);
  TFC_BIND(cuLaunchKernel);
#undef TFC_BIND
  api.cuFuncGetParamInfo = reinterpret_cast<decltype(api.cuFuncGetParamInfo)>(
      lib.lookup("cuFuncGetParamInfo"));
  out = std::move(driver);
  return Status::ok();
}

Status CudaDriver::check(CUresult result, const char *what) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *name = nullptr, *text = nullptr;
  if (api_.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "CUDA_ERROR_UNKNOWN";
  if (api_.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "unrecognized error code";
  return Status::error(std::string(what) + " failed: " + name + " (" + text +
                       ")");
}

std::string CudaDriver::versionString() const {
  int v = 0;
  if (api_.cuDriverGetVersion(&v) != CUDA_SUCCESS)
    return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

} // namespace tfc::rt::cuda
