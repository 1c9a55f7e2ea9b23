//===- CudaBackend.cpp - the cuda backend ---------------------------------===//
//
// Backend.h over the CUDA driver API: the device's primary context (shared
// with cuBLASLt and any other CUDA user in the process), one stream for all
// work, kernels compiled by NVRTC through the on-disk KernelCache (a
// program's distinct kernels in parallel, ParallelCompile.h) and loaded as
// cubins, GEMMs on cuBLASLt. Every driver library is dlopen'd.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/core/Backend.h"
#include "runtime/src/cuda/CublasLt.h"
#include "runtime/src/cuda/CudaDriver.h"
#include "runtime/src/cuda/DebugLog.h"
#include "runtime/src/cuda/KernelCache.h"
#include "runtime/src/cuda/Nvrtc.h"
#include "runtime/src/cuda/ParallelCompile.h"

#include <cstdint>
#include <limits>

namespace tfc::rt {
namespace cuda {
namespace {

/// The device and its retained primary context. Shared by the backend and
/// its prepared kernels so that modules unload before the context goes.
struct DeviceContext {
  std::shared_ptr<CudaDriver> driver;
  CUdevice device = 0;
  CUcontext context = nullptr;

  ~DeviceContext() {
    if (context)
      (void)driver->api().cuDevicePrimaryCtxRelease_v2(device);
  }
  /// The primary context must be current on the calling thread; the backend
  /// may be driven from a different thread than the one that created it.
  Status makeCurrent() const {
    return driver->check(driver->api().cuCtxSetCurrent(context),
                         "cuCtxSetCurrent");
  }
};

class CudaPreparedKernel : public PreparedKernel {
public:
  CudaPreparedKernel(std::shared_ptr<DeviceContext> ctx, CUmodule module,
                     CUfunction function, int64_t numParams)
      : ctx_(std::move(ctx)), module_(module), function_(function),
        numParams_(numParams) {}
  ~CudaPreparedKernel() override {
    if (ctx_->makeCurrent())
      (void)ctx_->driver->api().cuModuleUnload(module_);
  }
  CUfunction function() const { return function_; }
  /// Parameter count from the cubin, or -1 when the driver cannot tell.
  int64_t numParams() const { return numParams_; }

private:
  std::shared_ptr<DeviceContext> ctx_;
  CUmodule module_;
  CUfunction function_;
  int64_t numParams_;
};

class CudaBackend : public Backend {
public:
  ~CudaBackend() override;
  static Status create(std::unique_ptr<Backend> &out);

  std::string name() const override { return "cuda"; }
  std::string deviceDescription() const override { return description_; }

  Status allocate(size_t bytes, DevicePtr &out) override;
  void free(DevicePtr ptr) override;
  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override;
  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override;
  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override;
  Status prepareKernel(const KernelDesc &kernel,
                       std::unique_ptr<PreparedKernel> &out) override;
  Status prepareKernels(const std::vector<KernelDesc> &kernels,
                        std::vector<std::unique_ptr<PreparedKernel>> &out,
                        PrepareStats &stats) override;
  Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                const std::vector<DevicePtr> &args,
                const std::vector<const BufferDesc *> &argBuffers) override;
  Status gemm(const GemmDesc &gemm, const GemmOperands &operands) override;
  Status synchronize() override;

private:
  CudaBackend() : cache_(KernelCache::fromEnvironment()) {}
  const DriverApi &api() const { return ctx_->driver->api(); }
  Status check(CUresult r, const char *what) const {
    return ctx_->driver->check(r, what);
  }
  Status loadModule(const std::string &cubin, const KernelDesc &kernel,
                    CUmodule &module);
  /// Makes the prepared kernel of `kernel` from its `cubin`, which the cache
  /// lookup found as `outcome`. A cached cubin that does not load is
  /// recompiled and replaced, in the cache and in `cubin` (then `outcome`
  /// becomes Miss), so kernels sharing the source load the fresh one. Runs
  /// on the thread whose context is current.
  Status loadKernel(const KernelDesc &kernel, std::string &cubin,
                    CacheOutcome &outcome,
                    std::unique_ptr<PreparedKernel> &out);

