//===- ParallelCompile.cpp - compile distinct kernels on a pool -----------===//

#include "runtime/src/cuda/ParallelCompile.h"

#include <algorithm>
#include <atomic>
#include <new>
#include <pthread.h>
#include <sched.h>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace tfc::rt::cuda {
namespace {

/// How one source's compile ended. Filled on the worker thread without
/// allocating (an exception handler must not throw again), turned into a
/// message on the calling thread.
struct Result {
  enum Kind { Ok, Failed, OutOfMemory, Threw } kind = Ok;
  Status status;    ///< Failed: what compileOne returned.
  std::string what; ///< Threw: the exception's what(), when it fit.
};

/// Joins every started thread when the pool goes out of scope, whatever
/// path leaves it: no thread outlives compileDistinct.
struct JoinAll {
  std::vector<std::thread> &threads;
  ~JoinAll() {
    for (std::thread &t : threads)
      if (t.joinable())
        t.join();
  }
};

} // namespace

unsigned availableCores() {
  // hardware_concurrency counts every core of the machine, also those a
  // container or taskset keeps this process off.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return unsigned(CPU_COUNT(&set));
  return std::max(std::thread::hardware_concurrency(), 1u);
}

int compileThreadCount(size_t distinct, unsigned hardware) {
  size_t n = std::min<size_t>(
      {std::max(hardware, 1u), size_t(kMaxCompileThreads), distinct});
  return int(std::max<size_t>(n, 1));
}

Status compileDistinct(const std::vector<CompileRequest> &requests,
                       const CompileOneFn &compileOne, CompiledKernels &out,
                       int threads) {
  out = CompiledKernels();
  // Group by source. The views point into `requests`, which outlives the map.
  std::unordered_map<std::string_view, size_t> bySource;
  std::vector<size_t> firstRequest; // distinct index -> request index
  out.distinctOf.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    auto [it, inserted] =
        bySource.emplace(requests[i].source, firstRequest.size());
    if (inserted)
      firstRequest.push_back(i);
    out.distinctOf[i] = it->second;
  }
  const size_t distinct = firstRequest.size();
  out.cubins.resize(distinct);
  out.outcomes.assign(distinct, CacheOutcome::Disabled);
  std::vector<Result> results(distinct);

  int n = compileThreadCount(distinct, availableCores());
  if (threads > 0)
    n = int(std::max<size_t>(
        1, std::min<size_t>(
               {size_t(threads), size_t(kMaxCompileThreads), distinct})));

  // Sources are claimed in order from one counter. A failure at index f
  // stops claims beyond f but lets every claimed source below f finish, so
  // the earliest failure is found whatever the timing.
  std::atomic<size_t> next{0};
  std::atomic<size_t> firstFailure{distinct};
  auto work = [&]() noexcept {
    while (true) {
      size_t j = next.fetch_add(1);
      if (j >= distinct || j > firstFailure.load())
        return;
      Result &r = results[j];
      try {
        r.status = compileOne(requests[firstRequest[j]], out.cubins[j],
                              out.outcomes[j]);
        if (!r.status)
          r.kind = Result::Failed;
      } catch (const std::bad_alloc &) {
        r.kind = Result::OutOfMemory;
      } catch (const std::exception &e) {
        r.kind = Result::Threw;
        try {
          r.what = e.what();
        } catch (...) {
        }
      } catch (...) {
        r.kind = Result::Threw;
      }
      if (r.kind == Result::Ok)
        continue;
      size_t seen = firstFailure.load();
      while (j < seen && !firstFailure.compare_exchange_weak(seen, j)) {
      }
    }
  };

  {
    std::vector<std::thread> pool;
    JoinAll joinAll{pool};
    // A thread the system refuses (or a failed reservation) only narrows the
    // pool: the threads already running, the calling one at least, finish
    // the work.
    try {
      pool.reserve(size_t(n - 1));
      for (int t = 1; t < n; ++t)
        pool.emplace_back([&work] {
          pthread_setname_np(pthread_self(), kCompileThreadName);
          work();
        });
    } catch (...) {
    }
    out.threads = int(pool.size()) + 1;
    work();
  }

  if (size_t f = firstFailure.load(); f < distinct) {
    const Result &r = results[f];
    std::string why;
    if (r.kind == Result::Failed)
      why = r.status.message();
    else if (r.kind == Result::OutOfMemory)
      why = "out of memory";
    else
      why = "unexpected exception" + (r.what.empty() ? "" : ": " + r.what);
    out.cubins.clear();
    return Status::error("compiling kernel '" + requests[firstRequest[f]].name +
                         "': " + why);
  }
  for (CacheOutcome o : out.outcomes)
    ++(o == CacheOutcome::Hit ? out.cacheHits : out.compiled);
  return Status::ok();
}

} // namespace tfc::rt::cuda
