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
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfc::rt {

/// An opaque device address (host pointer for the host backend, CUdeviceptr
/// for cuda).
using DevicePtr = uint64_t;

/// The device addresses of one GEMM step's buffers; the GemmDesc says how
/// each is laid out. `bias` and `aux` are 0 when the epilogue has none.
struct GemmOperands {
  DevicePtr a = 0, b = 0; ///< Read.
  DevicePtr c = 0;        ///< Written (read too when beta != 0).
  /// n c_type elements (epilogueHasBias): read (the bias) or written (the
  /// bias gradient), as epilogueBias says.
  DevicePtr bias = 0;
  /// m rows of ldc c_type elements like C (epilogueHasAux): written (the
  /// GELU input) or read (that input, by its gradient), as epilogueAux says.
  DevicePtr aux = 0;
};

/// Checks that `operands` fit `gemm`: a, b and c set, bias set exactly when
/// the epilogue has one (read or written), aux likewise. The message names
/// the operand and the epilogue; backends prefix their own "gemm: ".
Status checkGemmOperands(const GemmDesc &gemm, const GemmOperands &operands);

/// A kernel prepared for launching (compiled/parsed once per artifact).
class PreparedKernel {
public:
  virtual ~PreparedKernel() = default;
};

/// What preparing an artifact's kernels cost (tfc_compile_info; the
/// executor measures the wall time).
struct PrepareStats {
  int64_t kernels = 0;   ///< Kernels prepared.
  int64_t distinct = 0;  ///< Distinct sources among them.
  int64_t compiled = 0;  ///< Compiled (NVRTC) or parsed (host) now.
  int64_t cacheHits = 0; ///< Taken from an on-disk cache.
  int threads = 1;       ///< Threads that compiled.
  double wallMs = 0;
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
  /// allocate, then every byte zero. The default copies from a zeroed host
  /// buffer of at most 1 MiB, piece by piece; a backend whose allocations
  /// are zero already (host) or that has a device memset overrides it.
  virtual Status allocateZeroed(size_t bytes, DevicePtr &out);
  virtual Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  virtual Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) = 0;

  /// Compiles or parses `kernel` (cached where the backend can).
  virtual Status prepareKernel(const KernelDesc &kernel,
                               std::unique_ptr<PreparedKernel> &out) = 0;
  /// Prepares every kernel of an artifact: `out[i]` for `kernels[i]`. The
  /// default calls prepareKernel in order (every kernel counted as
  /// compiled); a backend with expensive compiles overrides it to compile
  /// distinct kernels once, in parallel. Errors name the kernel.
  virtual Status prepareKernels(const std::vector<KernelDesc> &kernels,
                                std::vector<std::unique_ptr<PreparedKernel>> &out,
                                PrepareStats &stats);
  /// Launches a prepared kernel. `args` are the device addresses of its
  /// inputs then outputs, `argBuffers` their descriptors (same order).
  virtual Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                        const std::vector<DevicePtr> &args,
                        const std::vector<const BufferDesc *> &argBuffers) = 0;
  /// Runs `gemm`, epilogue included, on the device addresses `operands`.
  virtual Status gemm(const GemmDesc &gemm, const GemmOperands &operands) = 0;
  /// Waits for all queued work.
  virtual Status synchronize() = 0;
};

/// The host backend (always available).
std::unique_ptr<Backend> createHostBackend();

/// The cuda backend, or an error saying why not (no libcuda, no GPU, ...).
Status createCudaBackend(std::unique_ptr<Backend> &out);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_BACKEND_H