  std::shared_ptr<DeviceContext> ctx_;
  CUstream stream_ = nullptr;
  int deviceArch_ = 0;  ///< Compute capability, 90 for sm_90.
  int compileArch_ = 0; ///< Cubin architecture NVRTC emits for it.
  int maxThreadsPerBlock_ = 1024;
  int maxSharedOptin_ = 48 * 1024;
  std::string description_;
  std::unique_ptr<NvrtcCompiler> nvrtc_;
  KernelCache cache_;
  std::unique_ptr<CublasLtGemm> blas_;
};

Status CudaBackend::create(std::unique_ptr<Backend> &out) {
  std::shared_ptr<CudaDriver> driver;
  TFC_RETURN_IF_ERROR(CudaDriver::load(driver));
  const DriverApi &api = driver->api();
  CUresult init = api.cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    return Status::error("no CUDA device");
  if (init != CUDA_SUCCESS)
    return Status::error("CUDA driver initialization failed: " +
                         driver->check(init, "cuInit").message());
  int count = 0;
  TFC_RETURN_IF_ERROR(
      driver->check(api.cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count <= 0)
    return Status::error("no CUDA device");

  std::unique_ptr<CudaBackend> b(new CudaBackend());
  b->ctx_ = std::make_shared<DeviceContext>();
  b->ctx_->driver = driver;
  // Device 0 of what CUDA_VISIBLE_DEVICES exposes.
  TFC_RETURN_IF_ERROR(
      driver->check(api.cuDeviceGet(&b->ctx_->device, 0), "cuDeviceGet"));
  CUdevice dev = b->ctx_->device;
  int major = 0, minor = 0;
  TFC_RETURN_IF_ERROR(driver->check(
      api.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
      "cuDeviceGetAttribute"));
  TFC_RETURN_IF_ERROR(driver->check(
      api.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
      "cuDeviceGetAttribute"));
  TFC_RETURN_IF_ERROR(driver->check(
      api.cuDeviceGetAttribute(&b->maxThreadsPerBlock_,
                               CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev),
      "cuDeviceGetAttribute"));
  TFC_RETURN_IF_ERROR(driver->check(
      api.cuDeviceGetAttribute(
          &b->maxSharedOptin_,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
      "cuDeviceGetAttribute"));
  b->deviceArch_ = major * 10 + minor;
  char name[256] = {0};
  TFC_RETURN_IF_ERROR(
      driver->check(api.cuDeviceGetName(name, int(sizeof(name) - 1), dev),
                    "cuDeviceGetName"));
  b->description_ =
      std::string(name) + ", sm_" + std::to_string(b->deviceArch_);

  TFC_RETURN_IF_ERROR(
      driver->check(api.cuDevicePrimaryCtxRetain(&b->ctx_->context, dev),
                    "cuDevicePrimaryCtxRetain"));
  TFC_RETURN_IF_ERROR(b->ctx_->makeCurrent());
  // A blocking stream: it orders with the legacy default stream, which the
  // synchronous host<->device copies use.
  TFC_RETURN_IF_ERROR(
      driver->check(api.cuStreamCreate(&b->stream_, 0), "cuStreamCreate"));

  if (Status s = NvrtcCompiler::load(b->nvrtc_); !s)
    return Status::error("cuda backend: " + s.message());
  TFC_RETURN_IF_ERROR(b->nvrtc_->pickArch(b->deviceArch_, b->compileArch_));
  if (Status s =
          CublasLtGemm::create(driver, b->deviceArch_, b->stream_, b->blas_);
      !s)
    return Status::error("cuda backend: " + s.message());

  debugLog("cuda backend on " + b->description_ + " (driver " +
           driver->versionString() + ", NVRTC " + b->nvrtc_->version() +
           " emitting sm_" + std::to_string(b->compileArch_) +
           ", kernel cache " +
           (b->cache_.enabled() ? b->cache_.directory() : "disabled") + ")");
  out = std::move(b);
  return Status::ok();
}

CudaBackend::~CudaBackend() {
  if (!ctx_ || !ctx_->makeCurrent())
    return;
  blas_.reset();
  if (stream_) {
    (void)api().cuStreamSynchronize(stream_);
    (void)api().cuStreamDestroy_v2(stream_);
  }
}

Status CudaBackend::allocate(size_t bytes, DevicePtr &out) {
  out = 0;
  // cuMemAlloc rejects 0 bytes; an empty buffer needs no memory.
  if (bytes == 0)
    return Status::ok();
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  CUdeviceptr ptr = 0;
  if (Status s = check(api().cuMemAlloc_v2(&ptr, bytes), "cuMemAlloc"); !s)
    return Status::error(s.message() + " allocating " + std::to_string(bytes) +
                         " bytes on " + description_);
  out = DevicePtr(ptr);
  return Status::ok();
}

void CudaBackend::free(DevicePtr ptr) {
  if (!ptr || !ctx_->makeCurrent())
    return;
  if (Status s = check(api().cuMemFree_v2(CUdeviceptr(ptr)), "cuMemFree"); !s)
    debugLog(s.message());
}

Status CudaBackend::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (!dst || !src)
    return Status::error("cuda copy to device: null address");
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  return check(api().cuMemcpyHtoD_v2(CUdeviceptr(dst), src, bytes),
               "cuMemcpyHtoD");
}

Status CudaBackend::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (!dst || !src)
    return Status::error("cuda copy to host: null address");
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  // Synchronous on the legacy stream, which waits for our blocking stream:
  // the data includes every queued kernel's writes.
  return check(api().cuMemcpyDtoH_v2(dst, CUdeviceptr(src), bytes),
               "cuMemcpyDtoH");
}

Status CudaBackend::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (bytes == 0 || dst == src)
    return Status::ok();
  if (!dst || !src)
    return Status::error("cuda device copy: null address");
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  return check(api().cuMemcpyDtoDAsync_v2(CUdeviceptr(dst), CUdeviceptr(src),
                                          bytes, stream_),
               "cuMemcpyDtoDAsync");
}

Status CudaBackend::loadModule(const std::string &cubin,
                               const KernelDesc &kernel, CUmodule &module) {
  if (Status s = check(api().cuModuleLoadData(&module, cubin.data()),
                       "cuModuleLoadData");
      !s)
    return Status::error("kernel " + kernel.name + ": " + s.message());
  return Status::ok();
}

static Status checkKernel(const KernelDesc &kernel) {
  if (kernel.name.empty())
    return Status::error("cuda backend: a kernel has no name");
  if (kernel.cudaSource.empty())
    return Status::error(
        "cuda backend: kernel '" + kernel.name +
        "' has no CUDA source: the artifact was compiled for the host "
        "(target=host); compile it for a GPU target (sm_80, sm_90) to run "
        "it on a GPU");
  return Status::ok();
}

Status CudaBackend::prepareKernel(const KernelDesc &kernel,
                                  std::unique_ptr<PreparedKernel> &out) {
  TFC_RETURN_IF_ERROR(checkKernel(kernel));
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  std::string cubin;
  CacheOutcome outcome = CacheOutcome::Disabled;
  TFC_RETURN_IF_ERROR(nvrtc_->compileCached(
      cache_, kernel.cudaSource, kernel.name, compileArch_, cubin, &outcome));
  return loadKernel(kernel, cubin, outcome, out);
}

Status
CudaBackend::prepareKernels(const std::vector<KernelDesc> &kernels,
                            std::vector<std::unique_ptr<PreparedKernel>> &out,
                            PrepareStats &stats) {
  out.clear();
  std::vector<CompileRequest> requests;
  requests.reserve(kernels.size());
  for (const KernelDesc &kernel : kernels) {
    TFC_RETURN_IF_ERROR(checkKernel(kernel));
    requests.push_back({kernel.name, kernel.cudaSource});
  }
  // NVRTC needs no context, so the pool's threads never touch the driver;
  // modules are loaded below on this thread, where the context is current.
  CompiledKernels compiled;
  TFC_RETURN_IF_ERROR(
      compileKernels(*nvrtc_, cache_, compileArch_, requests, compiled));
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  out.resize(kernels.size());
  int64_t recompiled = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    size_t d = compiled.distinctOf[i];
    bool wasHit = compiled.outcomes[d] == CacheOutcome::Hit;
    if (Status s = loadKernel(kernels[i], compiled.cubins[d],
                              compiled.outcomes[d], out[i]);
        !s) {
      out.clear(); // unloads the modules loaded so far
      return Status::error("preparing kernel '" + kernels[i].name +
                           "': " + s.message());
    }
    recompiled += wasHit && compiled.outcomes[d] != CacheOutcome::Hit;
  }
  stats.kernels = int64_t(kernels.size());
  stats.distinct = int64_t(compiled.distinct());
  stats.compiled = compiled.compiled + recompiled;
  stats.cacheHits = compiled.cacheHits - recompiled;
  stats.threads = compiled.threads;
  debugLog("prepared " + std::to_string(stats.kernels) +
           " kernels: " + std::to_string(stats.distinct) + " distinct, " +
           std::to_string(stats.compiled) + " compiled, " +
           std::to_string(stats.cacheHits) + " from the cache, on " +
           std::to_string(stats.threads) + " threads");
  return Status::ok();
}

