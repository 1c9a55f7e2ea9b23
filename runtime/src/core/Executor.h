//===- Executor.h - runs an artifact's entries on a Backend -----*- C++ -*-===//
//
// The executor owns the device memory of one loaded artifact: one arena
// allocation (arena views are offsets into it, aliases share their root's
// address) and one allocation per external buffer, which keeps its contents
// across runs (parameters persist between training steps). Kernels are
// prepared once, at initialization.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_EXECUTOR_H
#define TFC_RUNTIME_CORE_EXECUTOR_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace tfc::rt {

class Executor {
public:
  /// Creates an executor for `artifact` on `backend`: allocates the arena and
  /// the externals (zero-filled), prepares every kernel. The backend is shared
  /// so that it outlives the executor's allocations.
  static Status create(std::shared_ptr<Backend> backend,
                       std::shared_ptr<const Artifact> artifact,
                       std::unique_ptr<Executor> &out);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const Artifact &artifact() const { return *artifact_; }
  Backend &backend() { return *backend_; }

  /// Copies `bytes` bytes of host memory into the external `name`; `bytes`
  /// must equal the buffer's size.
  Status setExternal(const std::string &name, const void *data, size_t bytes);
  /// Copies the external `name` into host memory of exactly its size.
  Status getExternal(const std::string &name, void *data, size_t bytes);
  /// True once the external `name` has been set (or written by a run).
  bool isExternalSet(const std::string &name) const;

  /// Runs the entry `name`: its steps in order, then synchronizes. Fails
  /// before launching anything when a param or input the entry reads has
  /// never been set.
  Status run(const std::string &name);

  /// The device address of buffer `id` (aliases resolve to their root).
  DevicePtr address(int64_t id) const { return addresses_[id]; }

private:
  Executor(std::shared_ptr<Backend> backend,
           std::shared_ptr<const Artifact> artifact);
  Status init();
  Status runStep(const Step &step);

  std::shared_ptr<Backend> backend_;
  std::shared_ptr<const Artifact> artifact_;
  std::vector<DevicePtr> allocations_; ///< To free, in any order.
  std::vector<DevicePtr> addresses_;   ///< Indexed by buffer id.
  std::vector<bool> written_;          ///< Indexed by buffer id (externals).
  std::vector<std::unique_ptr<PreparedKernel>> kernels_;
};

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_EXECUTOR_H
