//===- FakeBackend.h - test double for the Backend interface ----*- C++ -*-===//
//
// TEST ONLY. A minimal in-memory Backend so the executor and the C API can be
// unit-tested without the real host/cuda backends. It "interprets" only
// single-op f32 `add`/`mul` host programs of equal-size operands and f32
// GEMMs (epilogues included), records every call, and can be told to fail a
// given call.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TEST_RUNTIME_FAKEBACKEND_H
#define TFC_TEST_RUNTIME_FAKEBACKEND_H

#include "runtime/src/core/Backend.h"

#include <map>
#include <string>
#include <vector>

namespace tfc::rt::test {

class FakeBackend : public Backend {
public:
  ~FakeBackend() override;
  std::string name() const override { return "fake"; }
  std::string deviceDescription() const override { return "fake test device"; }

  Status allocate(size_t bytes, DevicePtr &out) override;
  void free(DevicePtr ptr) override;
  Status copyToDevice(DevicePtr dst, const void *src, size_t bytes) override;
  Status copyToHost(void *dst, DevicePtr src, size_t bytes) override;
  Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override;
  Status prepareKernel(const KernelDesc &kernel,
                       std::unique_ptr<PreparedKernel> &out) override;
  Status launch(PreparedKernel &kernel, const KernelDesc &desc,
                const std::vector<DevicePtr> &args,
                const std::vector<const BufferDesc *> &argBuffers) override;
  Status gemm(const GemmDesc &gemm, const GemmOperands &operands) override;
  Status synchronize() override;

  /// Calls made, e.g. "allocate 24", "prepare k0", "launch k0", "gemm",
  /// "gemm gelu_aux_bias" (epilogues other than none are named), "copy 16",
  /// "sync".
  std::vector<std::string> log;
  /// A call whose log line starts with this prefix fails.
  std::string failOn;
  /// Number of live allocations.
  size_t liveAllocations() const { return allocations_.size(); }
  /// Checks that [ptr, ptr+bytes) lies inside one live allocation.
  bool inBounds(DevicePtr ptr, size_t bytes) const;

private:
  Status record(const std::string &line);
  std::map<DevicePtr, size_t> allocations_;
};

} // namespace tfc::rt::test

#endif // TFC_TEST_RUNTIME_FAKEBACKEND_H
