//===- Backend.h - what a device backend implements -------------*- C++ -*-===//
//
// The executor (runtime/src/core/Executor.*) walks an entry's steps and calls
// a Backend for memory, kernels and GEMMs. Backends: host (reference
// interpreter + OpenBLAS) and cuda (libcuda via dlopen, NVRTC, cuBLASLt).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_BACKEND_H
#define TFC_RUNTIME_CORE_BACKEND_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Status.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tfc::rt {

/// An opaque device address (host pointer for the host backend, CUdeviceptr
/// for cuda).
using DevicePtr = uint64_t;

/// A kernel prepared for launching (compiled/parsed once per artifact).
class PreparedKernel {
public:
  virtual ~PreparedKernel() = default;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// "host" or "cuda".
  virtual std::string name() const = 0;
  /// One line describing the device ("NVIDIA H100 80GB HBM3, sm_90").
  virtual std::string deviceDescription() const = 0;

  virtual Status allocate(size_t bytes, DevicePtr &out) = 0;
  virtual void free(DevicePtr ptr) = 0;
  virtual Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  virtual Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) = 0;

  /// Compiles or parses `kernel` (cached where the backend can).
  virtual Status prepareKernel(const KernelDesc &kernel,
                               std::unique_ptr<PreparedKernel> &out) = 0;
  /// Launches a prepared kernel. `args` are the device addresses of its
  /// inputs then outputs, `argBuffers` their descriptors (same order).
  virtual Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                        const std::vector<DevicePtr> &args,
                        const std::vector<const BufferDesc *> &argBuffers) = 0;
  /// Runs `gemm` on device addresses a, b, c.
  virtual Status gemm(const GemmDesc &gemm, DevicePtr a, DevicePtr b,
                      DevicePtr c) = 0;
  /// Waits for all queued work.
  virtual Status synchronize() = 0;
};

/// The host backend (always available).
std::unique_ptr<Backend> createHostBackend();

/// The cuda backend, or an error saying why not (no libcuda, no GPU, ...).
Status createCudaBackend(std::unique_ptr<Backend> &out);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_BACKEND_H
