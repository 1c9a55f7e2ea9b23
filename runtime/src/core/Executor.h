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

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfc::rt {

/// The measured cost of one step of an entry (Executor::profile).
struct StepProfile {
  std::string label; ///< "launch k3", "gemm" or "copy".
  std::string kind;  ///< The kernel kind, "gemm" or "copy".
  int64_t bytes = 0; ///< Bytes the step reads plus bytes it writes.
  double medianMs = 0;
};

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
  /// never been set. Before an entry that is not a refresh entry, runs the
  /// refresh entries (state derived from the parameters: the 16-bit weight
  /// copies) when a parameter was set since they last ran.
  Status run(const std::string &name);

  /// Runs the entry `name` `repeat` times, waiting for each step to finish
  /// before the next, and reports each step's median wall time and traffic.
  Status profile(const std::string &name, int repeat,
                 std::vector<StepProfile> &out);
  /// Median time of a device-to-device copy of `bytes` bytes: the bandwidth
  /// reference kernels are compared with.
  Status profileCopy(size_t bytes, int repeat, double &medianMs);

  /// What preparing the kernels cost at creation.
  const PrepareStats &prepareStats() const { return prepareStats_; }

  /// The device address of buffer `id` (aliases resolve to their root).
  DevicePtr address(int64_t id) const { return addresses_[id]; }

private:
  Executor(std::shared_ptr<Backend> backend,
           std::shared_ptr<const Artifact> artifact);
  Status init();
  Status runStep(const Step &step);
  Status findEntry(const std::string &name, const EntryDesc *&entry) const;
  /// Checks that every param/input `entry` reads was set; updates `written`.
  Status checkReads(const EntryDesc &entry, std::vector<bool> &written) const;
  /// Runs the steps; with `stepMs`, waits after each and appends its time.
  Status runSteps(const EntryDesc &entry,
                  std::vector<std::vector<double>> *stepMs);
  std::string stepLabel(const Step &step) const;
  /// Runs the refresh entries when a parameter was set since they last ran
  /// (before `entry`, unless it is one).
  Status refreshDerivedState(const EntryDesc &entry);
  int64_t stepBytes(const Step &step) const;

  std::shared_ptr<Backend> backend_;
  std::shared_ptr<const Artifact> artifact_;
  std::vector<DevicePtr> allocations_; ///< To free, in any order.
  std::vector<DevicePtr> addresses_;   ///< Indexed by buffer id.
  std::vector<bool> written_;          ///< Indexed by buffer id (externals).
  /// A parameter was set through setExternal since the refresh entries
  /// last ran (true at first: derived state starts zeroed).
  bool derivedStale_ = true;
  std::vector<std::unique_ptr<PreparedKernel>> kernels_;
  PrepareStats prepareStats_;
};

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_EXECUTOR_H
