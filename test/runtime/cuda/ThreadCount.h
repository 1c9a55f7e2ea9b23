//===- ThreadCount.h - threads of this process, for leak checks -*- C++ -*-===//
//
// The CUDA compile tests check that no thread a call started outlives it,
// by counting the entries of /proc/self/task (Linux).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TEST_RUNTIME_CUDA_THREADCOUNT_H
#define TFC_TEST_RUNTIME_CUDA_THREADCOUNT_H

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace tfc::rt::test {

/// Threads of this process; only those named `name` (their comm) unless it
/// is empty.
inline size_t liveThreads(const std::string &name = "") {
  size_t n = 0;
  for (const auto &e : std::filesystem::directory_iterator("/proc/self/task")) {
    if (name.empty()) {
      ++n;
      continue;
    }
    std::ifstream comm(e.path() / "comm");
    std::string threadName;
    std::getline(comm, threadName);
    n += threadName == name;
  }
  return n;
}

/// liveThreads(name) once the threads a call joined are gone, waiting up to
/// 5 s for it to reach `expected`. A joined thread can still be listed in
/// /proc/self/task for a moment: the kernel wakes pthread_join when the
/// thread releases its memory, before it removes the task (seen on a
/// loaded machine: one thread more than before, right after a join). A
/// thread that really outlives the call is still counted after 5 s.
inline size_t threadsAfterJoin(size_t expected, const std::string &name = "") {
  size_t n = liveThreads(name);
  for (int i = 0; i < 5000 && n != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = liveThreads(name);
  }
  return n;
}

} // namespace tfc::rt::test

#endif // TFC_TEST_RUNTIME_CUDA_THREADCOUNT_H
