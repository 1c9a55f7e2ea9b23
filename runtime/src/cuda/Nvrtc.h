//===- Nvrtc.h - NVRTC loaded at run time -----------------------*- C++ -*-===//
//
// Compiles generated CUDA C++ to a cubin for one GPU architecture with NVRTC,
// which is dlopen'd (libnvrtc.so.13, then unversioned) so libtfcrt never
// links it. NVRTC needs no GPU and no driver: this part is exercised by the
// unit tests on CPU-only machines, together with the KernelCache.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_NVRTC_H
#define TFC_RUNTIME_CUDA_NVRTC_H

#include "runtime/src/core/Status.h"
#include "runtime/src/cuda/DynamicLibrary.h"
#include "runtime/src/cuda/KernelCache.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfc::rt::cuda {

struct NvrtcApi;

/// A loaded NVRTC. Thread-safe after load(): compile() and compileCached()
/// may run concurrently from several threads (the parallel kernel compile
/// does), because every call creates and destroys its own nvrtcProgram
/// (NVRTC allows concurrent calls on distinct programs), everything else the
/// object holds is fixed at load, and the compile counter is atomic.
class NvrtcCompiler {
public:
  ~NvrtcCompiler();

  /// Loads NVRTC; an error ("NVRTC not found (...)") when it is not
  /// installed or lacks a needed entry point.
  static Status load(std::unique_ptr<NvrtcCompiler> &out);

  /// "13.0" (what nvrtcVersion reports); part of every cache key.
  const std::string &version() const { return version_; }
  /// Architectures this NVRTC can emit cubins for (75, 80, 90, ...).
  const std::vector<int> &supportedArchs() const { return archs_; }
  /// The directory holding cuda_fp16.h / cuda_bf16.h, empty when none was
  /// found (kernels then cannot include them). Searched in TFC_CUDA_INCLUDE,
  /// CUDA_HOME/include, CUDA_PATH/include, the include/ beside the loaded
  /// libnvrtc, and /usr/local/cuda/include.
  const std::string &includeDir() const { return includeDir_; }

  /// The cubin architecture for a device of compute capability `deviceArch`
  /// (major*10+minor): the device's own when supported, else the newest
  /// supported one of the same major version not above it (cubins run on
  /// later minors of their major); error when there is none.
  Status pickArch(int deviceArch, int &arch) const;

  /// Options of a compile for `arch`: --gpu-architecture=sm_XX, -std=c++17,
  /// the include directory. No --use_fast_math: tfc's numerics contract
  /// wants IEEE division and accurate transcendental functions.
  std::vector<std::string> options(int arch) const;

  /// Compiles `source` for `arch` to a cubin. `name` is the program name
  /// shown in diagnostics. On failure the error carries NVRTC's log.
  Status compile(const std::string &source, const std::string &name, int arch,
                 std::string &cubin);

  /// compile() through `cache`: key = SHA-256 of (source, options, NVRTC
  /// version, arch).
  Status compileCached(KernelCache &cache, const std::string &source,
                       const std::string &name, int arch, std::string &cubin,
                       CacheOutcome *outcome = nullptr);

  /// Number of real NVRTC compiles run by this object, from all threads
  /// (tests).
  int64_t compileCount() const { return compileCount_.load(); }

private:
  NvrtcCompiler();

  DynamicLibrary library_;
  std::unique_ptr<NvrtcApi> api_;
  std::string version_;
  std::vector<int> archs_;
  std::string includeDir_;
  std::atomic<int64_t> compileCount_{0};
};

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_NVRTC_H