Status CudaBackend::loadKernel(const KernelDesc &kernel, std::string &cubin,
                               CacheOutcome &outcome,
                               std::unique_ptr<PreparedKernel> &out) {
  CUmodule module = nullptr;
  Status loaded = loadModule(cubin, kernel, module);
  if (!loaded && outcome == CacheOutcome::Hit) {
    // A cache entry that passes its checksum but does not load (written by a
    // buggy or foreign tool): compile afresh and replace it.
    debugLog("cached cubin of " + kernel.name + " does not load (" +
             loaded.message() + "); recompiling");
    TFC_RETURN_IF_ERROR(
        nvrtc_->compile(kernel.cudaSource, kernel.name, compileArch_, cubin));
    outcome = CacheOutcome::Miss;
    std::string key = KernelCache::makeKey(
        kernel.cudaSource, nvrtc_->options(compileArch_),
        "nvrtc-" + nvrtc_->version(), "sm_" + std::to_string(compileArch_));
    if (Status s = cache_.store(key, cubin); !s)
      debugLog(s.message());
    loaded = loadModule(cubin, kernel, module);
  }
  TFC_RETURN_IF_ERROR(loaded);

  CUfunction function = nullptr;
  if (Status s = check(
          api().cuModuleGetFunction(&function, module, kernel.name.c_str()),
          "cuModuleGetFunction");
      !s) {
    (void)api().cuModuleUnload(module);
    return Status::error(
        "kernel " + kernel.name +
        ": no extern \"C\" __global__ function of that name (" + s.message() +
        ")");
  }
  // Let the kernel use more than 48 KiB of dynamic shared memory when it
  // asks for it (the opt-in limit is per device).
  if (kernel.sharedBytes > 48 * 1024) {
    Status s =
        kernel.sharedBytes > uint32_t(maxSharedOptin_)
            ? Status::error("needs " + std::to_string(kernel.sharedBytes) +
                            " bytes of shared memory, the device has " +
                            std::to_string(maxSharedOptin_))
            : check(api().cuFuncSetAttribute(
                        function,
                        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        int(kernel.sharedBytes)),
                    "cuFuncSetAttribute");
    if (!s) {
      (void)api().cuModuleUnload(module);
      return Status::error("kernel " + kernel.name + ": " + s.message());
    }
  }
  // Count parameters when the driver can (12.4+): launch() then rejects a
  // wrong argument count instead of letting the kernel read garbage.
  int64_t numParams = -1;
  if (api().cuFuncGetParamInfo) {
    size_t offset = 0, size = 0;
    numParams = 0;
    while (numParams < 4096 &&
           api().cuFuncGetParamInfo(function, size_t(numParams), &offset,
                                    &size) == CUDA_SUCCESS)
      ++numParams;
  }
  out = std::make_unique<CudaPreparedKernel>(ctx_, module, function, numParams);
  return Status::ok();
}

