//===- ParallelCompile.h - compile distinct kernels on a pool ---*- C++ -*-===//
//
// A cold start compiles every kernel of a program with NVRTC, one call of
// tens to hundreds of milliseconds each. NVRTC runs calls on distinct
// programs concurrently, so the kernels are grouped by source (equal sources
// have equal cache keys and equal cubins), and each distinct source is
// compiled once through the on-disk cache on a pool of threads: a cold start
// then costs about (distinct kernels / cores) NVRTC calls.
//
// The pool itself (compileDistinct) knows nothing of CUDA: it runs a compile
// function, so tests drive it with fakes as well as with NVRTC. Loading the
// cubins into modules is not done here; that needs the CUDA context, and the
// backend does it afterwards on its own thread.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_PARALLELCOMPILE_H
#define TFC_RUNTIME_CUDA_PARALLELCOMPILE_H

#include "runtime/src/core/Status.h"
#include "runtime/src/cuda/KernelCache.h"
#include "runtime/src/cuda/Nvrtc.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tfc::rt::cuda {

/// The most threads one compile uses. Past this the gain is small and every
/// NVRTC call holds its own front end and optimizer state (tens to hundreds
/// of MiB on large kernels).
constexpr int kMaxCompileThreads = 16;

/// The name (/proc/self/task/*/comm) of the pool's threads, so tools and
/// tests can tell them from threads that NVRTC or the driver start.
constexpr const char *kCompileThreadName = "tfc-compile";

/// Cores this process may run on: its CPU affinity mask (taskset, cgroup
/// cpusets), else std::thread::hardware_concurrency(); at least 1.
unsigned availableCores();

/// Threads that compile `distinct` sources on a machine with `hardware`
/// cores: min(hardware, kMaxCompileThreads, distinct), at least 1 (the
/// calling thread). `hardware` 0 (unknown) counts as 1.
int compileThreadCount(size_t distinct, unsigned hardware);

/// One kernel to compile.
struct CompileRequest {
  std::string name;   ///< Shown in errors and NVRTC's diagnostics.
  std::string source; ///< CUDA C++.
};

/// The cubins of a list of requests and what producing them took.
struct CompiledKernels {
  /// The cubin of each distinct source, in order of first appearance.
  std::vector<std::string> cubins;
  /// What the cache lookup of each distinct source found (Hit: no NVRTC).
  std::vector<CacheOutcome> outcomes;
  /// For request i, the index of its source in `cubins` and `outcomes`.
  std::vector<size_t> distinctOf;
  int64_t compiled = 0;  ///< Distinct sources compiled (not cache hits).
  int64_t cacheHits = 0; ///< Distinct sources taken from the cache.
  int threads = 1;       ///< Threads that compiled, the calling one included.

  size_t distinct() const { return cubins.size(); }
  /// The cubin of request `i` (requests with equal sources share one).
  const std::string &cubin(size_t i) const { return cubins[distinctOf[i]]; }
};

/// Produces the cubin of `request`, saying in `outcome` whether the cache
/// served it. Called concurrently from several threads, each call with its
/// own request and outputs.
using CompileOneFn = std::function<Status(
    const CompileRequest &request, std::string &cubin, CacheOutcome &outcome)>;

/// Groups `requests` by identical source and runs `compileOne` once per
/// distinct source (on the first request carrying it) on `threads` threads,
/// the calling one included: 0 picks compileThreadCount(distinct,
/// availableCores()),
/// anything else is clamped to [1, min(kMaxCompileThreads, distinct)]. Every
/// thread has been joined when this returns.
///
/// Errors: the failure of the earliest request (in request order) wins, as
/// "compiling kernel '<name>': <message>"; later failures are dropped, and
/// sources after a failed one are not started. An exception thrown by
/// `compileOne` (bad_alloc, ...) becomes such an error; none escapes. On
/// error `out` holds no cubins.
Status compileDistinct(const std::vector<CompileRequest> &requests,
                       const CompileOneFn &compileOne, CompiledKernels &out,
                       int threads = 0);

/// compileDistinct with NVRTC through `cache` for `arch`. Within one call
/// the compiler, its options and the architecture are fixed, so equal
/// sources are exactly equal cache keys. `nvrtc` and `cache` are used from
/// several threads at once (both allow it).
inline Status compileKernels(NvrtcCompiler &nvrtc, KernelCache &cache, int arch,
                             const std::vector<CompileRequest> &requests,
                             CompiledKernels &out, int threads = 0) {
  return compileDistinct(
      requests,
      [&](const CompileRequest &r, std::string &cubin, CacheOutcome &outcome) {
        return nvrtc.compileCached(cache, r.source, r.name, arch, cubin,
                                   &outcome);
      },
      out, threads);
}

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_PARALLELCOMPILE_H