Status CudaBackend::launch(PreparedKernel &kernel, const KernelDesc &desc,
                           const std::vector<DevicePtr> &args,
                           const std::vector<const BufferDesc *> &argBuffers) {
  auto *prepared = dynamic_cast<CudaPreparedKernel *>(&kernel);
  if (!prepared)
    return Status::error("kernel " + desc.name +
                         " was not prepared by the cuda backend");
  if (args.size() != argBuffers.size())
    return Status::error("kernel " + desc.name + ": " +
                         std::to_string(args.size()) + " addresses but " +
                         std::to_string(argBuffers.size()) + " buffers");
  if (prepared->numParams() >= 0 &&
      int64_t(args.size()) != prepared->numParams())
    return Status::error("kernel " + desc.name + " takes " +
                         std::to_string(prepared->numParams()) +
                         " parameters, launch passes " +
                         std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i] && (!argBuffers[i] || argBuffers[i]->bytes > 0))
      return Status::error("kernel " + desc.name + ": argument " +
                           std::to_string(i) + " has a null address");
  const auto &g = desc.grid;
  const auto &bl = desc.block;
  for (int i = 0; i < 3; ++i)
    if (g[i] == 0 || bl[i] == 0)
      return Status::error("kernel " + desc.name +
                           ": grid and block dimensions must be positive");
  uint64_t threads = uint64_t(bl[0]) * bl[1] * bl[2];
  if (threads > uint64_t(maxThreadsPerBlock_))
    return Status::error("kernel " + desc.name + ": block of " +
                         std::to_string(threads) +
                         " threads exceeds the device limit of " +
                         std::to_string(maxThreadsPerBlock_));
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());

  // cuLaunchKernel takes a pointer to each parameter's value.
  std::vector<CUdeviceptr> values(args.begin(), args.end());
  std::vector<void *> params(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    params[i] = &values[i];
  if (Status s =
          check(api().cuLaunchKernel(prepared->function(), g[0], g[1], g[2],
                                     bl[0], bl[1], bl[2], desc.sharedBytes,
                                     stream_, params.data(), nullptr),
                "cuLaunchKernel");
      !s)
    return Status::error("kernel " + desc.name + ": " + s.message());
  return Status::ok();
}

Status CudaBackend::gemm(const GemmDesc &gemm, const GemmOperands &operands) {
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  return blas_->run(gemm, operands);
}

Status CudaBackend::synchronize() {
  TFC_RETURN_IF_ERROR(ctx_->makeCurrent());
  // Asynchronous faults of earlier launches surface here.
  return check(api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

} // namespace
} // namespace cuda

Status createCudaBackend(std::unique_ptr<Backend> &out) {
  return cuda::CudaBackend::create(out);
}

} // namespace tfc::rt
